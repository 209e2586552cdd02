/**
 * The Helm chart's structure, without helm: values (default, production and deliberately bad ones)
 * against values.schema.json; every template's actions balanced and its YAML well formed once the
 * actions are taken out; every `.Values` path real; every value used; the objects the platform needs
 * present (the daily import's CronJob too); and the variables handed to each service, and to the
 * import tool, ones it really reads.
 * Real helm (`helm lint --strict`, `helm template`) runs in test/ops/helm.int.test.ts.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import Ajv from 'ajv';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  actions,
  CHART,
  checkBlocks,
  coalesce,
  configKeys,
  defines,
  filesUnder,
  leafPaths,
  read,
  readYaml,
  valueAt,
  yamlDocs,
} from './lib.ts';

const defaults = readYaml('charts/mdp/values.yaml');
const schema = JSON.parse(read('charts/mdp/values.schema.json'));
const ajv = new Ajv({ allErrors: true, strict: false });
const validate = ajv.compile(schema);
const errorsOf = (values: unknown) => {
  validate(values);
  return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`);
};

const templateFiles = filesUnder('charts/mdp/templates');
const templates = new Map(templateFiles.map((f) => [f.replace('charts/mdp/templates/', ''), read(f)]));
const manifests = [...templates.keys()].filter((f) => f.endsWith('.yaml'));
const helpers = defines(templates.get('_helpers.tpl')!);
const allTemplateText = [...templates.values()].join('\n');

/** The kinds a template produces, following `include` of a helper that defines a manifest. */
function kindsOf(file: string): string[] {
  const src = templates.get(file)!;
  const kinds = yamlDocs(src).map((d) => d.kind as string);
  for (const m of src.matchAll(/include "([^"]+)"/g)) {
    const body = helpers.get(m[1]!);
    if (body?.includes('apiVersion:')) kinds.push(...yamlDocs(body).map((d) => d.kind as string));
  }
  return kinds;
}

describe('values', () => {
  it('the defaults satisfy the schema', () => {
    expect(errorsOf(defaults)).toEqual([]);
  });

  it('deploy/values-production.yaml over the defaults satisfies the schema', () => {
    expect(errorsOf(coalesce(defaults, readYaml('deploy/values-production.yaml')))).toEqual([]);
  });

  // Each file names, in its first line, where the schema must object.
  const badDir = join(CHART, '..', '..', 'test', 'ops', 'chart-bad-values');
  const bad = readdirSync(badDir).filter((f) => f.endsWith('.yaml'));
  it.each(bad)('rejects %s', (file) => {
    const src = read(`test/ops/chart-bad-values/${file}`);
    const expected = /^# rejected at: (\S+)/.exec(src)?.[1];
    expect(expected, `${file} must start with "# rejected at: <instance path>"`).toBeDefined();
    const errors = errorsOf(coalesce(defaults, parse(src)));
    expect(errors.length, `${file} was accepted`).toBeGreaterThan(0);
    expect(
      errors.some((e) => e.startsWith(`${expected} `) || e.startsWith(`${expected}/`)),
      errors.join('\n'),
    ).toBe(true);
  });

  it('there are bad values for every kind of mistake the schema guards', () => {
    expect(bad.length).toBeGreaterThanOrEqual(12);
  });

  it('both values files leave every pod time to drain before it is killed', () => {
    for (const values of [defaults, coalesce(defaults, readYaml('deploy/values-production.yaml')) as any]) {
      const needed = values.config.preStopSleepSeconds + values.config.shutdownGraceMs / 1000 + 2;
      for (const key of [
        'gateway',
        'auth',
        'quotaLedger',
        'equitiesData',
        'filingsReader',
        'optionsAnalytics',
      ]) {
        expect(values[key].terminationGracePeriodSeconds, key).toBeGreaterThanOrEqual(needed);
        if (values[key].autoscaling)
          expect(values[key].autoscaling.minReplicas, key).toBeLessThanOrEqual(
            values[key].autoscaling.maxReplicas,
          );
      }
    }
  });
});

