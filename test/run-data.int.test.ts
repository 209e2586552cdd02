import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createPool, dropSchema } from '@mdp/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_URL, deleteStream, freePort, NATS_URL, PATIENT_DEADLINES } from './stack.ts';

// `make run DATA=<folder> SHARDS=2 GATEWAYS=2`: the whole platform from its bundles, on real exchange
// files imported into schemas of that folder's own, with a banner that says so, as two ledger shards and
// two gateways. Every port, the auth and ledger schemas and the settlement stream are this test's own,
// so a developer's `make run` is never disturbed.

const REAL = new URL('../../shared/realdata/', import.meta.url).pathname;
const BHAV = 'nse_cm_bhavcopy_2025-08_to_2026-07/';
const days = readdirSync(`${REAL}${BHAV}`).sort().slice(-2);
const tag = `t${randomBytes(4).toString('hex')}`;
const dir = join(mkdtempSync(join(tmpdir(), 'mdp-run-')), `nse-${tag}`);
let run: ChildProcess | undefined;
let out = '';
let gateways: string[] = [];

const SERVICES = ['GATEWAY', 'AUTH', 'QUOTA_LEDGER', 'EQUITIES_DATA', 'FILINGS_READER', 'OPTIONS_ANALYTICS'];

beforeAll(async () => {
  mkdirSync(dir, { recursive: true });
  copyFileSync(`${REAL}nse_EQUITY_L_2026-07.csv`, join(dir, 'EQUITY_L.csv'));
  for (const day of days) copyFileSync(`${REAL}${BHAV}${day}`, join(dir, day));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    // Beside the rest of the suite the machine is at load 12: production's deadlines would make the
    // banner's first call a 503.
    ...PATIENT_DEADLINES,
    DATA: dir,
    SHARDS: '2',
    GATEWAYS: '2',
    DATABASE_URL,
    NATS_URL,
    AUTH_DB_SCHEMA: `${tag}_auth`,
    QUOTA_LEDGER_DB_SCHEMA: `${tag}_ledger`,
    USAGE_STREAM: `USAGE_${tag.toUpperCase()}`,
    USAGE_SUBJECT: `usage_${tag}`,
    READY_TIMEOUT_SECONDS: '240',
    PORT: String(await freePort()),
    FILES_PORT: String(await freePort()),
  };
  for (const s of SERVICES) {
    env[`${s}_OPS_PORT`] = String(await freePort());
    if (s !== 'GATEWAY') env[`${s}_GRPC_PORT`] = String(await freePort());
  }
  // The second shard and gateway: ports of their own too.
  for (const key of [
    'QUOTA_LEDGER_1_GRPC_PORT',
    'QUOTA_LEDGER_1_OPS_PORT',
    'GATEWAY_1_PORT',
    'GATEWAY_1_OPS_PORT',
  ])
    env[key] = String(await freePort());
  gateways = [env.PORT!, env.GATEWAY_1_PORT!].map((port) => `http://localhost:${port}`);
  run = spawn('make', ['-s', 'run'], { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  run.stdout!.on('data', (c) => {
    out += String(c);
  });
  run.stderr!.on('data', (c) => {
    out += String(c);
  });
  const until = Date.now() + 280_000;
  while (!/^ {2}first call /m.test(out)) {
    if (run.exitCode !== null || Date.now() > until)
      throw new Error(`make run did not become ready:\n${out.slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}, 300_000);

/**
 * Every process of this run, however deep under `make`: each has this test's settlement stream in its
 * environment (the services are in process groups of their own, out of reach of a signal to make's).
 */
function processesOfThisRun(): { pid: number; command: string }[] {
  const marker = `USAGE_STREAM=USAGE_${tag.toUpperCase()}\0`;
  const found: { pid: number; command: string }[] = [];
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      if (!`\0${readFileSync(`/proc/${pid}/environ`, 'latin1')}`.includes(`\0${marker}`)) continue;
      found.push({
        pid,
        command: readFileSync(`/proc/${pid}/cmdline`, 'latin1').replaceAll('\0', ' ').trim(),
      });
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return found;
}

/** A process's parent, from `/proc/<pid>/stat` (its fourth field, after the command's parentheses). */
const parentOf = (pid: number) =>
  Number(readFileSync(`/proc/${pid}/stat`, 'latin1').split(') ')[1]!.split(' ')[1]);

/** Ctrl-C, as a terminal sends it to make's process group; resolves once make has exited. */
async function interrupt(): Promise<void> {
  if (!run || run.exitCode !== null || run.signalCode !== null) return;
  const exited = new Promise((r) => run!.once('exit', r));
  process.kill(-run.pid!, 'SIGINT');
  await exited;
}

/** Polls until no process of this run is left, or the time is up; returns what is left. */
async function leftAfter(ms: number): Promise<{ pid: number; command: string }[]> {
  const until = Date.now() + ms;
  let left = processesOfThisRun();
  while (left.length > 0 && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 250));
    left = processesOfThisRun();
  }
  return left;
}

afterAll(async () => {
  await interrupt();
  // Whatever a failed run left behind goes, so a CI machine is not left serving this test's stack.
  for (const { pid } of await leftAfter(20_000)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
  const pool = createPool({ url: DATABASE_URL, schema: 'public', max: 1, applicationName: 'test' });
  const { rows } = await pool.query<{ nspname: string }>(
    `SELECT nspname FROM pg_namespace WHERE nspname LIKE $1 OR nspname LIKE $2`,
    [`%\\_real\\_nse\\_${tag}\\_%`, `${tag}\\_%`],
  );
  await pool.end();
  for (const { nspname } of rows) await dropSchema(DATABASE_URL, nspname);
  await deleteStream(NATS_URL, `USAGE_${tag.toUpperCase()}`);
  rmSync(dirname(dir), { recursive: true, force: true });
}, 60_000);

describe('make run DATA=<folder>', () => {
  it('imports the folder first, into schemas of its own', () => {
    expect(out).toContain(`real data: importing ${dir}`);
    expect(out).toContain(`import of ${dir}: 3 files recognised, 0 files not`);
    expect(out).toMatch(new RegExp(`schema=equities_real_nse_${tag}_[0-9a-f]{6}`));
  });

  it('says in its banner which data it serves and its last trading day, and a first call on it answers', () => {
    const lastDay = days.at(-1)!.replace(/^cm_bhav_|\.csv$/g, '');
    expect(out).toContain(`  data       real exchange files from ${dir}`);
    expect(out).toContain(`last trading day ${lastDay}`);
    expect(out).toMatch(/^ {2}first call 200, [A-Z0-9&-]+ \(/m);
  });

  it('runs two ledger shards and two gateways that agree on every account', async () => {
    expect(out).toContain('  topology   2 ledger shards, 2 gateways');
    expect(out).toMatch(/starting .*quota-ledger-0 \(grpc :\d+.*quota-ledger-1 \(grpc :\d+/s);
    const token = /export TOKEN=(\S+)/.exec(out)![1]!;
    const auth = { headers: { authorization: `Bearer ${token}` } };
    // The demo account's first call (in the banner) and three more through each gateway, then the usage
    // each gateway reports: whichever shard owns the account, both ask it.
    for (const base of gateways)
      for (let i = 0; i < 3; i++)
        expect((await fetch(`${base}/v1/stocks?q=bank&limit=1`, auth)).status).toBe(200);
    for (const base of gateways) {
      const usage = (await (await fetch(`${base}/v1/me/usage`, auth)).json()) as {
        data: { day: { used: number } };
      };
      expect(usage.data.day.used).toBe(7);
    }
  }, 60_000);

  it('refuses a SHARDS or GATEWAYS that is not a count, naming it, before anything starts', async () => {
    for (const [key, value, message] of [
      ['SHARDS', '0', 'SHARDS=0 is not a count from 1 to 64'],
      ['GATEWAYS', 'two', 'GATEWAYS=two is not a count from 1 to 16'],
    ] as const) {
      const refused = await new Promise<{ code: number | null; out: string }>((resolve) => {
        const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/run.ts'], {
          env: { ...process.env, [key]: value },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let text = '';
        child.stdout.on('data', (c) => {
          text += String(c);
        });
        child.stderr.on('data', (c) => {
          text += String(c);
        });
        child.on('exit', (code) => resolve({ code, out: text }));
      });
      expect(refused.code, key).toBe(1);
      expect(refused.out).toContain(`ERROR: ${message}`);
      expect(refused.out).not.toMatch(/starting auth/);
    }
  }, 60_000);

  it('refuses a DATA that is not a folder, naming it, before anything starts', async () => {
    const missing = join(dirname(dir), 'no-such-folder');
    const refused = await new Promise<{ code: number | null; out: string }>((resolve) => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/run.ts'], {
        env: { ...process.env, DATA: missing },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let text = '';
      child.stdout.on('data', (c) => {
        text += String(c);
      });
      child.stderr.on('data', (c) => {
        text += String(c);
      });
      child.on('exit', (code) => resolve({ code, out: text }));
    });
    expect(refused.code).toBe(1);
    expect(refused.out).toContain(`ERROR: DATA=${missing} is not a folder`);
    expect(refused.out).not.toMatch(/starting auth/);
  }, 60_000);

  it('stops every process it started on Ctrl-C, the services in their own process groups too, even when the Ctrl-C finds its supervisor busy', async () => {
    const processes = processesOfThisRun();
    expect(processes.length).toBeGreaterThanOrEqual(8);
    // The supervisor held still for 300 ms as Ctrl-C comes, as a loaded machine holds it: it must still
    // hear the signal and stop every service, not be killed by whatever started it before it can.
    const auth = processes.find((p) => p.command.includes('services/auth/dist/server.js'))!;
    const pid = parentOf(auth.pid);
    expect(processes.find((p) => p.pid === pid)?.command).toMatch(/scripts\/run\.ts$/);
    process.kill(pid, 'SIGSTOP');
    const resumed = new Promise((r) => setTimeout(r, 300)).then(() => {
      try {
        process.kill(pid, 'SIGCONT');
      } catch {
        // Killed while it held still: what it started is what the test looks for.
      }
    });
    await interrupt();
    await resumed;
    expect(await leftAfter(20_000), `make run's last output:\n${out.slice(-3000)}`).toEqual([]);
    expect(out).toContain('all services stopped');
  }, 60_000);
});
