/**
 * The container and laptop deployment without Docker: the Dockerfile's instructions, stages and
 * build arguments; that everything it copies exists and is not excluded from the build context; the
 * compose file against the services' real ports and configuration; Prometheus and Grafana files
 * against the compose services and each other.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { extraEntries, JOBS } from '../../deploy/docker/bundle.ts';
import {
  configKeys,
  DEFAULT_PORTS,
  dockerIgnored,
  dockerInstructions,
  filesUnder,
  ROOT,
  read,
  readYaml,
  SERVICES,
} from './lib.ts';

const dockerfile = dockerInstructions(read('deploy/docker/Dockerfile'));
const ignore = read('deploy/docker/Dockerfile.dockerignore').split('\n');
const KEYWORDS = new Set([
  'FROM',
  'RUN',
  'CMD',
  'LABEL',
  'EXPOSE',
  'ENV',
  'ADD',
  'COPY',
  'ENTRYPOINT',
  'VOLUME',
  'USER',
  'WORKDIR',
  'ARG',
  'ONBUILD',
  'STOPSIGNAL',
  'HEALTHCHECK',
  'SHELL',
]);

/** The Dockerfile's stages: name, base, and the instructions after their FROM. */
function stages() {
  const out: { name: string; from: string; body: typeof dockerfile }[] = [];
  for (const ins of dockerfile) {
    if (ins.keyword === 'FROM') {
      const m = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(ins.args)!;
      out.push({ name: m[2] ?? String(out.length), from: m[1]!, body: [] });
    } else out.at(-1)?.body.push(ins);
  }
  return out;
}

