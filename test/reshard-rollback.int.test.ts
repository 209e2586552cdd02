import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlan, movingAccount } from './accounts.ts';
import { type Answer, call, outcomes } from './answers.ts';
import { PATIENT_DEADLINES, STACK_SHUTDOWN_MS, type Stack, startStack } from './stack.ts';
import { until } from './until.ts';
import { usedToday } from './usage-read.ts';

// A shard-count change undone half-way (`helm rollback` while 3 → 2 rolls): shard 1 has restarted with
// 2, so shard 0 (still of 3) stands in for index 0 of 2 and admits an account moving from shard 1 of 3
// to shard 0 of 2; then shard 1 goes back to 3. The stand-in's run began before shard 1's new one, so
// shard 1 waits for it (a later run never takes an account from under a live one); the stand-in ends
// once no run of 2 is left, and the account comes back to shard 1 of 3 a hold TTL later, exactly at
// its cap throughout.

let stack: Stack;
const CAP = 400;
const PRE = 100;

beforeAll(async () => {
  // Holds that never settle expire sooner than the default, so the account comes back in about 20 s.
  stack = await startStack({ ...PATIENT_DEADLINES, HOLD_TTL_MS: '8000' }, { shards: 3, shardCount: 3 });
  await createPlan(stack, 'rollback-daily', { daily: CAP });
}, 300_000);
afterAll(async () => {
  await stack?.shutdown();
}, STACK_SHUTDOWN_MS);

interface Seen extends Answer {
  /** Which gateway answered: the one on the map of 3 or the one on the map of 2. */
  via: 3 | 2;
}

describe('a shard-count change rolled back half-way', () => {
  it('gives the moving account back to its old owner, never past its daily cap', async () => {
    const token = await movingAccount(stack, 'rollback-daily', { two: 0, three: 1 });
    const callVia = async (base: string, via: 3 | 2): Promise<Seen> => ({
      ...(await call(base, token)),
      via,
    });
    for (let i = 0; i < PRE; i++) expect((await callVia(stack.baseUrl, 3)).status).toBe(200);
    const two = await stack.startSecondGateway({ LEDGER_ADDR: stack.ledgerAddr(2) });
    const answers: Seen[] = [];
    let stopped = false;
    const load = (async () => {
      while (!stopped) {
        answers.push(...(await Promise.all([callVia(stack.baseUrl, 3), callVia(two.baseUrl, 2)])));
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    try {
      // 3 → 2 begins: shard 1 restarts with 2; shard 0 stands in and admits the account (the map of 2
      // sends it there) once shard 1 has handed it over.
      await stack.stop('quota-ledger-1');
      await stack.start('quota-ledger-1', { SHARD_COUNT: '2' });
      const rolling = Date.now();
      await until(
        'a 200 from the stand-in',
        () => answers.some((a) => a.status === 200 && a.at > rolling),
        30_000,
      );
      await new Promise((r) => setTimeout(r, 2_000));
      // Rolled back: shard 1 runs 3 again.
      await stack.stop('quota-ledger-1');
      await stack.start('quota-ledger-1', { SHARD_COUNT: '3' });
      const rolledBack = Date.now();
      await until(
        'the account to reach its cap',
        async () => (await usedToday(stack.baseUrl, token)) === CAP,
        120_000,
        250,
      );
      await new Promise((r) => setTimeout(r, 2_000));
      stopped = true;
      await load;
      const ok = answers.filter((a) => a.status === 200);
      const by = outcomes(answers, (a) => `${a.status} via ${a.via}`);
      expect(ok.length + PRE, by).toBe(CAP);
      for (const a of answers) expect([200, 429, 503]).toContain(a.status);
      // Back with its old owner: the map of 3 serves it after the rollback.
      expect(ok.filter((a) => a.via === 3 && a.at > rolledBack).length, by).toBeGreaterThan(0);
      expect(await usedToday(stack.baseUrl, token)).toBe(CAP);
      expect(stack.procs.get('quota-ledger')!.output.join('')).toContain('no longer standing in');
    } finally {
      stopped = true;
      await load;
      await two.stop();
    }
  }, 300_000);
});
