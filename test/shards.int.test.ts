import { spawn } from 'node:child_process';
import { shardOf } from '@mdp/usage';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountWhere, createPlan } from './accounts.ts';
import { type Answer, call, hammer as hammerAll } from './answers.ts';
import { nodeArgsFor } from './bundles.ts';
import { metric } from './metrics.ts';
import {
  freePort,
  PATIENT_DEADLINES,
  STACK_SHUTDOWN_MS,
  type Stack,
  shardProcess,
  startStack,
} from './stack.ts';
import { usedOn } from './usage-read.ts';

// Metering on the topology operators scale to (issue 39): two ledger shards and two gateways, real
// processes on one schema and stream. Caps, the burst cap and the headers are exact through both
// gateways, and a shard killed and started again within the minute still knows the minute's admissions.

let stack: Stack;
let second: Awaited<ReturnType<Stack['startSecondGateway']>>;
const SHARDS = 2;

beforeAll(async () => {
  stack = await startStack(PATIENT_DEADLINES, { shards: SHARDS });
  second = await stack.startSecondGateway();
  await createPlan(stack, 'shards-daily', { daily: 50 });
  await createPlan(stack, 'shards-burst', { burst: 60 });
}, 300_000);
afterAll(async () => {
  await second?.stop();
  await stack?.shutdown();
}, STACK_SHUTDOWN_MS);

/** A new account on `plan` whose owner is `shard`, and a token of it. */
const accountOn = (plan: string, shard: number) =>
  accountWhere(stack, plan, (a) => shardOf(a, SHARDS) === shard);

/** `n` calls, `concurrency` at a time, alternating between the two gateways. */
const hammer = (token: string, n: number, concurrency: number) =>
  hammerAll([stack.baseUrl, second.baseUrl], token, n, concurrency);

/**
 * Calls through both gateways until both answer for the shard itself (no 503): until each gateway has its
 * stream to a restarted shard process again, the shard's accounts get 503 there, even once the process
 * is ready (on a busy machine that took longer than 200 calls). Stops trying 5 s before `minuteEnds`.
 */
