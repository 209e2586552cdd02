/**
 * What the images run besides the server, without Docker: the `dist/migrate.js` bundle the chart's
 * pre-upgrade Job runs migrates a schema exactly as the service does at start-up, and the admin tool
 * bundles (`dist/cli.js`) run. The bundles are built as the Dockerfile builds them, into .local/, laid
 * out as in the image (<service>/dist beside <service>/migrations).
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createPool, dropSchema } from '@mdp/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleExtras } from '../../deploy/docker/bundle.ts';
import { DATABASE_URL } from '../stack.ts';
import { filesUnder, ROOT } from './lib.ts';

const exec = promisify(execFile);
const out = join(ROOT, '.local', `images-test-${randomBytes(4).toString('hex')}`);
const schemas: string[] = [];
const node = (script: string, args: string[], env: Record<string, string>) =>
  exec(process.execPath, [script, ...args], { env: { ...process.env, ...env } });

beforeAll(async () => {
  for (const service of ['auth', 'quota-ledger'] as const) {
    mkdirSync(join(out, service), { recursive: true });
    symlinkSync(join(ROOT, 'services', service, 'migrations'), join(out, service, 'migrations'));
    await bundleExtras(service, join(out, service, 'dist'));
  }
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
