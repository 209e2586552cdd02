import { shardOf } from '@mdp/usage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountWhere, createPlan } from './accounts.ts';
import { type Answer, call, longestWithout200, outcomes } from './answers.ts';
import { CHART_SHUTDOWN_GRACE_MS, handOverOf, type Stopped, stopShard } from './shard-stops.ts';
import { PATIENT_DEADLINES, STACK_SHUTDOWN_MS, type Stack, shardProcess, startStack } from './stack.ts';
import { until } from './until.ts';
import { usedToday } from './usage-read.ts';

// A rolling update of the ledger (issue 49): each shard stops gracefully (SIGTERM) and starts again, as
// the chart's StatefulSet rolls them. While a shard's process is away, the shard before it (`reliefOf`:
// 0 for shard 1, 1 for shard 0) admits its accounts, from its hand-over until it runs again, and the
// gateways send them there: the accounts are served through the restart, and end exactly at their caps.

let stack: Stack;
const CAP = 300;
const PRE = 50;

beforeAll(async () => {
  // The chart's shutdown grace, so a stopping shard has the hand-over budget it has when deployed (half
  // the grace): without a hand-over there is no relief, only the wait for the restart.
  stack = await startStack(
    { ...PATIENT_DEADLINES, HOLD_TTL_MS: '8000', SHUTDOWN_GRACE_MS: String(CHART_SHUTDOWN_GRACE_MS) },
    { shards: 3, shardCount: 3 },
  );
  await createPlan(stack, 'relief-daily', { daily: CAP });
}, 300_000);
afterAll(async () => {
  await stack?.shutdown();
}, STACK_SHUTDOWN_MS);

/** A token of a new account on the plan whose shard of 3 is `shard`. */
const accountOf = async (shard: number) =>
  (await accountWhere(stack, 'relief-daily', (a) => shardOf(a, 3) === shard)).token;

describe('a rolling restart of the ledger', () => {
  it("serves each restarting shard's accounts through its relief, exactly to their caps", async () => {
    const one = await accountOf(1);
    const zero = await accountOf(0);
    const second = await stack.startSecondGateway({ LEDGER_ADDR: stack.ledgerAddr(3) });
    // Through both gateways: each account is admitted request by request (no lease), by its shard or its
    // relief.
    const bases = [stack.baseUrl, second.baseUrl];
    const callAs = (token: string, i: number) => call(bases[i % 2]!, token);
    for (let i = 0; i < PRE; i++) {
      expect((await callAs(one, i)).status).toBe(200);
      expect((await callAs(zero, i)).status).toBe(200);
    }
    const answers = new Map<string, Answer[]>([
      [one, []],
      [zero, []],
    ]);
    // And its usage, read now and then: answered by the relief too.
    const reads: Answer[] = [];
    const readUsage = () => call(stack.baseUrl, one, '/v1/me/usage');
    let stopped = false;
    const load = (async () => {
      for (let i = 0; !stopped; i++) {
        const [a, b] = await Promise.all([callAs(one, i), callAs(zero, i)]);
        answers.get(one)!.push(a);
        answers.get(zero)!.push(b);
        if (i % 5 === 0) reads.push(await readUsage());
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    const restart = async (shard: number) => {
      const stop = await stopShard(stack, shard);
      const down = Date.now();
      await stack.start(shardProcess(shard), { SHARD_COUNT: '3' });
      return { down, up: Date.now(), stop };
    };
    // What a failure below needs to be read: the relieving process's and the stopped one's lines about
    // hand-overs, reliefs and their recording (the stopped process's output is not the stack's once it
    // has restarted).
    const registryLines = (output: readonly string[]) =>
      output
        .join('')
        .split('\n')
        .filter((line) => /reliev|relief|hand|taking over|registry|settlement consumer/.test(line))
        .slice(-12)
        .join('\n');
    const explained = (token: string, relief: number, w: { stop: Stopped }) =>
      `${outcomes(answers.get(token)!)}\n${shardProcess(relief)}:\n${registryLines(stack.procs.get(shardProcess(relief))!.output)}\nthe stopped process:\n${registryLines(w.stop.output)}`;
    try {
      await new Promise((r) => setTimeout(r, 1_000));
      const shard1 = await restart(1);
      await new Promise((r) => setTimeout(r, 2_000));
      const shard0 = await restart(0);
      await new Promise((r) => setTimeout(r, 2_000));
      // Each account is served while its own shard's process is away: by its relief.
      const servedWhileDown = (token: string, w: { down: number; up: number }) =>
        answers.get(token)!.filter((a) => a.status === 200 && a.at > w.down && a.at < w.up).length;
      const gaps = [one, zero].map((t) => longestWithout200(answers.get(t)!));
      console.log(
        `rolling restart: shard 1 away ${shard1.up - shard1.down} ms (${handOverOf(shard1.stop)}), ${servedWhileDown(one, shard1)} 200s meanwhile; shard 0 away ${shard0.up - shard0.down} ms (${handOverOf(shard0.stop)}), ${servedWhileDown(zero, shard0)} 200s meanwhile; longest without a 200: ${gaps[0]} and ${gaps[1]} ms`,
      );
      expect(servedWhileDown(one, shard1), explained(one, 0, shard1)).toBeGreaterThan(0);
      expect(servedWhileDown(zero, shard0), explained(zero, 1, shard0)).toBeGreaterThan(0);
      const readWhileDown = reads.filter((r) => r.at > shard1.down && r.at < shard1.up);
      expect(readWhileDown.filter((r) => r.status === 200).length, outcomes(readWhileDown)).toBeGreaterThan(
        0,
      );
      // And each ends exactly at its cap: every 200 charged once, none past the cap.
      for (const token of [one, zero])
        await until(
          'the account to reach its cap',
          async () => (await usedToday(stack.baseUrl, token)) === CAP,
          120_000,
          250,
        );
      await new Promise((r) => setTimeout(r, 2_000));
      stopped = true;
      await load;
      for (const token of [one, zero]) {
        const seen = answers.get(token)!;
        expect(seen.filter((a) => a.status === 200).length + PRE, outcomes(seen)).toBe(CAP);
        for (const a of seen) expect([200, 429, 503]).toContain(a.status);
        expect(await usedToday(stack.baseUrl, token)).toBe(CAP);
      }
      // Shard 1 relieved shard 0 (shard 0's process that relieved shard 1 has restarted since).
      expect(stack.procs.get('quota-ledger-1')!.output.join('')).toContain('relieving a shard');
    } finally {
      stopped = true;
      await load;
      await second.stop();
    }
  }, 300_000);
});
