/**
 * What the images run besides the server, without Docker: the `dist/migrate.js` bundle the chart's
 * pre-upgrade Job runs migrates a schema exactly as the service does at start-up, and the admin tool
 * bundles (`dist/cli.js`) run; so does the data-import job's entry point, as the chart's daily CronJob
 * runs it. The bundles are built as the Dockerfile builds them, into .local/, laid out as in the image
 * (<service>/dist beside <service>/migrations).
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createPool, dropSchema } from '@mdp/db';
import { formatDay, lastCompletedSession } from '@mdp/nse-calendar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleExtras } from '../../deploy/docker/bundle.ts';
import { SERVICES } from '../../scripts/lib/services.ts';
import { BUILT_IN_BRANDS } from '../../services/equities-data/src/areas/stocks/importers/brands.ts';
import { ledgerPoolBefore } from '../../services/quota-ledger/test/ledger-db.ts';
import { nodeArgsFor } from '../bundles.ts';
import { DATABASE_URL } from '../stack.ts';
import { filesUnder, metricNames, ROOT, read, readYaml } from './lib.ts';
import { startFakePushgateway } from './pushgateway.ts';

const exec = promisify(execFile);
const out = join(ROOT, '.local', `images-test-${randomBytes(4).toString('hex')}`);
const schemas: string[] = [];
const node = (script: string, args: string[], env: Record<string, string>) =>
  exec(process.execPath, [script, ...args], { env: { ...process.env, ...env } });

beforeAll(async () => {
  for (const service of ['auth', 'quota-ledger', 'equities-data'] as const) {
    mkdirSync(join(out, service), { recursive: true });
    symlinkSync(join(ROOT, 'services', service, 'migrations'), join(out, service, 'migrations'));
    await bundleExtras(service, join(out, service, 'dist'));
  }
  // The job's image: its tool, and beside it the data services' migrations it applies.
  for (const service of ['filings-reader', 'options-analytics']) {
    mkdirSync(join(out, service), { recursive: true });
    symlinkSync(join(ROOT, 'services', service, 'migrations'), join(out, service, 'migrations'));
  }
  await bundleExtras('data-import', join(out, 'data-import', 'dist'));
}, 60_000);
afterAll(async () => {
  rmSync(out, { recursive: true, force: true });
  for (const schema of schemas) await dropSchema(DATABASE_URL, schema);
});

describe('the image entry points', () => {
  it("migrate.js applies a service's migrations once, then finds the schema up to date", async () => {
    const schema = `img_${randomBytes(4).toString('hex')}_ledger`;
    schemas.push(schema);
    const env = { DATABASE_URL, DB_SCHEMA: schema, MDP_SERVICE: 'quota-ledger' };
    const first = await node(join(out, 'quota-ledger', 'dist', 'migrate.js'), [], env);
    const files = filesUnder('services/quota-ledger/migrations').length;
    expect(first.stdout).toMatch(new RegExp(`"applied":${files},"msg":"schema is up to date"`));
    const again = await node(join(out, 'quota-ledger', 'dist', 'migrate.js'), [], env);
    expect(again.stdout).toMatch(/"applied":0,"msg":"schema is up to date"/);
    const pool = createPool({ url: DATABASE_URL, schema, max: 1, applicationName: 'images-test' });
    try {
      const { rows } = await pool.query('SELECT count(*)::int AS n FROM pgmigrations');
      expect(rows[0].n).toBe(files);
    } finally {
      await pool.end();
    }
  });

  it('migrate.js stops an upgrade a running ledger could not take, naming that ledger and what to do', async () => {
    // A schema as 0015's release left it, with a ledger of a release before 0015 still running (a
    // refresh of that release stamps no code level): migration 0016 must not go ahead under it.
    const schema = `img_${randomBytes(4).toString('hex')}_older`;
    schemas.push(schema);
    const before = await ledgerPoolBefore(schema, '0016', 'images-test');
    try {
      await before.query(
        `INSERT INTO ledger_shard_runs (shard_count, shard, holder, active_since, last_seen)
         VALUES (2, 1, 'quota-ledger-1@old', now(), now())`,
      );
    } finally {
      await before.end();
    }
    const env = { DATABASE_URL, DB_SCHEMA: schema, MDP_SERVICE: 'quota-ledger' };
    const err = await node(join(out, 'quota-ledger', 'dist', 'migrate.js'), [], env).catch((e) => e);
    expect(err.code).toBe(1);
    expect(err.stdout).toMatch(/"msg":"migrations failed"/);
    expect(err.stdout).toContain(
      "migration 0016 needs every ledger on migration 0015's release or later; still running: shard 1 of 2 (quota-ledger-1@old, a release before 0015)",
    );
    expect(err.stdout).toContain('Upgrade to the release of migration 0015 first');
  });

  it('migrate.js refuses to run without a schema, with the configuration exit code', async () => {
    const err = await node(join(out, 'auth', 'dist', 'migrate.js'), [], {
      DATABASE_URL,
      DB_SCHEMA: '',
    }).catch((e) => e);
    expect(err.code).toBe(78);
    expect(err.stderr).toMatch(/invalid configuration/);
  });

  it("the auth admin tool's bundle runs against its schema (what `kubectl exec … node dist/cli.js` runs)", async () => {
    const schema = `img_${randomBytes(4).toString('hex')}_auth`;
    schemas.push(schema);
    const { stdout } = await node(join(out, 'auth', 'dist', 'cli.js'), ['plan', 'list'], {
      DATABASE_URL,
      DB_SCHEMA: schema,
    });
    expect(stdout).toMatch(/^free\s+50\b/m);
  });

  it("equities-data's admin tool bundle carries the built-in brand list (a data file the bundle inlines)", async () => {
    const schema = `img_${randomBytes(4).toString('hex')}_eq`;
    schemas.push(schema);
    const { stdout } = await node(join(out, 'equities-data', 'dist', 'cli.js'), ['import', 'brands'], {
      DATABASE_URL,
      DB_SCHEMA: schema,
    });
    const brands = BUILT_IN_BRANDS.reduce((n, o) => n + o.brands.length, 0);
    expect(stdout).toMatch(new RegExp(`^brands: read ${brands},`, 'm'));
  });

  it('the health check script exits 0 on a 200 from /healthz and 1 otherwise', async () => {
    const server = createServer((req, res) => res.writeHead(req.url === '/healthz' ? 200 : 404).end());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    const script = join(ROOT, 'deploy', 'docker', 'healthcheck.mjs');
    try {
      await expect(node(script, [], { OPS_PORT: String(port) })).resolves.toBeDefined();
      await new Promise<void>((r) => server.close(() => r()));
      const down = await node(script, [], { OPS_PORT: String(port) }).catch((e) => e);
      expect(down.code).toBe(1);
      const unknown = await node(script, [], { OPS_PORT: '', MDP_SERVICE: 'nothing' }).catch((e) => e);
      expect(unknown.code).toBe(1);
    } finally {
      server.close();
    }
  });
});

describe('the compile cache a service image is built with (Dockerfile, stage compile-cache)', () => {
  const warm = /NODE_COMPILE_CACHE=(\S+) LOG_LEVEL=(\S+) node dist\/server\.js/.exec(
    read('deploy/docker/Dockerfile'),
  );

  it.each(SERVICES)(
    '%s: the refused start writes it, and the next start reads its bundle from it',
    async (service) => {
      expect(warm, 'the Dockerfile warms the cache with a refused start').not.toBeNull();
      const cache = join(out, `compile-cache-${service}`);
      const start = (env: Record<string, string>) =>
        exec(process.execPath, nodeArgsFor(`services/${service}/src/server.ts`), {
          cwd: ROOT,
          env: { ...process.env, NODE_COMPILE_CACHE: cache, LOG_LEVEL: warm![2]!, ...env },
        }).then(
          () => ({ code: 0, stderr: '' }),
          (err: { code: number; stderr: string }) => err,
        );
      // Exit 78 before anything is connected to: the build has no database, NATS or upstreams.
      expect((await start({})).code).toBe(78);
      const entries = readdirSync(cache, { recursive: true });
      expect(entries.length).toBeGreaterThan(100);
      const again = await start({ NODE_DEBUG_NATIVE: 'COMPILE_CACHE' });
      expect(again.code).toBe(78);
      expect(again.stderr).toMatch(/V8 code cache for ESM \S+server\.js was accepted/);
    },
    30_000,
  );
});

describe("the data-import job's entry point, as the chart's CronJob runs it", () => {
  const cli = () => join(out, 'data-import', 'dist', 'cli.js');
  const REALDATA = join(ROOT, '..', 'shared', 'realdata');

  it('exits 2 on a usage error and 78 on a bad configuration (the CronJob does not retry those)', async () => {
    const usage = await node(cli(), [], { DATABASE_URL }).catch((e) => e);
    expect(usage.code).toBe(2);
    const config = await node(cli(), ['/data', '--day-folder'], {
      DATABASE_URL,
      EQUITIES_DB_SCHEMA: 'Not-A-Schema',
    }).catch((e) => e);
    expect(config.code).toBe(78);
    expect(config.stderr).toMatch(/invalid configuration/);
  });

  it("exits 1, saying so, while the last session's day folder is not there", async () => {
    const data = join(out, 'data-empty');
    mkdirSync(data, { recursive: true });
    const err = await node(cli(), [data, '--day-folder'], { DATABASE_URL }).catch((e) => e);
    expect(err.code).toBe(1);
    expect(err.stderr).toContain(
      `${join(data, formatDay(lastCompletedSession(Date.now())))} is not a folder`,
    );
  });

  it('imports the day folder into the three schemas, applying their migrations from beside it, and pushes what the alerts read', async () => {
    const tag = `img_${randomBytes(4).toString('hex')}`;
    const schema = { equities: `${tag}_eq`, options: `${tag}_op`, filings: `${tag}_fi` };
    schemas.push(...Object.values(schema));
    // /data/<YYYY-MM-DD>/ of the last completed session, holding one real NSE bhavcopy.
    const bhavcopies = join(REALDATA, 'nse_cm_bhavcopy_2025-08_to_2026-07');
    const day = join(out, 'data', formatDay(lastCompletedSession(Date.now())));
    mkdirSync(day, { recursive: true });
    const file = readdirSync(bhavcopies)
      .filter((f) => f.endsWith('.csv'))
      .sort()
      .at(-1)!;
    copyFileSync(join(bhavcopies, file), join(day, file));
    const pushgateway = await startFakePushgateway();
    try {
      const { stdout } = await node(cli(), [join(out, 'data'), '--day-folder'], {
        DATABASE_URL,
        EQUITIES_DB_SCHEMA: schema.equities,
        OPTIONS_DB_SCHEMA: schema.options,
        FILINGS_DB_SCHEMA: schema.filings,
        PUSHGATEWAY_URL: pushgateway.url,
      });
      expect(stdout).toContain(
        `import of ${join(out, 'data')} (day folders ${formatDay(lastCompletedSession(Date.now()))}):`,
      );
      for (const [service, name] of [
        ['equities-data', schema.equities],
        ['options-analytics', schema.options],
        ['filings-reader', schema.filings],
      ] as const) {
        const pool = createPool({ url: DATABASE_URL, schema: name, max: 1, applicationName: 'images-test' });
        try {
          const { rows } = await pool.query('SELECT count(*)::int AS n FROM pgmigrations');
          expect(rows[0].n, service).toBe(filesUnder(`services/${service}/migrations`).length);
        } finally {
          await pool.end();
        }
      }
      // One pushAdd (POST: a failed run keeps the last success time) under the job the rules expect.
      expect(pushgateway.pushes.map((p) => [p.method, p.job])).toEqual([['POST', 'mdp-data-import']]);
      const pushed = pushgateway.pushes[0]!.body;
      const alerted = readYaml('deploy/prometheus/rules/mdp.yaml')
        .groups.flatMap((g: any) => g.rules.map((r: any) => r.expr as string))
        .flatMap(metricNames)
        .filter((name: string) => name.startsWith('mdp_data_import_'));
      expect(alerted.length).toBeGreaterThanOrEqual(3);
      for (const name of alerted) expect(pushed).toMatch(new RegExp(`^${name} `, 'm'));
      expect(pushed).toMatch(/^mdp_data_import_rows\{kind="bhavcopy",outcome="(loaded|rejected)"\} \d+$/m);
    } finally {
      await pushgateway.close();
    }
  }, 60_000);
});