async function untilBothAnswer(token: string, minuteEnds: number): Promise<Answer[]> {
  const answers: Answer[] = [];
  while (Date.now() < minuteEnds - 5_000) {
    const both = await hammer(token, 2, 2);
    answers.push(...both);
    if (both.every((a) => a.status !== 503)) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return answers;
}

describe('two ledger shards, two gateways', () => {
  it('a daily cap of 50 on each shard, hammered at 64 at once through both gateways: exactly 50 200s, 50 distinct remainders, the same usage on both', async () => {
    for (const shard of [0, 1]) {
      const { token } = await accountOn('shards-daily', shard);
      const answers = await hammer(token, 200, 64);
      const ok = answers.filter((a) => a.status === 200);
      expect(ok, `shard ${shard}`).toHaveLength(50);
      expect(new Set(ok.map((a) => a.remaining))).toEqual(new Set(Array.from({ length: 50 }, (_, i) => i)));
      for (const a of answers.filter((a) => a.status !== 200)) {
        expect(a.status).toBe(429);
        expect(a.code).toBe('quota_exhausted');
      }
      expect(await usedOn(stack.baseUrl, token)).toBe(50);
      expect(await usedOn(second.baseUrl, token)).toBe(50);
    }
  }, 120_000);

  it('a burst cap of 60 on each shard through both gateways: 60 200s, each burst remainder once', async () => {
    for (const shard of [0, 1]) {
      const { token } = await accountOn('shards-burst', shard);
      const answers = await hammer(token, 200, 64);
      const ok = answers.filter((a) => a.status === 200);
      expect(ok, `shard ${shard}`).toHaveLength(60);
      expect(new Set(ok.map((a) => a.burstRemaining))).toEqual(
        new Set(Array.from({ length: 60 }, (_, i) => i)),
      );
      for (const a of answers.filter((a) => a.status !== 200)) expect(a.code).toBe('rate_limited');
    }
  }, 120_000);

  it('the owning shard killed (SIGKILL) and started again within the minute: never more than 60 200s in it', async () => {
    const shard = 1;
    const { token } = await accountOn('shards-burst', shard);
    const start = Date.now();
    const before = await hammer(token, 40, 8);
    expect(before.filter((a) => a.status === 200)).toHaveLength(40);
    await stack.stop(shardProcess(shard), 'SIGKILL');
    await stack.start(shardProcess(shard));
    // The minute that began before the first call: every 200 that arrived within it was admitted in it.
    const minuteEnds = start + 60_000;
    const after = await untilBothAnswer(token, minuteEnds);
    expect(Date.now(), 'the shard took too long to come back for this test to mean anything').toBeLessThan(
      minuteEnds - 5_000,
    );
    after.push(...(await hammer(token, 200, 64)));
    const within = [...before, ...after].filter((a) => a.status === 200 && a.at < minuteEnds);
    expect(within.length).toBeLessThanOrEqual(60);
    // Refusals say why: the burst cap, from the window the shard rebuilt (or 503 while it was catching up).
    const refused = after.filter((a) => a.at < minuteEnds && a.status !== 200);
    expect(refused.some((a) => a.code === 'rate_limited')).toBe(true);
    for (const a of refused) expect([429, 503]).toContain(a.status);
  }, 180_000);

  it('restarted while Postgres cannot record (its charges still in JetStream): never more than 60 200s in the minute, and none lost', async () => {
    const shard = 0;
    const { token } = await accountOn('shards-burst', shard);
    const schema = stack.schemas.find((s) => s.endsWith('_quota_ledger'))!;
    // The recorder's projection writes wait on this lock: the 40 charges below stay in JetStream.
    const blocker = new pg.Client({ connectionString: stack.databaseUrl });
    await blocker.connect();
    await blocker.query('BEGIN');
    await blocker.query(`LOCK TABLE "${schema}".usage_cells IN EXCLUSIVE MODE`);
    let locked = true;
    try {
      const start = Date.now();
      const before = await hammer(token, 40, 8);
      expect(before.filter((a) => a.status === 200)).toHaveLength(40);
      await stack.stop(shardProcess(shard), 'SIGKILL');
      // It cannot catch up (nor be ready) until the lock goes: meanwhile its accounts get 503.
      const restarting = stack.start(shardProcess(shard));
      await new Promise((r) => setTimeout(r, 8_000));
      const whileBlocked = await hammer(token, 20, 4);
      await blocker.query('COMMIT');
      locked = false;
      await restarting;
      const minuteEnds = start + 60_000;
      const after = await untilBothAnswer(token, minuteEnds);
      expect(Date.now(), 'the shard took too long to come back for this test to mean anything').toBeLessThan(
        minuteEnds - 5_000,
      );
      after.push(...(await hammer(token, 200, 64)));
      const all = [...before, ...whileBlocked, ...after];
      expect(all.filter((a) => a.status === 200 && a.at < minuteEnds).length).toBeLessThanOrEqual(60);
      expect(after.some((a) => a.at < minuteEnds && a.code === 'rate_limited')).toBe(true);
      for (const a of all.filter((a) => a.status !== 200)) expect([429, 503]).toContain(a.status);
      // Every 200 is charged once the backlog is recorded, on both gateways.
      const ok = all.filter((a) => a.status === 200).length;
      for (const base of [stack.baseUrl, second.baseUrl]) {
        const until = Date.now() + 30_000;
        let seen = await usedOn(base, token);
        while (seen !== ok && Date.now() < until) {
          await new Promise((r) => setTimeout(r, 250));
          seen = await usedOn(base, token);
        }
        expect(seen).toBe(ok);
      }
    } finally {
      if (locked) await blocker.query('ROLLBACK').catch(() => {});
      await blocker.end();
    }
  }, 180_000);
});

describe('ownership is explicit and checked', () => {
  it('a second process claiming a shard index that is held is refused, naming the holder; the shard serves on', async () => {
    const { token } = await accountOn('shards-daily', 1);
    const env = {
      ...stack.envOf('quota-ledger-1'),
      SHARD_CLAIM_WAIT_MS: '2000',
      GRPC_PORT: '0',
      OPS_PORT: '0',
    };
    const child = spawn(process.execPath, [...nodeArgsFor('services/quota-ledger/src/server.ts')], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const output: string[] = [];
    child.stdout.on('data', (c) => output.push(String(c)));
    child.stderr.on('data', (c) => output.push(String(c)));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(1);
    expect(output.join('')).toMatch(/quota-ledger shard 1 is held by quota-ledger-1@[^ ]+ \(pid \d+/);
    const answers = await hammer(token, 60, 16);
    expect(answers.filter((a) => a.status === 200)).toHaveLength(50);
    expect(await usedOn(second.baseUrl, token)).toBe(50);
  }, 120_000);

  it('a shard that does not run: its accounts get 503 with Retry-After and nothing charged, the gateway counts them unavailable under its shard, and the other shard serves on', async () => {
    const [shard0] = stack.envOf('gateway').LEDGER_ADDR!.split(',');
    // Shard 1's address is a port where nothing listens: a pod that never started, as the gateway sees it.
    const lost = await stack.startSecondGateway({ LEDGER_ADDR: `${shard0},127.0.0.1:${await freePort()}` });
    try {
      const on1 = await accountOn('shards-daily', 1);
      const on0 = await accountOn('shards-daily', 0);
      for (let i = 0; i < 5; i++) {
        const a = await call(lost.baseUrl, on1.token);
        expect(a).toMatchObject({ status: 503, code: 'service_unavailable' });
        expect(Number(a.retryAfter)).toBeGreaterThan(0);
      }
      expect((await call(lost.baseUrl, on0.token)).status).toBe(200);
      const admissions = (labels: Record<string, string>) =>
        metric(lost.opsPort, 'gateway_admissions_total', labels);
      // What MdpLedgerShardUnreachable reads: shard 1 only unavailable, shard 0 deciding.
      expect(await admissions({ decision: 'unavailable', shard: '1' })).toBe(5);
      expect(await admissions({ decision: 'admitted', shard: '0' })).toBe(1);
      expect(await admissions({ decision: 'unavailable', shard: '0' })).toBe(0);
      // Shard 1's decisions are series at 0, not missing ones: the alert's `unless` side has data.
      const text = await (await fetch(`http://127.0.0.1:${lost.opsPort}/metrics`)).text();
      const atZero = text
        .split('\n')
        .filter(
          (l) => l.startsWith('gateway_admissions_total{') && l.includes('shard="1"') && l.endsWith(' 0'),
        );
      for (const decision of ['admitted', 'rate_limited', 'quota_exhausted'])
        expect(atZero.filter((l) => l.includes(`decision="${decision}"`))).toHaveLength(2);
      // Nothing was charged for the 503s, and the stack's own gateway still serves the account.
      expect(await usedOn(stack.baseUrl, on1.token)).toBe(0);
      expect((await call(stack.baseUrl, on1.token)).status).toBe(200);
    } finally {
      await lost.stop();
    }
  }, 120_000);

  it('a gateway with another shard map gets 503 with Retry-After for the accounts it sends astray, never a 200, and shows its map', async () => {
    const shardAddrs = stack.envOf('gateway').LEDGER_ADDR!.split(',');
    const astray = await stack.startSecondGateway({ LEDGER_ADDR: [...shardAddrs].reverse().join(',') });
    try {
      const { token } = await accountOn('shards-daily', 0);
      for (let i = 0; i < 5; i++) {
        const a = await call(astray.baseUrl, token);
        expect(a.status).toBe(503);
        expect(Number(a.retryAfter)).toBeGreaterThan(0);
      }
      // Nothing was charged, and the right map still serves the account.
      expect(await usedOn(stack.baseUrl, token)).toBe(0);
      expect((await call(stack.baseUrl, token)).status).toBe(200);
      expect(
        await metric(stack.procs.get('quota-ledger-1')!.opsPort, 'ledger_admissions_total', {
          decision: 'not_owner',
        }),
      ).toBe(5);
      // The two maps, as an operator's query across gateways sees them.
      const mapOf = async (opsPort: number) => {
        const text = await (await fetch(`http://127.0.0.1:${opsPort}/metrics`)).text();
        return /gateway_ledger_shard_map\{[^}]*map="(\w+)"/.exec(text)?.[1];
      };
      const maps = new Set([await mapOf(stack.procs.get('gateway')!.opsPort), await mapOf(astray.opsPort)]);
      expect(maps.size).toBe(2);
    } finally {
      await astray.stop();
    }
  }, 120_000);
});
