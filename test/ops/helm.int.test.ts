/**
 * The chart under a real helm (scripts/helm.sh: the binary DESIGN.md names, pinned and checked, or
 * HELM_BIN): `helm lint --strict` and `helm template` with the default and the production values, every
 * workload rendered, the daily import's CronJob from either source, and each deliberately bad values
 * file refused by the chart's values.schema.json.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments, stringify } from 'yaml';
import { CHART, ROOT, readYaml, SERVICES } from './lib.ts';

let helm: string;
const PRODUCTION = join(ROOT, 'deploy', 'values-production.yaml');
const BAD = join(ROOT, 'test', 'ops', 'chart-bad-values');
const work = mkdtempSync(join(tmpdir(), 'mdp-helm-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A values file in the test's folder; its path. */
function valuesFile(name: string, values: unknown): string {
  const file = join(work, `${name}.yaml`);
  writeFileSync(file, stringify(values));
  return file;
}

function run(...args: string[]) {
  const r = spawnSync(helm, args, { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, out: r.stdout, err: r.stderr };
}

function render(...values: string[]) {
  const r = run('template', 'mdp', CHART, '--namespace', 'mdp', ...values.flatMap((v) => ['-f', v]));
  expect(r.status, r.err).toBe(0);
  return parseAllDocuments(r.out)
    .map((d) => d.toJS() as { kind: string; metadata: { name: string }; spec?: any } | null)
    .filter((d) => d !== null);
}

/** The CronJobs a render holds. */
const cronJobs = (docs: ReturnType<typeof render>) => docs.filter((d) => d.kind === 'CronJob');

beforeAll(() => {
  helm = execFileSync('bash', [join(ROOT, 'scripts', 'helm.sh')], { encoding: 'utf8' }).trim();
}, 180_000);

describe('the chart under real helm', () => {
  it('is helm v4 as DESIGN.md says', () => {
    expect(run('version', '--short').out).toMatch(/^v4\./);
  });

  it('passes helm lint --strict with the default and the production values', () => {
    for (const values of [[], ['-f', PRODUCTION]]) {
      const r = run('lint', '--strict', CHART, ...values);
      expect(r.status, `${r.out}${r.err}`).toBe(0);
    }
  });

  it('renders a workload and a Service for every service, with either values', () => {
    for (const values of [[], [PRODUCTION]]) {
      const docs = render(...values);
      for (const service of SERVICES) {
        const workloads = docs.filter(
          (d) => ['Deployment', 'StatefulSet'].includes(d.kind) && d.metadata.name.endsWith(service),
        );
        expect(workloads.length, `${service} with ${values.join(',') || 'defaults'}`).toBe(1);
        expect(docs.some((d) => d.kind === 'Service' && d.metadata.name.includes(service))).toBe(true);
      }
      expect(docs.some((d) => d.kind === 'Job')).toBe(true); // migrations before upgrade
    }
  });

  it('changes the shard count in one upgrade, with the production values too: 4 → 2 and back to 4', () => {
    for (const shards of [2, 4]) {
      const docs = render(PRODUCTION, valuesFile(`shards-${shards}`, { quotaLedger: { shards } }));
      const sts = docs.find((d) => d.kind === 'StatefulSet' && d.metadata.name.endsWith('quota-ledger'))!;
      // Exactly the shards: no pod runs past the last one (a removed shard's subject is recorded by the
      // shard its index falls to), and each pod's index is its pod-index label.
      expect(sts.spec.replicas).toBe(shards);
      // Each restarted shard ready for 5 s before the next restarts: the shards still on the old count
      // stand in for the new one meanwhile.
      expect(sts.spec.minReadySeconds).toBe(5);
      const container = sts.spec.template.spec.containers[0];
      const env = Object.fromEntries(container.env.map((e: any) => [e.name, e.value ?? e.valueFrom]));
      expect(env.SHARD_COUNT).toBe(String(shards));
      expect(env.SHARD_INDEX).toEqual({
        fieldRef: { fieldPath: "metadata.labels['apps.kubernetes.io/pod-index']" },
      });
      const gateway = docs.find((d) => d.kind === 'Deployment' && d.metadata.name.endsWith('gateway'))!;
      const ledgerAddr = gateway.spec.template.spec.containers[0].env.find(
        (e: any) => e.name === 'LEDGER_ADDR',
      ).value;
      expect(ledgerAddr.split(',')).toHaveLength(shards);
    }
  });

  it('keeps charges on three JetStream replicas in production, one by default (a single NATS server)', () => {
    const replicas = (...values: string[]) => {
      const config = render(...values).find(
        (d) => d.kind === 'ConfigMap' && d.metadata.name.endsWith('common'),
      );
      return (config as { data?: Record<string, string> } | undefined)?.data?.USAGE_STREAM_REPLICAS;
    };
    expect(replicas()).toBe('1');
    expect(replicas(PRODUCTION)).toBe('3');
  });

  it('points options-analytics at the equities-data calendar it follows, and lets it through that NetworkPolicy', () => {
    for (const values of [[], [PRODUCTION]]) {
      const docs = render(...values);
      const options = docs.find(
        (d) => d.kind === 'Deployment' && d.metadata.name.endsWith('options-analytics'),
      )!;
      const env = options.spec.template.spec.containers[0].env;
      expect(env.find((e: any) => e.name === 'EQUITIES_ADDR').value).toBe(
        'dns:///mdp-equities-data-grpc.mdp.svc.cluster.local:50053',
      );
      const policy = docs.find(
        (d) => d.kind === 'NetworkPolicy' && d.metadata.name.endsWith('equities-data'),
      )!;
      const peers = policy.spec.ingress[0].from.map(
        (f: any) => f.podSelector.matchLabels['app.kubernetes.io/component'],
      );
      expect(peers).toEqual(['gateway', 'options-analytics']);
      const others = docs.filter(
        (d) =>
          d.kind === 'NetworkPolicy' &&
          /(auth|quota-ledger|filings-reader|options-analytics)$/.test(d.metadata.name),
      );
      for (const p of others)
        expect(
          p.spec.ingress[0].from.map((f: any) => f.podSelector.matchLabels['app.kubernetes.io/component']),
          p.metadata.name,
        ).toEqual(['gateway']);
    }
  });

  it('renders no daily import by default', () => {
    expect(cronJobs(render())).toEqual([]);
  });

  it('refuses every deliberately bad values file, at the place the file names', () => {
    const files = readdirSync(BAD).filter((f) => f.endsWith('.yaml'));
    expect(files.length).toBeGreaterThan(10);
    for (const file of files) {
      const at = /^# rejected at: (\S+)/.exec(readFileSync(join(BAD, file), 'utf8'))?.[1];
      const r = run('template', 'mdp', CHART, '-f', join(BAD, file));
      expect(r.status, `${file} was accepted`).not.toBe(0);
      expect(r.err, file).toContain(`at '${at}'`);
    }
    // One real helm run per file, one after another: 15 s in CI, over 30 s on a machine also running
    // the stress loop.
  }, 120_000);
});

describe('the daily import CronJob under real helm', () => {
  const fromVolume = {
    equitiesData: { dbSchema: 'equities_live' },
    optionsAnalytics: { extraEnv: [{ name: 'RISK_FREE_RATE', value: '0.07' }] },
    dataImport: {
      enabled: true,
      source: { type: 'volume', volume: { claimName: 'nse-files', subPath: 'daily' } },
      pushgatewayUrl: 'http://prometheus-pushgateway.monitoring.svc:9091',
    },
  };
  const fromBucket = {
    dataImport: {
      enabled: true,
      source: {
        type: 'objectStore',
        objectStore: {
          url: 's3://nse-files/daily/',
          endpoint: 'https://minio.storage.svc:9000',
          region: 'ap-south-1',
          existingSecret: 'nse-bucket',
          days: 3,
        },
      },
    },
  };
  const podOf = (cronJob: any) => cronJob.spec.jobTemplate.spec.template.spec;
  const envMap = (container: any) =>
    Object.fromEntries(container.env.map((e: any) => [e.name, e.value ?? e.valueFrom]));

  it('passes helm lint --strict from a volume and from an object store', () => {
    for (const values of [valuesFile('volume', fromVolume), valuesFile('bucket', fromBucket)]) {
      const r = run('lint', '--strict', CHART, '-f', values);
      expect(r.status, `${r.out}${r.err}`).toBe(0);
    }
  });

  it('from a volume: the schedule in IST, one run at a time, the tool on the day folder of a read-only claim', () => {
    const [cronJob, ...more] = cronJobs(render(valuesFile('volume', fromVolume)));
    expect(more).toEqual([]);
    expect(cronJob!.metadata.name).toBe('mdp-data-import');
    expect(cronJob!.spec).toMatchObject({
      schedule: '30 19 * * 1-5',
      timeZone: 'Asia/Kolkata',
      concurrencyPolicy: 'Forbid',
      suspend: false,
      startingDeadlineSeconds: expect.any(Number),
      successfulJobsHistoryLimit: expect.any(Number),
      failedJobsHistoryLimit: expect.any(Number),
      jobTemplate: { spec: { backoffLimit: 2, activeDeadlineSeconds: expect.any(Number) } },
    });
    const pod = podOf(cronJob);
    expect(pod.restartPolicy).toBe('Never');
    expect(pod.initContainers).toBeUndefined();
    const [container] = pod.containers;
    expect(container).toMatchObject({
      // <image.registry>/<repository>:<the chart's appVersion>, as every service's image.
      image: `ghcr.io/your-org/mdp-data-import:${readYaml('charts/mdp/Chart.yaml').appVersion}`,
      command: ['node', 'dist/cli.js'],
      args: ['/data', '--day-folder'],
    });
    expect(container.volumeMounts).toContainEqual({
      name: 'data',
      mountPath: '/data',
      readOnly: true,
      subPath: 'daily',
    });
    expect(pod.volumes).toContainEqual({
      name: 'data',
      persistentVolumeClaim: { claimName: 'nse-files', readOnly: true },
    });
    expect(pod.volumes).toContainEqual({ name: 'tmp', emptyDir: { sizeLimit: '64Mi' } });
    // The same security as every workload of the chart.
    expect(pod).toMatchObject({
      automountServiceAccountToken: false,
      securityContext: { runAsNonRoot: true, runAsUser: 1000, seccompProfile: { type: 'RuntimeDefault' } },
    });
    expect(container.securityContext).toEqual({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
    });
    expect(container.resources).toMatchObject({ requests: expect.any(Object), limits: expect.any(Object) });
  });

  it('writes exactly the schemas the data services read, with the DATABASE_URL they are given', () => {
    for (const extra of [[], [PRODUCTION]]) {
      const docs = render(...extra, valuesFile('volume', fromVolume));
      const schemaOf = (service: string) => {
        const deployment = docs.find((d) => d.kind === 'Deployment' && d.metadata.name === `mdp-${service}`)!;
        return envMap(deployment.spec.template.spec.containers[0]).DB_SCHEMA;
      };
      const env = envMap(podOf(cronJobs(docs)[0]).containers[0]);
      expect(env).toMatchObject({
        EQUITIES_DB_SCHEMA: schemaOf('equities-data'),
        OPTIONS_DB_SCHEMA: schemaOf('options-analytics'),
        FILINGS_DB_SCHEMA: schemaOf('filings-reader'),
        DATABASE_URL: { secretKeyRef: { name: 'mdp-secrets', key: 'DATABASE_URL' } },
        PUSHGATEWAY_URL: 'http://prometheus-pushgateway.monitoring.svc:9091',
        RISK_FREE_RATE: '0.07',
        LOG_LEVEL: 'info',
      });
      expect(env.EQUITIES_DB_SCHEMA).toBe('equities_live');
      const deployment = docs.find(
        (d) => d.kind === 'Deployment' && d.metadata.name === 'mdp-equities-data',
      )!;
      expect(envMap(deployment.spec.template.spec.containers[0]).DATABASE_URL).toEqual(env.DATABASE_URL);
    }
  });

  it('from an object store: an init container copies the recent day folders, with keys from the Secret', () => {
    const pod = podOf(cronJobs(render(valuesFile('bucket', fromBucket)))[0]);
    const [fetch] = pod.initContainers;
    expect(fetch.image).toBe('docker.io/amazon/aws-cli:2.32.8');
    expect(envMap(fetch)).toMatchObject({
      SOURCE_URL: 's3://nse-files/daily',
      DAYS: '3',
      HOME: '/tmp',
      AWS_ENDPOINT_URL_S3: 'https://minio.storage.svc:9000',
      AWS_REGION: 'ap-south-1',
      AWS_ACCESS_KEY_ID: { secretKeyRef: { name: 'nse-bucket', key: 'AWS_ACCESS_KEY_ID' } },
      AWS_SECRET_ACCESS_KEY: { secretKeyRef: { name: 'nse-bucket', key: 'AWS_SECRET_ACCESS_KEY' } },
    });
    expect(fetch.securityContext).toMatchObject({
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
    });
    expect(fetch.volumeMounts).toEqual([
      { name: 'data', mountPath: '/data' },
      { name: 'tmp', mountPath: '/tmp' },
    ]);
    expect(pod.volumes).toContainEqual({ name: 'data', emptyDir: { sizeLimit: '4Gi' } });
    expect(pod.containers[0].volumeMounts).toContainEqual({
      name: 'data',
      mountPath: '/data',
      readOnly: true,
    });

    // The copy script, run with a stand-in `aws`: the day folders of the last DAYS days in IST.
    const bin = join(work, 'bin');
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, 'aws'), '#!/bin/sh\nfor a in "$@"; do echo "$a"; done\n');
    chmodSync(join(bin, 'aws'), 0o755);
    const out = execFileSync('/bin/sh', ['-ec', fetch.args[0]], {
      env: { PATH: `${bin}:${process.env.PATH}`, SOURCE_URL: 's3://nse-files/daily', DAYS: '3' },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const istDay = (daysAgo: number) =>
      new Date(Date.now() + 19_800_000 - daysAgo * 86_400_000).toISOString().slice(0, 10);
    // Every line the stand-in printed, then the script's own report of what /data holds.
    const lines = out.trim().split('\n');
    expect(lines.at(-1)).toMatch(/^day folders in \/data:/);
    expect(lines.slice(0, -1)).toEqual([
      's3',
      'sync',
      's3://nse-files/daily/',
      '/data/',
      '--no-progress',
      '--exclude',
      '*',
      ...[0, 1, 2].flatMap((i) => ['--include', `${istDay(i)}/*`]),
    ]);
  });

  it('with the production values: from the bucket, with the production Secret and Pushgateway', () => {
    const [cronJob] = cronJobs(render(PRODUCTION));
    const pod = podOf(cronJob);
    expect(envMap(pod.initContainers[0]).SOURCE_URL).toBe('s3://mdp-exchange-files/nse');
    expect(envMap(pod.containers[0]).DATABASE_URL).toEqual({
      secretKeyRef: { name: 'mdp-secrets', key: 'DATABASE_URL' },
    });
  });
});

describe('the usage log and its archive under real helm', () => {
  const statefulSetOf = (docs: ReturnType<typeof render>) =>
    docs.find((d) => d.kind === 'StatefulSet' && d.metadata.name === 'mdp-quota-ledger')!;
  const ledgerEnv = (docs: ReturnType<typeof render>) =>
    Object.fromEntries(
      statefulSetOf(docs).spec.template.spec.containers[0].env.map((e: any) => [
        e.name,
        e.value ?? e.valueFrom,
      ]),
    );
  const usageNames = (env: Record<string, unknown>) =>
    Object.keys(env).filter((n) => n.startsWith('USAGE_ARCHIVE_') || n.startsWith('AWS_'));
  const sharedClaim = {
    quotaLedger: {
      usageArchive: {
        folder: { persistence: { existingClaim: 'usage-archive-nfs', subPath: 'ledger' } },
      },
    },
  };
  const bucket = {
    quotaLedger: {
      usageLog: { retentionDays: 93, partitionsAheadDays: 14, sealGraceMinutes: 45, upkeepIntervalMs: 60000 },
      usageArchive: {
        target: 's3',
        s3: {
          bucket: 'mdp-usage',
          prefix: 'ledger/usage-events/',
          endpoint: 'https://minio.storage.svc:9000',
          region: 'ap-south-1',
          forcePathStyle: true,
          existingSecret: 'usage-bucket',
        },
      },
    },
  };

  it('passes helm lint --strict with a claim per pod, a shared claim and a bucket', () => {
    for (const values of [
      [],
      ['-f', valuesFile('shared-claim', sharedClaim)],
      ['-f', valuesFile('usage-bucket', bucket)],
    ]) {
      const r = run('lint', '--strict', CHART, ...values);
      expect(r.status, `${r.out}${r.err}`).toBe(0);
    }
  });

  it('by default: the settings on every shard, and a claim per pod mounted where USAGE_ARCHIVE_DIR points', () => {
    const docs = render();
    const sts = statefulSetOf(docs);
    const env = ledgerEnv(docs);
    expect(env).toMatchObject({
      USAGE_LOG_RETENTION_DAYS: '62',
      USAGE_PARTITIONS_AHEAD_DAYS: '7',
      USAGE_SEAL_GRACE_MINUTES: '20',
      USAGE_UPKEEP_INTERVAL_MS: '300000',
      USAGE_ARCHIVE_DIR: '/var/lib/mdp/usage-archive',
    });
    expect(usageNames(env)).toEqual(['USAGE_ARCHIVE_DIR']);
    expect(sts.spec.template.spec.containers[0].volumeMounts).toContainEqual({
      name: 'usage-archive',
      mountPath: '/var/lib/mdp/usage-archive',
    });
    // From the claim template: not among the pod's volumes, one claim per pod (only shard 0's fills up).
    expect(sts.spec.template.spec.volumes.map((v: any) => v.name)).toEqual(['tmp']);
    expect(sts.spec.volumeClaimTemplates).toEqual([
      {
        metadata: {
          name: 'usage-archive',
          labels: {
            'app.kubernetes.io/name': 'mdp',
            'app.kubernetes.io/instance': 'mdp',
            'app.kubernetes.io/component': 'quota-ledger',
          },
        },
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '20Gi' } } },
      },
    ]);
    // The pods write it as the image's user: the fsGroup makes the volume theirs.
    expect(sts.spec.template.spec.securityContext).toMatchObject({ fsGroup: 1000 });
  });

  it('the claim template is the same whatever the chart version or labels, so upgrades never touch it', () => {
    const storage = { quotaLedger: { usageArchive: { folder: { persistence: { storageClass: 'gp3' } } } } };
    const claims = (extra: unknown) =>
      statefulSetOf(render(valuesFile('claims', storage), valuesFile('extra', extra))).spec
        .volumeClaimTemplates;
    const before = claims({});
    expect(before[0].spec.storageClassName).toBe('gp3');
    expect(claims({ commonLabels: { team: 'ledger' }, image: { tag: '9.9.9' } })).toEqual(before);
  });

  it('with an existing claim: every pod mounts it (ReadWriteMany across nodes), no claim template', () => {
    const sts = statefulSetOf(render(valuesFile('shared-claim', sharedClaim)));
    expect(sts.spec.volumeClaimTemplates).toBeUndefined();
    expect(sts.spec.template.spec.volumes).toContainEqual({
      name: 'usage-archive',
      persistentVolumeClaim: { claimName: 'usage-archive-nfs' },
    });
    expect(sts.spec.template.spec.containers[0].volumeMounts).toContainEqual({
      name: 'usage-archive',
      mountPath: '/var/lib/mdp/usage-archive',
      subPath: 'ledger',
    });
  });

  it('to a bucket: the S3 settings and the Secret’s key pair, no volume', () => {
    const docs = render(valuesFile('usage-bucket', bucket));
    const sts = statefulSetOf(docs);
    const env = ledgerEnv(docs);
    expect(env).toMatchObject({
      USAGE_LOG_RETENTION_DAYS: '93',
      USAGE_PARTITIONS_AHEAD_DAYS: '14',
      USAGE_SEAL_GRACE_MINUTES: '45',
      USAGE_UPKEEP_INTERVAL_MS: '60000',
    });
    expect(Object.fromEntries(usageNames(env).map((n) => [n, env[n]]))).toEqual({
      USAGE_ARCHIVE_S3_BUCKET: 'mdp-usage',
      USAGE_ARCHIVE_S3_PREFIX: 'ledger/usage-events/',
      USAGE_ARCHIVE_S3_ENDPOINT: 'https://minio.storage.svc:9000',
      USAGE_ARCHIVE_S3_REGION: 'ap-south-1',
      USAGE_ARCHIVE_S3_FORCE_PATH_STYLE: 'true',
      AWS_ACCESS_KEY_ID: { secretKeyRef: { name: 'usage-bucket', key: 'AWS_ACCESS_KEY_ID' } },
      AWS_SECRET_ACCESS_KEY: { secretKeyRef: { name: 'usage-bucket', key: 'AWS_SECRET_ACCESS_KEY' } },
    });
    expect(sts.spec.volumeClaimTemplates).toBeUndefined();
    expect(sts.spec.template.spec.volumes.map((v: any) => v.name)).toEqual(['tmp']);
    expect(sts.spec.template.spec.containers[0].volumeMounts.map((m: any) => m.name)).toEqual(['tmp']);
  });

  it("to AWS with the pod's own identity: no endpoint, no keys", () => {
    const irsa = { quotaLedger: { usageArchive: { target: 's3', s3: { bucket: 'mdp-usage' } } } };
    const env = ledgerEnv(render(valuesFile('irsa', irsa)));
    expect(Object.fromEntries(usageNames(env).map((n) => [n, env[n]]))).toEqual({
      USAGE_ARCHIVE_S3_BUCKET: 'mdp-usage',
      USAGE_ARCHIVE_S3_PREFIX: 'usage-events/',
      USAGE_ARCHIVE_S3_REGION: 'us-east-1',
      USAGE_ARCHIVE_S3_FORCE_PATH_STYLE: 'false',
    });
  });

  it('with the production values: to the production bucket, with its Secret', () => {
    const env = ledgerEnv(render(PRODUCTION));
    expect(env).toMatchObject({
      USAGE_ARCHIVE_S3_BUCKET: 'mdp-usage-archive',
      USAGE_ARCHIVE_S3_REGION: 'ap-south-1',
      AWS_ACCESS_KEY_ID: { secretKeyRef: { name: 'mdp-usage-archive', key: 'AWS_ACCESS_KEY_ID' } },
    });
    expect(env.USAGE_ARCHIVE_DIR).toBeUndefined();
  });

  it("refuses a seal grace within the gateway's retries plus a hold, and an archive on no volume", () => {
    const grace = (holdTtlMs: number) =>
      run(
        'template',
        'mdp',
        CHART,
        '--set',
        'quotaLedger.usageLog.sealGraceMinutes=11',
        '--set',
        `config.holdTtlMs=${holdTtlMs}`,
      );
    expect(grace(59_000).status).toBe(0);
    const refused = grace(60_000);
    expect(refused.status).not.toBe(0);
    expect(refused.err).toContain('quotaLedger.usageLog.sealGraceMinutes (11) must be longer than');
    // Past the schema too (--skip-schema-validation): the template itself will not archive to nothing.
    const noVolume = run(
      'template',
      'mdp',
      CHART,
      '--skip-schema-validation',
      '--set',
      'quotaLedger.usageArchive.folder.persistence.enabled=false',
    );
    expect(noVolume.status).not.toBe(0);
    expect(noVolume.err).toContain('quotaLedger.usageArchive.folder.persistence.enabled must be true');
  });
});