describe('templates', () => {
  it('every action is closed and every block ended', () => {
    for (const [file, src] of templates) expect(() => checkBlocks(src), file).not.toThrow();
  });

  it('every manifest template is well-formed YAML once its actions are taken out', () => {
    for (const file of manifests) expect(() => yamlDocs(templates.get(file)!), file).not.toThrow();
    for (const [name, body] of helpers)
      if (body.includes('apiVersion:') || name === 'mdp.probes')
        expect(() => yamlDocs(body), name).not.toThrow();
  });

  it('every .Values path a template reads exists in values.yaml', () => {
    const missing: string[] = [];
    for (const [file, src] of templates) {
      for (const m of src.matchAll(/\.Values((?:\.[A-Za-z_][A-Za-z0-9_]*)+)/g)) {
        const path = m[1]!.slice(1);
        if (!valueAt(defaults, path).found) missing.push(`${file}: .Values.${path}`);
      }
      // Sections looked up by name: (index $.Values $key) over a dict of "component" "valuesKey".
      for (const dict of src.matchAll(/range \$component, \$key := dict ((?:"[^"]+" ?)+)/g)) {
        const words = [...dict[1]!.matchAll(/"([^"]+)"/g)].map((w) => w[1]!);
        for (let i = 1; i < words.length; i += 2)
          if (!valueAt(defaults, words[i]!).found) missing.push(`${file}: .Values.${words[i]}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('every value in values.yaml is read by some template', () => {
    // A value is read when its own name appears as a field, or a parent is handed whole to toYaml/with.
    const fields = new Set([...allTemplateText.matchAll(/\.([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]!));
    const wholesale = new Set<string>();
    for (const a of actions(allTemplateText.replace(/\{\{-?\s*\/\*[\s\S]*?\*\/\s*-?\}\}/g, ''))) {
      const m = /^(?:toYaml|with)\s+[$.\w]*\.([A-Za-z_]\w*)/.exec(a.body);
      if (m) wholesale.add(m[1]!);
    }
    const unused = leafPaths(defaults).filter((path) => {
      const parts = path.split('.');
      return !fields.has(parts.at(-1)!) && !parts.some((p) => wholesale.has(p));
    });
    expect(unused).toEqual([]);
  });

  it('the values keys the schema requires are all in values.yaml', () => {
    const missing: string[] = [];
    const walk = (node: any, path: string) => {
      if (!node || typeof node !== 'object') return;
      if (node.$ref) return walk(schema.definitions[node.$ref.split('/').at(-1)], path);
      for (const key of node.required ?? [])
        if (!valueAt(defaults, path ? `${path}.${key}` : key).found)
          missing.push(path ? `${path}.${key}` : key);
      for (const [key, sub] of Object.entries(node.properties ?? {})) {
        const p = path ? `${path}.${key}` : key;
        if (valueAt(defaults, p).found) walk(sub, p);
      }
    };
    walk(schema, '');
    expect(missing).toEqual([]);
  });
});

describe('objects the platform needs', () => {
  const stateless = {
    gateway: 'gateway/deployment.yaml',
    auth: 'auth/deployment.yaml',
    'equities-data': 'equities-data/deployment.yaml',
    'filings-reader': 'filings-reader/deployment.yaml',
    'options-analytics': 'options-analytics/deployment.yaml',
  };

  it('a Deployment and a Service for each stateless service; the gRPC ones a headless twin too', () => {
    for (const [component, file] of Object.entries(stateless)) {
      expect(kindsOf(file), file).toEqual(['Deployment']);
      expect(kindsOf(`${component}/service.yaml`), component).toEqual(
        component === 'gateway' ? ['Service'] : ['Service', 'Service'],
      );
      expect(templates.get(file), file).toContain(`"${component}"`);
    }
    const [clusterIp, headless] = yamlDocs(helpers.get('mdp.grpcService')!);
    expect(clusterIp).toMatchObject({ kind: 'Service', spec: { type: 'ClusterIP' } });
    // Only ready pods are listed, so the gateway never balances onto one that cannot answer.
    expect(headless).toMatchObject({ kind: 'Service', spec: { clusterIP: 'None' } });
    expect(headless!.spec.publishNotReadyAddresses).toBeUndefined();
    expect(helpers.get('mdp.grpcService')).toMatch(/name: \{\{ include "mdp.componentName" \. \}\}-grpc/);
  });

  it('the gateway reaches auth and the data services through their headless names, round robin', () => {
    expect(helpers.get('mdp.grpcAddr')).toContain(
      'printf "dns:///%s-grpc.%s.svc.%s:%d" (include "mdp.componentName" (dict "root" .root "component" .component)) .root.Release.Namespace .root.Values.clusterDomain',
    );
    for (const [name, component] of [
      ['AUTH_ADDR', 'auth'],
      ['EQUITIES_ADDR', 'equities-data'],
      ['FILINGS_ADDR', 'filings-reader'],
      ['OPTIONS_ADDR', 'options-analytics'],
    ])
      expect(templates.get('gateway/deployment.yaml')).toMatch(
        new RegExp(
          `name: ${name}\\s+value: \\{\\{ include "mdp.grpcAddr" \\(dict "root" \\. "component" "${component}"`,
        ),
      );
  });

  it('the quota ledger as a StatefulSet of shards behind a headless Service', () => {
    const [sts] = yamlDocs(templates.get('quota-ledger/statefulset.yaml')!);
    expect(sts!.kind).toBe('StatefulSet');
    expect(templates.get('quota-ledger/statefulset.yaml')).toMatch(
      /serviceName: \{\{ include "mdp.ledgerHeadless" \. \}\}/,
    );
    // The shards and nothing else: a removed shard's subject is recorded by a remaining one.
    expect(templates.get('quota-ledger/statefulset.yaml')).toMatch(/replicas: \{\{ \$v\.shards \}\}/);
    expect(templates.get('quota-ledger/statefulset.yaml')).toMatch(
      /name: SHARD_COUNT\s+value: \{\{ \$v\.shards \| int \| quote \}\}/,
    );
    const [svc] = yamlDocs(templates.get('quota-ledger/service-headless.yaml')!);
    expect(svc).toMatchObject({
      kind: 'Service',
      spec: { clusterIP: 'None', publishNotReadyAddresses: true },
    });
  });

  it("each ledger pod's shard index comes from its ordinal, by pod name or pod-index label", () => {
    const src = templates.get('quota-ledger/statefulset.yaml')!;
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansion, not a JS template
    expect(src).toContain('SHARD_INDEX="${POD_NAME##*-}"');
    // The count is the chart's alone: a shard never widens it for itself (no pod runs past the last shard).
    expect(src).not.toMatch(/SHARD_COUNT=/);
    expect(src).toContain("fieldPath: metadata.labels['apps.kubernetes.io/pod-index']");
    expect(src).toContain('fieldPath: metadata.name');
  });

  it("the gateway's LEDGER_ADDR lists <statefulset>-<i>.<headless service> for every shard, in order", () => {
    const helper = helpers.get('mdp.ledgerAddr')!;
    expect(helper).toContain('range $i := until (int .Values.quotaLedger.shards)');
    expect(helper).toContain(
      '$statefulSet := include "mdp.componentName" (dict "root" . "component" "quota-ledger")',
    );
    expect(helper).toContain('$headless := include "mdp.ledgerHeadless" .');
    expect(helper).toContain('printf "%s-%d.%s.%s.svc.%s:%d" $statefulSet $i $headless');
    expect(templates.get('gateway/deployment.yaml')).toMatch(
      /name: LEDGER_ADDR\s+value: \{\{ include "mdp.ledgerAddr" \. \| quote \}\}/,
    );
    // The StatefulSet's pods are named from the same helper.
    expect(templates.get('quota-ledger/statefulset.yaml')).toContain(
      '$ctx := dict "root" . "component" "quota-ledger"',
    );
  });

  it('PodDisruptionBudgets for all six, HPAs for the gateway and the data services', () => {
    expect(kindsOf('pdb.yaml')).toEqual(['PodDisruptionBudget']);
    for (const c of [
      'gateway',
      'auth',
      'quota-ledger',
      'equities-data',
      'filings-reader',
      'options-analytics',
    ])
      expect(templates.get('pdb.yaml')).toContain(`"${c}"`);
    expect(kindsOf('hpa.yaml')).toEqual(['HorizontalPodAutoscaler']);
    for (const c of ['gateway', 'equities-data', 'filings-reader', 'options-analytics'])
      expect(templates.get('hpa.yaml')).toContain(`"${c}"`);
    expect(templates.get('hpa.yaml')).not.toContain('"quota-ledger"');
    expect(yamlDocs(templates.get('hpa.yaml')!)[0]).toMatchObject({
      apiVersion: 'autoscaling/v2',
      spec: { scaleTargetRef: { kind: 'Deployment' } },
    });
  });

  it('NetworkPolicies: default deny, the gateway open, everything else only from the gateway', () => {
    const docs = yamlDocs(templates.get('networkpolicy.yaml')!);
    expect(docs.map((d) => d.kind)).toEqual(['NetworkPolicy', 'NetworkPolicy', 'NetworkPolicy']);
    // Ingress only: egress stays open, so the services and the daily import reach Postgres, NATS, the
    // object store and the Pushgateway wherever the operator runs them.
    for (const doc of docs) expect(doc.spec.policyTypes).toEqual(['Ingress']);
    const [deny, gateway, backends] = docs;
    expect(deny!.spec).toMatchObject({ policyTypes: ['Ingress'] });
    expect(deny!.spec.ingress).toBeUndefined();
    expect(gateway!.spec.ingress[0].ports).toEqual([{ port: 'http', protocol: 'TCP' }]);
    expect(backends!.spec.ingress[0]).toMatchObject({ ports: [{ port: 'grpc', protocol: 'TCP' }] });
    expect(templates.get('networkpolicy.yaml')).toContain(
      'range $component := list "auth" "quota-ledger" "equities-data" "filings-reader" "options-analytics"',
    );
    expect(templates.get('networkpolicy.yaml')).toContain('include "mdp.selectorLabels" $gateway');
  });

  it('an Ingress to the gateway', () => {
    const [ingress] = yamlDocs(templates.get('ingress.yaml')!);
    expect(ingress).toMatchObject({ apiVersion: 'networking.k8s.io/v1', kind: 'Ingress' });
    expect(templates.get('ingress.yaml')).toContain('$ctx := dict "root" . "component" "gateway"');
  });

  it('token affinity: off by default, through ingress-nginx in production, only the two proxies the chart configures', () => {
    expect(defaults.gateway.tokenAffinity).toEqual({ enabled: false, via: 'ingress-nginx' });
    const production = coalesce(defaults, readYaml('deploy/values-production.yaml')) as any;
    expect(production.gateway.tokenAffinity).toEqual({ enabled: true, via: 'ingress-nginx' });
    expect(production.ingress).toMatchObject({ enabled: true, className: 'nginx' });
    // gateway.affinity is the pods' scheduling affinity, handed whole to the Deployment: not this.
    expect(defaults.gateway.affinity).toEqual({});
    expect(schema.properties.gateway.properties.tokenAffinity.properties.via.enum).toEqual([
      'ingress-nginx',
      'envoy-gateway',
    ]);
    const withAffinity = (tokenAffinity: unknown, extra: Record<string, unknown> = {}) =>
      errorsOf(coalesce(defaults, { gateway: { tokenAffinity }, ...extra }));
    expect(withAffinity({ enabled: true, via: 'ingress-nginx' })).toEqual([]);
    expect(withAffinity({ enabled: true, via: 'ingress-nginx' }, { ingress: { enabled: false } })).toContain(
      '/ingress/enabled must be equal to constant',
    );
    expect(withAffinity({ enabled: true, via: 'envoy-gateway' })).toContain(
      '/httpRoute/enabled must be equal to constant',
    );
    expect(
      withAffinity(
        { enabled: true, via: 'envoy-gateway' },
        { httpRoute: { enabled: true, parentRefs: [{ name: 'eg' }], hostnames: [], annotations: {} } },
      ),
    ).toEqual([]);
    expect(withAffinity({ enabled: true, via: 'istio' }).join('\n')).toContain(
      '/gateway/tokenAffinity/via must be equal to one of the allowed values',
    );
  });

  it('token affinity through ingress-nginx: the hash annotation on the gateway Ingress, /files on an Ingress of its own', () => {
    const src = templates.get('ingress.yaml')!;
    expect(src).toContain('$hashed := and $affinity.enabled (eq $affinity.via "ingress-nginx")');
    // The annotation names the controller's variable for the header; the controller hashes its value.
    expect(src).toContain('$_ := set $annotations $hashBy "$http_authorization"');
    expect(src).toContain('$hashBy := "nginx.ingress.kubernetes.io/upstream-hash-by"');
    expect(src).toContain('{{- if and $.Values.filingsReader.files.ingress (not $hashed) }}');
    expect(src).toContain('{{- if and $hashed .Values.filingsReader.files.ingress }}');
    const [gateway, files] = yamlDocs(src);
    expect(gateway).toMatchObject({ kind: 'Ingress' });
    expect(files).toMatchObject({ kind: 'Ingress' });
    expect(files!.spec.rules[0].http.paths).toEqual([
      {
        path: '/files',
        pathType: 'Prefix',
        backend: { service: { name: expect.any(String), port: { name: 'files' } } },
      },
    ]);
  });

  it('the Gateway API entry: HTTPRoutes to the gateway and to /files, and Envoy Gateway’s hash of the Authorization header', () => {
    expect(defaults.httpRoute).toEqual({ enabled: false, parentRefs: [], hostnames: [], annotations: {} });
    expect(kindsOf('httproute.yaml')).toEqual(['HTTPRoute', 'HTTPRoute']);
    const [gatewayRoute, filesRoute] = yamlDocs(templates.get('httproute.yaml')!);
    expect(gatewayRoute).toMatchObject({ apiVersion: 'gateway.networking.k8s.io/v1' });
    expect(gatewayRoute!.spec.rules[0].matches).toEqual([{ path: { type: 'PathPrefix', value: '/' } }]);
    expect(filesRoute!.spec.rules[0].matches).toEqual([{ path: { type: 'PathPrefix', value: '/files' } }]);
    expect(templates.get('httproute.yaml')).toContain('port: {{ .Values.gateway.service.port }}');
    expect(templates.get('httproute.yaml')).toContain('port: {{ .Values.filingsReader.files.port }}');

    const src = templates.get('backendtrafficpolicy.yaml')!;
    expect(src).toContain(
      '{{- if and .Values.httpRoute.enabled $affinity.enabled (eq $affinity.via "envoy-gateway") }}',
    );
    const [policy, ...more] = yamlDocs(src);
    expect(more).toEqual([]);
    expect(policy).toMatchObject({
      apiVersion: 'gateway.envoyproxy.io/v1alpha1',
      kind: 'BackendTrafficPolicy',
      spec: {
        targetRefs: [{ group: 'gateway.networking.k8s.io', kind: 'HTTPRoute' }],
        loadBalancer: {
          type: 'ConsistentHash',
          consistentHash: { type: 'Header', header: { name: 'Authorization' } },
        },
      },
    });
    // The policy's target is the gateway's route, named as httproute.yaml names it.
    expect(src).toContain('$ctx := dict "root" . "component" "gateway"');
    expect(src).toMatch(/kind: HTTPRoute\n\s+name: \{\{ include "mdp.componentName" \$ctx \}\}/);
  });

  it('secrets in the Secret, settings in the ConfigMap, never the other way round', () => {
    const secretKeys = [
      'DATABASE_URL',
      'TOKEN_HASH_SECRET',
      'CURSOR_SIGNING_KEY',
      'LINK_SIGNING_KEY',
      'SITE_CSRF_KEY',
    ];
    expect(kindsOf('secret.yaml')).toEqual(['Secret']);
    for (const key of secretKeys) expect(templates.get('secret.yaml')).toContain(key);
    const [config] = yamlDocs(templates.get('configmap.yaml')!);
    expect(config!.kind).toBe('ConfigMap');
    for (const key of secretKeys) expect(Object.keys(config!.data)).not.toContain(key);
    // Secret values reach pods only as secretKeyRef, one key at a time.
    expect(allTemplateText).not.toMatch(/secretRef:/);
    expect(helpers.get('mdp.secretEnv')).toContain('secretKeyRef:');
    expect(templates.get('auth/deployment.yaml')).toContain('"TOKEN_HASH_SECRET"');
    expect(templates.get('equities-data/deployment.yaml')).toContain('"CURSOR_SIGNING_KEY"');
    expect(templates.get('filings-reader/deployment.yaml')).toContain('"LINK_SIGNING_KEY"');
    expect(templates.get('gateway/deployment.yaml')).toContain('"SITE_CSRF_KEY"');
    for (const file of ['gateway/deployment.yaml', 'options-analytics/deployment.yaml'])
      expect(templates.get(file)).not.toMatch(/TOKEN_HASH_SECRET|SIGNING_KEY/);
  });

  it('migrations run in a pre-upgrade Job, one service after another', () => {
    const [job] = yamlDocs(templates.get('migrations-job.yaml')!);
    expect(job).toMatchObject({
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: {
        annotations: {
          'helm.sh/hook': 'pre-upgrade',
          'helm.sh/hook-delete-policy': 'before-hook-creation,hook-succeeded',
        },
      },
      spec: { template: { spec: { restartPolicy: 'Never' } } },
    });
    expect(templates.get('migrations-job.yaml')).toContain('command: ["node", "dist/migrate.js"]');
    for (const key of ['auth', 'quotaLedger', 'equitiesData', 'filingsReader', 'optionsAnalytics'])
      expect(templates.get('migrations-job.yaml')).toContain(`.Values.${key})`);
  });

  it('every workload has probes, resources, a non-root security context and scrape annotations', () => {
    const workloads = [
      helpers.get('mdp.grpcDeployment')!,
      templates.get('gateway/deployment.yaml')!,
      templates.get('quota-ledger/statefulset.yaml')!,
    ];
    for (const src of workloads) {
      expect(src).toContain('include "mdp.probes"');
      expect(src).toMatch(/resources:\s+\{\{- toYaml \$v(alues)?\.resources/);
      expect(src).toContain('include "mdp.podSpecCommon"');
      expect(src).toContain('include "mdp.podAnnotations"');
      expect(src).toMatch(/- name: ops\s+containerPort:/);
    }
    const probes = yamlDocs(helpers.get('mdp.probes')!)[0]!;
    expect(probes.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'ops' });
    expect(probes.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'ops' });
    expect(helpers.get('mdp.podAnnotations')).toContain('prometheus.io/scrape: "true"');
    expect(helpers.get('mdp.podAnnotations')).toContain('prometheus.io/port: {{ .opsPort | int | quote }}');
    expect(defaults.podSecurityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000 });
    expect(defaults.securityContext).toMatchObject({
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
    });
  });

  it('a helm test pod and NOTES', () => {
    expect(yamlDocs(templates.get('tests/api-smoke.yaml')!)[0]).toMatchObject({
      kind: 'Pod',
      metadata: { annotations: { 'helm.sh/hook': 'test' } },
    });
    expect(templates.has('NOTES.txt')).toBe(true);
    expect(() => checkBlocks(templates.get('NOTES.txt')!)).not.toThrow();
  });

  it('Chart.yaml is a Helm 3 application chart', () => {
    expect(readYaml('charts/mdp/Chart.yaml')).toMatchObject({
      apiVersion: 'v2',
      name: 'mdp',
      type: 'application',
      version: expect.stringMatching(/^\d+\.\d+\.\d+$/),
      appVersion: expect.any(String),
    });
  });
});

describe('the daily import CronJob', () => {
  const src = templates.get('data-import/cronjob.yaml')!;
  const [cronJob] = yamlDocs(src);
  const pod = cronJob!.spec.jobTemplate.spec.template.spec;
  const container = pod.containers[0];
  const envOf = (c: { env?: { name: string }[] }) => (c.env ?? []).map((e) => e.name);

  it('is off by default; when on, a CronJob at 19:30 IST on weekdays, one run at a time', () => {
    expect(defaults.dataImport).toMatchObject({
      enabled: false,
      schedule: '30 19 * * 1-5',
      timeZone: 'Asia/Kolkata',
      concurrencyPolicy: 'Forbid',
      image: { repository: 'mdp-data-import' },
      source: { type: 'volume' },
    });
    expect(src).toMatch(/\*\/ -\}\}\n\{\{- if \.Values\.dataImport\.enabled \}\}\n/);
    expect(kindsOf('data-import/cronjob.yaml')).toEqual(['CronJob']);
    expect(cronJob).toMatchObject({ apiVersion: 'batch/v1', kind: 'CronJob' });
    for (const key of [
      'schedule',
      'timeZone',
      'suspend',
      'concurrencyPolicy',
      'startingDeadlineSeconds',
      'successfulJobsHistoryLimit',
      'failedJobsHistoryLimit',
    ])
      expect(src).toContain(`  ${key}: {{ $v.${key}`);
    for (const key of ['backoffLimit', 'activeDeadlineSeconds'])
      expect(src).toContain(`      ${key}: {{ $v.${key} }}`);
    expect(pod.restartPolicy).toBe('Never');
    // The controller suffixes each run's Job name with 11 characters; a name has at most 63.
    expect(helpers.get('mdp.dataImportName')).toContain('include "mdp.fullname" . | trunc 40');
  });

  it('runs the tool on the last session’s day folder, read-only, with the security of every workload', () => {
    expect(container).toMatchObject({
      name: 'data-import',
      command: ['node', 'dist/cli.js'],
      args: ['/data', '--day-folder'],
    });
    expect(container.volumeMounts).toContainEqual(
      expect.objectContaining({ name: 'data', mountPath: '/data', readOnly: true }),
    );
    expect(container.volumeMounts).toContainEqual({ name: 'tmp', mountPath: '/tmp' });
    const data = pod.volumes.find((v: { name: string }) => v.name === 'data');
    expect(data.persistentVolumeClaim).toMatchObject({ readOnly: true });
    expect(data.emptyDir).toBeDefined(); // the object-store branch
    expect(src).toContain('include "mdp.podSpecCommon" $ctx');
    expect(src).toMatch(/image: \{\{ include "mdp\.image" \$ctx \}\}/);
    expect(src).toMatch(/resources:\s+\{\{- toYaml \$v\.resources/);
    expect(src.match(/securityContext:\s+\{\{- toYaml \.Values\.securityContext/g)).toHaveLength(2);
    // A usage or configuration error is not retried: the tool's exit codes for them.
    expect(cronJob!.spec.jobTemplate.spec.podFailurePolicy.rules[0]).toEqual({
      action: 'FailJob',
      onExitCodes: { containerName: 'data-import', operator: 'In', values: [2, 78] },
    });
  });

  it('writes the schemas the data services read, through the DATABASE_URL they are given', () => {
    for (const [name, key] of [
      ['EQUITIES_DB_SCHEMA', 'equitiesData'],
      ['OPTIONS_DB_SCHEMA', 'optionsAnalytics'],
      ['FILINGS_DB_SCHEMA', 'filingsReader'],
    ])
      expect(src).toMatch(
        new RegExp(`- name: ${name}\\s+value: \\{\\{ \\.Values\\.${key}\\.dbSchema \\| quote \\}\\}`),
      );
    expect(src).toContain('include "mdp.secretEnv" (dict "root" . "key" "DATABASE_URL")');
    // The services read DB_SCHEMA from the same values (mdp.grpcDeployment).
    expect(helpers.get('mdp.grpcDeployment')).toMatch(/- name: DB_SCHEMA\s+value: \{\{ \$values\.dbSchema/);
  });

  it('sets only variables the import tool reads', () => {
    const cli = read('services/data-import/src/cli.ts');
    const schemaBody = cli.slice(cli.indexOf('Type.Object(', cli.indexOf('importConfig')));
    const known = new Set([
      ...[...schemaBody.slice(0, schemaBody.indexOf('});')).matchAll(/^\s*([A-Z][A-Z0-9_]+):/gm)].map(
        (m) => m[1]!,
      ),
      // Every process's logging level (@mdp/config's commonConfig).
      'LOG_LEVEL',
    ]);
    expect([...known]).toEqual(expect.arrayContaining(['DATABASE_URL', 'PUSHGATEWAY_URL', 'RISK_FREE_RATE']));
    const names = [...envOf(container), 'DATABASE_URL', 'RISK_FREE_RATE'];
    expect(names.filter((n) => !known.has(n))).toEqual([]);
    // RISK_FREE_RATE, when options-analytics is given one, so both compute implied volatility alike.
    expect(src).toContain('range .Values.optionsAnalytics.extraEnv');
    expect(src).toContain('eq .name "RISK_FREE_RATE"');
  });

  it('from an object store: an init container copies the recent day folders into an emptyDir', () => {
    const [init] = pod.initContainers;
    expect(init).toMatchObject({ name: 'fetch', command: ['/bin/sh', '-ec'] });
    expect(init.args[0]).toContain('aws s3 sync "$SOURCE_URL/" /data/');
    expect(init.volumeMounts).toContainEqual({ name: 'data', mountPath: '/data' });
    expect(envOf(init)).toEqual(
      expect.arrayContaining(['SOURCE_URL', 'DAYS', 'HOME', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY']),
    );
    expect(src).toContain('{{- if eq $src.type "objectStore" }}');
    expect(src).toMatch(/name: AWS_ACCESS_KEY_ID\s+valueFrom:\s+secretKeyRef:/);
    expect(src).toContain('image: {{ printf "%s:%s" $store.image.repository $store.image.tag | quote }}');
    expect(defaults.dataImport.source.objectStore.image.repository).toMatch(/amazon\/aws-cli$/);
  });
});

describe('the usage log and its archive', () => {
  const src = templates.get('quota-ledger/statefulset.yaml')!;
  const production = coalesce(defaults, readYaml('deploy/values-production.yaml')) as any;

  it('by default keeps 62 days, partitions a week ahead, seals 20 minutes after a day, archives to a volume', () => {
    expect(defaults.quotaLedger.usageLog).toEqual({
      retentionDays: 62,
      partitionsAheadDays: 7,
      sealGraceMinutes: 20,
      upkeepIntervalMs: 300_000,
    });
    expect(defaults.quotaLedger.usageArchive).toMatchObject({
      target: 'folder',
      folder: { persistence: { enabled: true, existingClaim: '', accessModes: ['ReadWriteOnce'] } },
      s3: { bucket: '', prefix: 'usage-events/', endpoint: '', region: 'us-east-1', forcePathStyle: false },
    });
  });

  it("the defaults are the ledger's own, and the schema's bounds no looser than its", async () => {
    const { ledgerConfig } = await import('../../services/quota-ledger/src/config.ts');
    const config = ledgerConfig as unknown as Record<
      string,
      { default: unknown; minimum?: number; maximum?: number }
    >;
    const bounds = schema.properties.quotaLedger.properties.usageLog.properties;
    for (const [name, key] of [
      ['USAGE_LOG_RETENTION_DAYS', 'retentionDays'],
      ['USAGE_PARTITIONS_AHEAD_DAYS', 'partitionsAheadDays'],
      ['USAGE_SEAL_GRACE_MINUTES', 'sealGraceMinutes'],
      ['USAGE_UPKEEP_INTERVAL_MS', 'upkeepIntervalMs'],
    ] as const) {
      expect(defaults.quotaLedger.usageLog[key], name).toBe(config[name]!.default);
      expect(bounds[key].minimum, name).toBeGreaterThanOrEqual(config[name]!.minimum!);
      expect(bounds[key].maximum, name).toBeLessThanOrEqual(config[name]!.maximum!);
    }
    const s3 = defaults.quotaLedger.usageArchive.s3;
    expect([s3.bucket, s3.prefix, s3.endpoint, s3.region, s3.forcePathStyle]).toEqual(
      ['BUCKET', 'PREFIX', 'ENDPOINT', 'REGION', 'FORCE_PATH_STYLE'].map(
        (k) => config[`USAGE_ARCHIVE_S3_${k}`]!.default,
      ),
    );
  });

  it('hands every ledger pod the same settings: the process runs the upkeep on shard 0 only', () => {
    for (const [name, key] of [
      ['USAGE_LOG_RETENTION_DAYS', 'retentionDays'],
      ['USAGE_PARTITIONS_AHEAD_DAYS', 'partitionsAheadDays'],
      ['USAGE_SEAL_GRACE_MINUTES', 'sealGraceMinutes'],
      ['USAGE_UPKEEP_INTERVAL_MS', 'upkeepIntervalMs'],
    ])
      expect(src).toMatch(
        new RegExp(`- name: ${name}\\s+value: \\{\\{ \\$v\\.usageLog\\.${key} \\| int \\| quote \\}\\}`),
      );
    // The folder is where the volume is mounted; the S3 keys come from a Secret, one key at a time.
    const dir = /- name: USAGE_ARCHIVE_DIR\s+value: (\S+)/.exec(src)?.[1];
    expect(dir).toBe('/var/lib/mdp/usage-archive');
    expect(src).toMatch(new RegExp(`- name: usage-archive\\s+mountPath: ${dir}\\n`));
    expect(src).toMatch(/name: AWS_ACCESS_KEY_ID\s+valueFrom:\s+secretKeyRef:/);
    expect(src).toMatch(/name: AWS_SECRET_ACCESS_KEY\s+valueFrom:\s+secretKeyRef:/);
  });

  it('a claim per pod from a template that no upgrade changes, unless an existing claim is shared', () => {
    // A StatefulSet's volumeClaimTemplates cannot be updated: no chart version or commonLabels in them.
    const claims = src.slice(src.indexOf('volumeClaimTemplates:'));
    expect(claims).toContain('include "mdp.selectorLabels" $ctx');
    expect(claims).not.toContain('include "mdp.labels"');
    expect(src).toContain('{{- if and (eq $archive.target "folder") (not $persistence.existingClaim) }}');
    expect(src).toContain('{{- if and (eq $archive.target "folder") $persistence.existingClaim }}');
  });

  it("both values files seal a day only after the gateway's refund and void retries and a hold", () => {
    const retryMs = /const BACKGROUND_RETRY_MS = (\d+) \* 60_000;/.exec(
      read('services/gateway/src/metering/settlement.ts'),
    );
    expect(retryMs, "the gateway's background retry of refunds and voids").not.toBeNull();
    // The template refuses anything shorter with the same sum.
    expect(src).toContain('(add 600000 (int .Values.config.holdTtlMs))');
    expect(Number(retryMs![1]) * 60_000).toBe(600_000);
    for (const values of [defaults, production])
      expect(values.quotaLedger.usageLog.sealGraceMinutes * 60_000).toBeGreaterThan(
        600_000 + values.config.holdTtlMs,
      );
  });
});

describe('what the chart hands each service', () => {
  /** `- name: X` entries of the env lists of a template (control actions ignored). */
  const envNames = (src: string) =>
    [...src.matchAll(/^\s*- name: ([A-Z][A-Z0-9_]+)\s*$/gm)]
      .map((m) => m[1]!)
      .concat([...src.matchAll(/dict "name" "([A-Z][A-Z0-9_]+)"/g)].map((m) => m[1]!));
  // Defined now for a later issue (signed price-history cursors), read by no service yet.
  const reserved = new Set(['CURSOR_SIGNING_KEY', 'POD_NAME']);
  // Read by the AWS SDK's credential chain (the ledger's S3 usage archive), not by a config schema.
  const sdk: Partial<Record<string, string[]>> = {
    'quota-ledger': ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY'],
  };
  const sources: [string, Parameters<typeof configKeys>[0]][] = [
    ['gateway/deployment.yaml', 'gateway'],
    ['auth/deployment.yaml', 'auth'],
    ['quota-ledger/statefulset.yaml', 'quota-ledger'],
    ['equities-data/deployment.yaml', 'equities-data'],
    ['filings-reader/deployment.yaml', 'filings-reader'],
    ['options-analytics/deployment.yaml', 'options-analytics'],
  ];

  it.each(sources)('%s sets only variables %s reads', (file, service) => {
    const known = configKeys(service);
    const src = templates.get(file)!;
    const names = [
      ...envNames(src),
      ...[...src.matchAll(/list ((?:"[A-Z_]+" ?)+)\)/g)].flatMap((m) =>
        [...m[1]!.matchAll(/"([A-Z_]+)"/g)].map((w) => w[1]!),
      ),
    ];
    const shared = service === 'gateway' ? [] : envNames(helpers.get('mdp.grpcDeployment')!);
    const allowed = new Set([...reserved, ...(sdk[service] ?? [])]);
    const unknown = [...names, ...shared].filter((n) => !known.has(n) && !allowed.has(n));
    expect(unknown).toEqual([]);
  });

  it('the common ConfigMap holds only variables some service reads', () => {
    const known = new Set(sources.flatMap(([, s]) => [...configKeys(s)]));
    const keys = [...templates.get('configmap.yaml')!.matchAll(/^ {2}([A-Z][A-Z0-9_]+):/gm)].map(
      (m) => m[1]!,
    );
    expect(keys.length).toBeGreaterThan(4);
    expect(keys.filter((k) => !known.has(k))).toEqual([]);
  });

  it('the ports in values.yaml are the services’ own defaults', async () => {
    const { DEFAULT_PORTS } = await import('@mdp/config');
    expect(defaults.gateway).toMatchObject({
      port: DEFAULT_PORTS.gateway.http,
      opsPort: DEFAULT_PORTS.gateway.ops,
    });
    const keyOf = {
      auth: 'auth',
      'quota-ledger': 'quotaLedger',
      'equities-data': 'equitiesData',
      'filings-reader': 'filingsReader',
      'options-analytics': 'optionsAnalytics',
    } as const;
    for (const [service, key] of Object.entries(keyOf)) {
      const ports = DEFAULT_PORTS[service as keyof typeof keyOf];
      expect(defaults[key], service).toMatchObject({ grpcPort: ports.grpc, opsPort: ports.ops });
    }
  });
});