describe('the Dockerfile', () => {
  it('uses only Dockerfile instructions, with a syntax directive for BuildKit', () => {
    expect(read('deploy/docker/Dockerfile').startsWith('# syntax=docker/dockerfile:1\n')).toBe(true);
    for (const ins of dockerfile)
      expect(KEYWORDS.has(ins.keyword), `line ${ins.line}: ${ins.keyword}`).toBe(true);
    expect(dockerfile[0]).toMatchObject({ keyword: 'ARG' });
    expect(dockerfile.filter((i) => i.keyword === 'FROM').length).toBeGreaterThanOrEqual(4);
  });

  it('is multi-stage: every --from names an earlier stage, and the runtime starts from the slim base', () => {
    const all = stages();
    const seen = new Set<string>();
    for (const stage of all) {
      for (const ins of stage.body) {
        const from = /--from=(\S+)/.exec(ins.args)?.[1];
        if (from) expect(seen.has(from), `line ${ins.line}: --from=${from}`).toBe(true);
      }
      seen.add(stage.name);
    }
    const stage = (name: string) => all.find((s) => s.name === name)!;
    const app = stage('app');
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a Dockerfile variable, not a JS template
    expect(app.from).toBe('${NODE_IMAGE}');
    expect(read('deploy/docker/Dockerfile')).toMatch(/^ARG NODE_IMAGE=node:24-bookworm-slim$/m);
    // The final image copies built output only, never the source tree or the dev dependencies.
    const copies = app.body.filter((i) => i.keyword === 'COPY').map((i) => i.args);
    expect(copies).toEqual([
      '--from=prod-deps /deps/ /app/',
      '--from=build /out/ /app/',
      '--from=compile-cache /tmp/node-compile-cache/ /app/.node-compile-cache/',
    ]);
    expect(stage('service').from).toBe('app');
    expect(stage('job').from).toBe('app');
    for (const later of all.slice(all.indexOf(app) + 1))
      expect(
        later.body.some((i) => i.keyword === 'COPY' || i.keyword === 'RUN'),
        later.name,
      ).toBe(false);
    // The final stage is the one SERVICE names: each service's is the service stage, each job's the job's.
    const runtime = all.at(-1)!;
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a Dockerfile variable, not a JS template
    expect(runtime).toMatchObject({ name: 'runtime', from: 'image-${SERVICE}', body: [] });
    expect(dockerfile.findIndex((i) => i.keyword === 'ARG' && i.args === 'SERVICE')).toBeLessThan(
      dockerfile.findIndex((i) => i.keyword === 'FROM'),
    );
    const images = all.filter((s) => s.name.startsWith('image-'));
    expect(Object.fromEntries(images.map((s) => [s.name.slice('image-'.length), s.from]))).toEqual(
      Object.fromEntries([...SERVICES.map((s) => [s, 'service']), ...JOBS.map((j) => [j, 'job'])]),
    );
  });

  it('declares ARG SERVICE in every stage that uses it', () => {
    for (const stage of stages()) {
      let declared = false;
      for (const ins of stage.body) {
        if (ins.keyword === 'ARG' && /^SERVICE\b/.test(ins.args)) declared = true;
        if (/\$\{?SERVICE\b/.test(ins.args)) expect(declared, `${stage.name} line ${ins.line}`).toBe(true);
      }
    }
  });

  it('runs as a non-root numeric user, with a health check and an exec-form entry point', () => {
    const body = (name: string) => stages().find((s) => s.name === name)!.body;
    const app = body('app');
    const user = app.find((i) => i.keyword === 'USER')!;
    expect(user.args).toMatch(/^[1-9]\d*:[1-9]\d*$/);
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a Dockerfile variable, not a JS template
    expect(app.find((i) => i.keyword === 'WORKDIR')!.args).toBe('/app/services/${SERVICE}');
    const service = body('service');
    const health = service.find((i) => i.keyword === 'HEALTHCHECK')!;
    expect(health.args).toMatch(/CMD \["node", "\/app\/healthcheck\.mjs"\]$/);
    expect(service.find((i) => i.keyword === 'ENTRYPOINT')!.args).toBe('["node", "dist/server.js"]');
    // A job runs its tool and exits: nothing listens, so nothing to health-check.
    const job = body('job');
    expect(job.find((i) => i.keyword === 'HEALTHCHECK')!.args).toBe('NONE');
    expect(job.find((i) => i.keyword === 'ENTRYPOINT')!.args).toBe('["node", "dist/cli.js"]');
    expect(body('app').some((i) => i.keyword === 'ENTRYPOINT' || i.keyword === 'HEALTHCHECK')).toBe(false);
    // The bundle's place in the image is its place in the repository (scripts/lib/services.ts).
    expect(read('scripts/lib/services.ts')).toContain("join(serviceDir(name), 'dist', 'server.js')");
  });

  it('copies only files that exist and that the .dockerignore lets into the context', () => {
    const used = [
      'package.json',
      'package-lock.json',
      '.npmrc',
      'scripts/build.ts',
      'scripts/lib/services.ts',
      'deploy/docker/bundle.ts',
      'deploy/docker/migrate.ts',
      'deploy/docker/healthcheck.mjs',
      ...filesUnder('packages').filter((f) => /^packages\/[^/]+\/(package\.json|src\/)/.test(f)),
      ...SERVICES.flatMap((s) => [`services/${s}/package.json`, `services/${s}/src/server.ts`]),
      ...JOBS.flatMap((j) => [`services/${j}/package.json`, `services/${j}/src/cli.ts`]),
      ...filesUnder('services').filter((f) => /^services\/[^/]+\/migrations\/.+\.sql$/.test(f)),
    ].filter((f) => !f.endsWith('.test.ts'));
    for (const f of used) {
      expect(existsSync(join(ROOT, f)), f).toBe(true);
      expect(dockerIgnored(ignore, f), `${f} is excluded from the build context`).toBe(false);
    }
    // Every path a RUN or COPY names from the context is one of them.
    for (const ins of dockerfile.filter((i) => i.keyword === 'RUN' || i.keyword === 'COPY')) {
      for (const m of ins.args.matchAll(/(?:^|\s)((?:scripts|deploy)\/[\w./-]+)/g))
        expect(used, `line ${ins.line}`).toContain(m[1]);
    }
    for (const heavy of ['node_modules/x', 'services/gateway/dist/server.js', '.git/HEAD', '.local/x'])
      expect(dockerIgnored(ignore, heavy), heavy).toBe(true);
  });

  it("bundles a migrate entry for every service with a schema, and the service's admin tool when it has one", () => {
    for (const service of SERVICES) {
      const outputs = extraEntries(service).map(([, out]) => out);
      expect(outputs.includes('migrate.js'), service).toBe(service !== 'gateway');
      expect(outputs.includes('cli.js'), service).toBe(
        existsSync(join(ROOT, 'services', service, 'src', 'cli.ts')),
      );
    }
    // A job's image has its tool alone: the entry point.
    for (const job of JOBS)
      expect(
        extraEntries(job).map(([, out]) => out),
        job,
      ).toEqual(['cli.js']);
  });

  it('the data-import image carries the migrations its tool applies, where the bundle looks for them', () => {
    const build = dockerfile.find((i) => i.keyword === 'RUN' && i.args.includes('= data-import ]'))!;
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a Dockerfile variable, not a JS template
    expect(build.args).toContain('npx tsx deploy/docker/bundle.ts "${SERVICE}"');
    const copied = /for s in ([\w -]+); do/.exec(build.args)![1]!.trim().split(/\s+/);
    expect(build.args).toContain('cp -r "services/$s/migrations" "/out/services/$s/"');
    // The tool resolves each as new URL('../../<service>/migrations/', import.meta.url) from
    // /app/services/data-import/dist/cli.js.
    const wanted = filesUnder('services/data-import/src')
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
      .flatMap((f) =>
        [...read(f).matchAll(/new URL\('\.\.\/\.\.\/([\w-]+)\/migrations\/'/g)].map((m) => m[1]!),
      );
    expect(wanted.length).toBeGreaterThan(0);
    expect([...copied].sort()).toEqual([...new Set(wanted)].sort());
    for (const service of copied)
      expect(
        filesUnder(`services/${service}/migrations`).some((f) => f.endsWith('.sql')),
        service,
      ).toBe(true);
  });

  it("the health check knows every service's default ops port", () => {
    const src = read('deploy/docker/healthcheck.mjs');
    for (const service of SERVICES) {
      const key = /^\w+$/.test(service) ? service : `'${service}'`;
      expect(src).toContain(`${key}: ${DEFAULT_PORTS[service].ops},`);
    }
  });
});

describe('deploy/compose.yaml', () => {
  const compose = readYaml('deploy/compose.yaml');
  const svc = compose.services as Record<string, any>;
  const platform = Object.entries(svc).filter(([, s]) => s.build?.args?.SERVICE);
  const serviceOf = (s: any) => s.build.args.SERVICE as (typeof SERVICES)[number];

  it('builds every service with the one Dockerfile, and runs each at least once', () => {
    for (const [, s] of platform) {
      expect(s.build).toMatchObject({ context: '..', dockerfile: 'deploy/docker/Dockerfile' });
      expect(s.image).toBe(`mdp-${serviceOf(s)}:dev`);
      expect(s).toMatchObject({ read_only: true, cap_drop: ['ALL'] });
    }
    expect(new Set(platform.map(([, s]) => serviceOf(s)))).toEqual(new Set(SERVICES));
    expect(svc.postgres.image).toMatch(/^postgres:16/);
    expect(svc.nats.command).toContain('--jetstream');
  });

  it('gives each service only variables it reads, on its default ports', () => {
    for (const [name, s] of platform) {
      const service = serviceOf(s);
      const known = configKeys(service);
      const env = s.environment as Record<string, string>;
      const unknown = Object.keys(env).filter((k) => !known.has(k) && k !== 'CURSOR_SIGNING_KEY');
      expect(unknown, name).toEqual([]);
      const ports = DEFAULT_PORTS[service];
      expect(Number(env.OPS_PORT), name).toBe(ports.ops);
      expect(Number('http' in ports ? env.PORT : env.GRPC_PORT), name).toBe(
        'http' in ports ? ports.http : ports.grpc,
      );
      if (service !== 'gateway') {
        expect(env.DATABASE_URL).toBe(
          `postgres://${svc.postgres.environment.POSTGRES_USER}:${svc.postgres.environment.POSTGRES_PASSWORD}@postgres:5432/${svc.postgres.environment.POSTGRES_DB}`,
        );
        expect(s.depends_on).toMatchObject({ postgres: { condition: 'service_healthy' } });
      }
      if (known.has('NATS_URL')) expect(env.NATS_URL, name).toBe('nats://nats:4222');
    }
  });

  it("points the gateway at each service's compose name and port, and at every ledger shard in order", () => {
    const env = svc.gateway.environment;
    const addr = (service: keyof typeof DEFAULT_PORTS) => {
      const [name] = platform.find(([, s]) => serviceOf(s) === service)!;
      return `${name}:${(DEFAULT_PORTS[service] as { grpc: number }).grpc}`;
    };
    expect(env).toMatchObject({
      AUTH_ADDR: addr('auth'),
      EQUITIES_ADDR: addr('equities-data'),
      FILINGS_ADDR: addr('filings-reader'),
      OPTIONS_ADDR: addr('options-analytics'),
    });
    const shards = platform
      .filter(([, s]) => serviceOf(s) === 'quota-ledger')
      .map(([name, s]) => ({
        name,
        index: Number(s.environment.SHARD_INDEX),
        count: Number(s.environment.SHARD_COUNT),
      }))
      .sort((a, b) => a.index - b.index);
    expect(shards.map((s) => s.index)).toEqual(shards.map((_, i) => i));
    for (const s of shards) expect(s.count).toBe(shards.length);
    expect(env.LEDGER_ADDR).toBe(
      shards.map((s) => `${s.name}:${DEFAULT_PORTS['quota-ledger'].grpc}`).join(','),
    );
    // options-analytics follows the trading calendar equities-data serves.
    expect(svc['options-analytics'].environment.EQUITIES_ADDR).toBe(addr('equities-data'));
    // The gateway starts after everything it calls is healthy.
    for (const [name] of platform.filter(([n]) => n !== 'gateway'))
      expect(svc.gateway.depends_on[name], name).toEqual({ condition: 'service_healthy' });
  });

  it('Prometheus scrapes every platform container on its ops port, and Grafana mounts real folders', () => {
    const prom = readYaml('deploy/prometheus/prometheus.yml');
    const job = prom.scrape_configs.find((j: any) => j.job_name === 'mdp');
    const targets = job.static_configs.flatMap((c: any) => c.targets).sort();
    expect(targets).toEqual(platform.map(([name, s]) => `${name}:${s.environment.OPS_PORT}`).sort());
    for (const mount of [...svc.prometheus.volumes, ...svc.grafana.volumes]) {
      const host = mount.split(':')[0];
      expect(existsSync(join(ROOT, 'deploy', host)), mount).toBe(true);
    }
    expect(svc.grafana.environment.GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH).toBe(
      '/var/lib/grafana/dashboards/mdp/api-overview.json',
    );
  });
});

describe('Grafana', () => {
  const dashboards = filesUnder('deploy/grafana/dashboards').filter((f) => f.endsWith('.json'));
  const provisioning = readYaml('deploy/grafana/provisioning/dashboards/mdp.yaml');

  it('provisions the dashboards folder the compose file mounts, and a Prometheus data source', () => {
    const compose = readYaml('deploy/compose.yaml');
    expect(compose.services.grafana.volumes).toContain(
      `./grafana/dashboards:${provisioning.providers[0].options.path}:ro`,
    );
    expect(readYaml('deploy/grafana/provisioning/datasources/prometheus.yaml').datasources[0]).toMatchObject({
      type: 'prometheus',
      url: 'http://prometheus:9090',
    });
  });

  it('has the five dashboards of the issue', () => {
    expect(dashboards.map((f) => f.split('/').at(-1))).toEqual([
      'api-overview.json',
      'dependencies.json',
      'ledger.json',
      'quota.json',
      'saturation.json',
    ]);
  });

  it.each(dashboards)('%s is a well-formed dashboard', (file) => {
    const d = JSON.parse(read(file));
    expect(d).toMatchObject({
      uid: expect.stringMatching(/^mdp-/),
      schemaVersion: expect.any(Number),
      tags: ['mdp'],
    });
    expect(d.templating.list[0]).toMatchObject({
      name: 'datasource',
      type: 'datasource',
      query: 'prometheus',
    });
    const ids = d.panels.map((p: any) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const p of d.panels) {
      expect(p.gridPos.x + p.gridPos.w, p.title).toBeLessThanOrEqual(24);
      if (p.type === 'row') continue;
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a Grafana variable, not a JS template
      expect(p.datasource, p.title).toEqual({ type: 'prometheus', uid: '${datasource}' });
      expect(p.targets.length, p.title).toBeGreaterThan(0);
      const refIds = p.targets.map((t: any) => t.refId);
      expect(new Set(refIds).size, p.title).toBe(refIds.length);
      for (const t of p.targets) expect(t.expr, p.title).toMatch(/\S/);
      expect(p.description, p.title).toMatch(/\S/);
    }
  });

  it('the quota dashboard shows every admission-lease metric the ledger and the gateway export', () => {
    const sources = [
      ...filesUnder('services/quota-ledger/src'),
      ...filesUnder('services/gateway/src'),
    ].filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));
    const exported = new Set(
      sources.flatMap((f) => [...read(f).matchAll(/\bname: '([a-z_]*lease[a-z_]*)'/g)].map((m) => m[1]!)),
    );
    expect([...exported].sort()).toEqual(
      expect.arrayContaining([
        'gateway_leases_total',
        'ledger_lease_units_total',
        'ledger_leases_out',
        'ledger_leases_total',
      ]),
    );
    const quota = JSON.parse(read('deploy/grafana/dashboards/quota.json'));
    const exprs = quota.panels.flatMap((p: any) => (p.targets ?? []).map((t: any) => t.expr as string));
    for (const name of exported)
      expect(
        exprs.some((e: string) => new RegExp(`\\b${name}\\b`).test(e)),
        `${name} on the quota dashboard`,
      ).toBe(true);
    // The share decided under leases compares the same decisions on both sides.
    const share = quota.panels.find((p: any) => p.title === 'Share of admissions decided under leases');
    const decisions = [...share.targets[0].expr.matchAll(/decision=~"([^"]+)"/g)].map((m: any) => m[1]);
    expect(decisions).toEqual([
      'admitted|rate_limited|quota_exhausted',
      'admitted|rate_limited|quota_exhausted',
    ]);
  });
});