describe('token affinity under real helm', () => {
  type Doc = ReturnType<typeof render>[number] & { metadata: { annotations?: Record<string, string> } };
  const HASH_BY = 'nginx.ingress.kubernetes.io/upstream-hash-by';
  const nginx = { gateway: { tokenAffinity: { enabled: true, via: 'ingress-nginx' } } };
  const route = {
    httpRoute: {
      enabled: true,
      parentRefs: [{ name: 'eg', namespace: 'envoy-gateway', sectionName: 'https' }],
      hostnames: ['api.example.com'],
    },
  };
  const envoy = { ...route, gateway: { tokenAffinity: { enabled: true, via: 'envoy-gateway' } } };
  const find = (docs: Doc[], kind: string, name: string) =>
    docs.find((d) => d.kind === kind && d.metadata.name === name);
  const paths = (ingress: any) =>
    ingress.spec.rules.flatMap((r: any) =>
      r.http.paths.map(
        (p: any) => `${r.host}${p.path} ${p.backend.service.name}:${p.backend.service.port.name}`,
      ),
    );
  const policies = (docs: Doc[]) => docs.filter((d) => d.kind === 'BackendTrafficPolicy');

  it('passes helm lint --strict through ingress-nginx and through Envoy Gateway', () => {
    for (const values of [valuesFile('nginx', nginx), valuesFile('envoy', envoy)]) {
      const r = run('lint', '--strict', CHART, '-f', values);
      expect(r.status, `${r.out}${r.err}`).toBe(0);
    }
  });

  it('is off by default: no hash annotation, no policy, no HTTPRoute, /files on the gateway Ingress', () => {
    const docs = render() as Doc[];
    const ingresses = docs.filter((d) => d.kind === 'Ingress');
    expect(ingresses.map((d) => d.metadata.name)).toEqual(['mdp-gateway']);
    expect(ingresses[0]!.metadata.annotations?.[HASH_BY]).toBeUndefined();
    expect(paths(ingresses[0])).toEqual([
      'api.mdp.example/files mdp-filings-reader:files',
      'api.mdp.example/ mdp-gateway:http',
    ]);
    expect(policies(docs)).toEqual([]);
    expect(docs.filter((d) => d.kind === 'HTTPRoute')).toEqual([]);
  });

  it('through ingress-nginx: the gateway Ingress hashes by $http_authorization, /files keeps its own unhashed Ingress', () => {
    const docs = render(valuesFile('nginx', nginx)) as Doc[];
    const gateway = find(docs, 'Ingress', 'mdp-gateway')!;
    expect(gateway.metadata.annotations).toEqual({ [HASH_BY]: '$http_authorization' });
    expect(paths(gateway)).toEqual(['api.mdp.example/ mdp-gateway:http']);
    const files = find(docs, 'Ingress', 'mdp-filings-reader')!;
    expect(files.metadata.annotations).toBeUndefined();
    expect(paths(files)).toEqual(['api.mdp.example/files mdp-filings-reader:files']);
    expect(docs.filter((d) => d.kind === 'Ingress')).toHaveLength(2);
    expect(policies(docs)).toEqual([]);
    // Without the public links on the Ingress, there is nothing to split off.
    const noFiles = render(
      valuesFile('nginx', nginx),
      valuesFile('no-files', { filingsReader: { files: { ingress: false } } }),
    ) as Doc[];
    expect(noFiles.filter((d) => d.kind === 'Ingress').map((d) => d.metadata.name)).toEqual(['mdp-gateway']);
  });

  it('with the production values: the hash on the TLS Ingress, the /files Ingress on the same certificate without cert-manager', () => {
    const docs = render(PRODUCTION) as Doc[];
    const gateway = find(docs, 'Ingress', 'mdp-gateway')!;
    expect(gateway.metadata.annotations).toEqual({
      'cert-manager.io/cluster-issuer': 'letsencrypt',
      'nginx.ingress.kubernetes.io/proxy-read-timeout': '30',
      [HASH_BY]: '$http_authorization',
    });
    const files = find(docs, 'Ingress', 'mdp-filings-reader')!;
    // One Ingress per certificate for cert-manager; both serve the host with its Secret.
    expect(files.metadata.annotations).toEqual({ 'nginx.ingress.kubernetes.io/proxy-read-timeout': '30' });
    expect((files as any).spec.tls).toEqual((gateway as any).spec.tls);
    expect((files as any).spec.ingressClassName).toBe('nginx');
    expect(paths(files)).toEqual(['api.example.com/files mdp-filings-reader:files']);
    expect(paths(gateway)).toEqual(['api.example.com/ mdp-gateway:http']);
  });

  it('through Envoy Gateway: HTTPRoutes to the gateway and /files, a BackendTrafficPolicy hashing the Authorization header', () => {
    const docs = render(valuesFile('envoy', envoy)) as Doc[];
    const gatewayRoute = find(docs, 'HTTPRoute', 'mdp-gateway')!;
    expect(gatewayRoute.spec).toEqual({
      parentRefs: [{ name: 'eg', namespace: 'envoy-gateway', sectionName: 'https' }],
      hostnames: ['api.example.com'],
      rules: [
        {
          matches: [{ path: { type: 'PathPrefix', value: '/' } }],
          backendRefs: [{ name: 'mdp-gateway', port: 80 }],
        },
      ],
    });
    const filesRoute = find(docs, 'HTTPRoute', 'mdp-filings-reader')!;
    expect(filesRoute.spec.rules).toEqual([
      {
        matches: [{ path: { type: 'PathPrefix', value: '/files' } }],
        backendRefs: [{ name: 'mdp-filings-reader', port: 8090 }],
      },
    ]);
    // The routes' backends are the Services the chart renders, on their ports.
    const service = find(docs, 'Service', 'mdp-gateway')!;
    expect(service.spec.ports[0].port).toBe(80);
    const filesService = find(docs, 'Service', 'mdp-filings-reader')!;
    expect(filesService.spec.ports.map((p: any) => p.port)).toContain(8090);

    const [policy, ...more] = policies(docs);
    expect(more).toEqual([]);
    expect(policy).toMatchObject({
      apiVersion: 'gateway.envoyproxy.io/v1alpha1',
      metadata: { name: 'mdp-gateway' },
      spec: {
        targetRefs: [{ group: 'gateway.networking.k8s.io', kind: 'HTTPRoute', name: 'mdp-gateway' }],
        loadBalancer: {
          type: 'ConsistentHash',
          consistentHash: { type: 'Header', header: { name: 'Authorization' } },
        },
      },
    });
    // The Ingress, still on by default, is left as it is: no hash there, /files on it.
    const ingress = find(docs, 'Ingress', 'mdp-gateway')!;
    expect(ingress.metadata.annotations?.[HASH_BY]).toBeUndefined();
    expect(paths(ingress)).toContain('api.mdp.example/files mdp-filings-reader:files');
  });

  it('HTTPRoutes without the hash render no policy; with the Ingress off, links are built on the route’s host', () => {
    const docs = render(
      valuesFile('route', route),
      valuesFile('no-ingress', { ingress: { enabled: false } }),
    );
    expect(docs.filter((d) => d.kind === 'HTTPRoute').map((d) => d.metadata.name)).toEqual([
      'mdp-gateway',
      'mdp-filings-reader',
    ]);
    expect(policies(docs as Doc[])).toEqual([]);
    expect(docs.filter((d) => d.kind === 'Ingress')).toEqual([]);
    const filings = find(docs as Doc[], 'Deployment', 'mdp-filings-reader')!;
    const env = filings.spec.template.spec.containers[0].env;
    expect(env.find((e: any) => e.name === 'PUBLIC_FILES_BASE_URL').value).toBe('https://api.example.com');
  });

  it('writes no token anywhere: only the header’s name and the controller’s variable for it', () => {
    for (const values of [[valuesFile('nginx', nginx)], [valuesFile('envoy', envoy)], [PRODUCTION]]) {
      const r = run('template', 'mdp', CHART, ...values.flatMap((v) => ['-f', v]));
      expect(r.status, r.err).toBe(0);
      const mentions = r.out.split('\n').filter((line) => /authori[sz]ation|bearer/i.test(line));
      expect(mentions.map((l) => l.trim()).sort(), values.join(',')).toEqual(
        values[0] === PRODUCTION || values[0]!.endsWith('nginx.yaml')
          ? [`${HASH_BY}: $http_authorization`]
          : ['name: Authorization'],
      );
    }
  });

  it('refuses an unknown proxy, a proxy without its object, and Ingress annotations that would undo the hash', () => {
    const unknown = run('template', 'mdp', CHART, '--set', 'gateway.tokenAffinity.via=haproxy');
    expect(unknown.status).not.toBe(0);
    expect(unknown.err).toContain(
      "at '/gateway/tokenAffinity/via': value must be one of 'ingress-nginx', 'envoy-gateway'",
    );
    const noIngress = run(
      'template',
      'mdp',
      CHART,
      '-f',
      valuesFile('nginx', nginx),
      '--set',
      'ingress.enabled=false',
    );
    expect(noIngress.status).not.toBe(0);
    expect(noIngress.err).toContain("at '/ingress/enabled'");
    const noRoute = run(
      'template',
      'mdp',
      CHART,
      '--set',
      'gateway.tokenAffinity.enabled=true',
      '--set',
      'gateway.tokenAffinity.via=envoy-gateway',
    );
    expect(noRoute.status).not.toBe(0);
    expect(noRoute.err).toContain("at '/httpRoute/enabled'");
    for (const [key, value, says] of [
      [HASH_BY, '$remote_addr', 'hashes by the Authorization header'],
      ['nginx.ingress.kubernetes.io/affinity', 'cookie', 'overrides gateway.tokenAffinity'],
      ['nginx.ingress.kubernetes.io/upstream-hash-by-subset', 'true', 'overrides gateway.tokenAffinity'],
      ['nginx.ingress.kubernetes.io/service-upstream', 'true', 'needs the controller to pick the pod'],
    ]) {
      const annotated = valuesFile('annotated', { ...nginx, ingress: { annotations: { [key!]: value } } });
      const r = run('template', 'mdp', CHART, '-f', annotated);
      expect(r.status, key).not.toBe(0);
      expect(r.err, key).toContain(`ingress.annotations sets ${key}`);
      expect(r.err, key).toContain(says);
    }
    // The same annotations are the operator's own business when the hash is off.
    const off = valuesFile('off', {
      ingress: { annotations: { 'nginx.ingress.kubernetes.io/affinity': 'cookie' } },
    });
    expect(run('template', 'mdp', CHART, '-f', off).status).toBe(0);
  }, 120_000);
});
