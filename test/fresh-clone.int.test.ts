import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createPool, dropSchema } from '@mdp/db';
import { DEFAULT_EXAMPLES } from '@mdp/market';
import { afterAll, describe, expect, it } from 'vitest';
import { DATABASE_URL, deleteStream, freePort, NATS_URL } from './stack.ts';

// A newcomer's first minutes, timed: the repository's HEAD cloned into an empty folder (with shared/
// beside it, as CI lays it), `make run` there (npm ci, build, the three default datasets loaded into
// empty schemas, every service), then one metered call with the banner's token. The figures are
// printed, not asserted: this machine is shared and its load varies (the README keeps the figure).
// Every port, schema and the settlement stream are this test's own, so neither other tests nor a
// developer's `make run` are disturbed, and the whole process group is stopped at the end.

const exec = promisify(execFile);
const ROOT = new URL('..', import.meta.url).pathname;
const tag = `t${randomBytes(4).toString('hex')}`;
const parent = mkdtempSync(join(tmpdir(), 'mdp-fresh-'));
const clone = join(parent, 'main');
const SERVICES = ['GATEWAY', 'AUTH', 'QUOTA_LEDGER', 'EQUITIES_DATA', 'FILINGS_READER', 'OPTIONS_ANALYTICS'];
/** Generous: npm ci alone takes minutes when the machine's two cores are busy with other tests. */
const BANNER_TIMEOUT_MS = 1_500_000;

let run: ChildProcess | undefined;
let out = '';

afterAll(async () => {
  if (run && run.exitCode === null) {
    const exited = new Promise((r) => run!.once('exit', r));
    process.kill(-run.pid!, 'SIGINT');
    const late = setTimeout(() => process.kill(-run!.pid!, 'SIGKILL'), 30_000);
    await exited;
    clearTimeout(late);
  }
  // Anything of the group still alive (a data tool mid-load when the test failed) goes too.
  if (run?.pid) {
    try {
      process.kill(-run.pid, 'SIGKILL');
    } catch {
      // the group is gone
    }
  }
  const pool = createPool({ url: DATABASE_URL, schema: 'public', max: 1, applicationName: 'test' });
  const { rows } = await pool.query<{ nspname: string }>(
    'SELECT nspname FROM pg_namespace WHERE nspname LIKE $1',
    [`${tag}\\_%`],
  );
  await pool.end();
  for (const { nspname } of rows) await dropSchema(DATABASE_URL, nspname);
  await deleteStream(NATS_URL, `USAGE_${tag.toUpperCase()}`);
  // A clone's node_modules is about 100,000 files: slow to delete on a busy disk.
  rmSync(parent, { recursive: true, force: true });
}, 600_000);

describe('a fresh clone', () => {
  it(
    'answers its first metered call after `make run`, and says how long each part took',
    async () => {
      const started = Date.now();
      const head = (await exec('git', ['rev-parse', 'HEAD'], { cwd: ROOT })).stdout.trim();
      await exec('git', ['clone', '--quiet', '--no-checkout', ROOT, clone]);
      await exec('git', ['checkout', '--quiet', head], { cwd: clone });
      symlinkSync(join(ROOT, '..', 'shared'), join(parent, 'shared'));
      const cloned = Date.now();

      const env: NodeJS.ProcessEnv = {
        ...process.env,
        DATABASE_URL,
        NATS_URL,
        USAGE_STREAM: `USAGE_${tag.toUpperCase()}`,
        USAGE_SUBJECT: `usage_${tag}`,
        READY_TIMEOUT_SECONDS: '600',
        PORT: String(await freePort()),
        FILES_PORT: String(await freePort()),
      };
      for (const s of SERVICES) {
        env[`${s}_OPS_PORT`] = String(await freePort());
        if (s !== 'GATEWAY') {
          env[`${s}_GRPC_PORT`] = String(await freePort());
          // Empty schemas: the datasets are generated and loaded as on a machine that never ran it.
          env[`${s}_DB_SCHEMA`] = `${tag}_${s.toLowerCase()}`;
        }
      }
      // The clone's own make and npm, not the ones this test was started by.
      for (const key of Object.keys(env))
        if (/^(MAKE|MFLAGS|npm_|INIT_CWD|NODE_OPTIONS|VITEST)/i.test(key)) delete env[key];

      run = spawn('make', ['-s', 'run'], {
        cwd: clone,
        env,
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      for (const stream of [run.stdout!, run.stderr!])
        stream.on('data', (c) => {
          out += String(c);
        });
      const until = Date.now() + BANNER_TIMEOUT_MS;
      while (!/^ {2}stop {7}Ctrl-C/m.test(out)) {
        if (run.exitCode !== null || Date.now() > until)
          throw new Error(`make run did not print its banner:\n${out.slice(-4000)}`);
        await new Promise((r) => setTimeout(r, 250));
      }
      const banner = Date.now();

      const token = /export TOKEN=(\S+)/.exec(out)?.[1];
      expect(token).toBeDefined();
      const res = await fetch(`http://127.0.0.1:${env.PORT}/v1/stocks/${DEFAULT_EXAMPLES.stock}/quote`, {
        headers: { authorization: `Bearer ${token}` },
      });
      const body = (await res.json()) as { data?: { symbol?: string } };
      const answered = Date.now();
      const took = out.slice(out.indexOf('  took '), out.indexOf('  stop '));
      const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
      console.log(
        [
          `fresh clone to first 200: ${s(answered - started)} (load average ${(await exec('cat', ['/proc/loadavg'])).stdout.split(' ').slice(0, 3).join(' ')})`,
          `  git clone ${s(cloned - started)}, make run to its banner ${s(banner - cloned)}, the quote ${s(answered - banner)}`,
          ...took.trimEnd().split('\n'),
        ].join('\n'),
      );
      expect(res.status).toBe(200);
      expect(body.data?.symbol).toBe(DEFAULT_EXAMPLES.stock);
      // The banner names each part with its time: install, build, each dataset, the services, the total.
      for (const part of [
        'install',
        'build',
        'equities',
        'options',
        'filings',
        'data, at once',
        'services ready',
      ])
        expect(took).toMatch(new RegExp(`${part} \\d+\\.\\d s`));
    },
    BANNER_TIMEOUT_MS + 120_000,
  );
});
