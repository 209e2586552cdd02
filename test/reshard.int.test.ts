import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlan, movingAccount } from './accounts.ts';
import {
  type Answer,
  call,
  longestRefusals,
  longestStretch,
  longestWithout200,
  outcomes,
  type Refusals,
  tally,
} from './answers.ts';
import { CHART_SHUTDOWN_GRACE_MS, handOverOf, type Stopped, stopShard, takeOverOf } from './shard-stops.ts';
import { PATIENT_DEADLINES, STACK_SHUTDOWN_MS, type Stack, shardProcess, startStack } from './stack.ts';
import { until } from './until.ts';
import { usedToday } from './usage-read.ts';

// Changing the shard count online (issue 39), as the chart's rollout does it, under load: 2 → 3 (a new
// shard starts, a gateway on the new map serves beside one on the old map, the old shards restart with
// the new count), then 3 → 2 (the old shards restart with the old count, the third stops for good).
// An account that moves between shards never gets more than its daily cap: while its old owner may
// still admit it, or still has charges of it to record, the new owner answers 503 with Retry-After.

let stack: Stack;
const CAP = 150;
/** Issue 49's goal for a graceful rollout: a moving account's 503s last at most this long. */
const MOVE_GOAL_MS = 2_000;
/** Holds that never settle expire sooner than the default, so a move without a hand-over settles in about 10 s. */
const HOLD_TTL_MS = 8_000;

beforeAll(async () => {
  // A stop has the chart's grace, half of it to hand over.
  stack = await startStack(
    {
      ...PATIENT_DEADLINES,
      HOLD_TTL_MS: String(HOLD_TTL_MS),
      SHUTDOWN_GRACE_MS: String(CHART_SHUTDOWN_GRACE_MS),
    },
    { shards: 3, shardCount: 2 },
  );
  await createPlan(stack, 'reshard-burst', { burst: 60 });
  await createPlan(stack, 'reshard-steady', {});
  await createPlan(stack, 'reshard-daily', { daily: CAP });
}, 300_000);
afterAll(async () => {
  await stack?.shutdown();
}, STACK_SHUTDOWN_MS);

/** Calls through each of `gateways()` (re-read each round), `perGateway` at once, until `stop()`. */
function load(token: string, gateways: () => string[], perGateway: number) {
  const answers: Answer[] = [];
  let stopped = false;
  const workers = (async () => {
    while (!stopped) {
      const bases = gateways();
      await Promise.all(
        bases.flatMap((base) =>
          Array.from({ length: perGateway }, async () => answers.push(await call(base, token))),
        ),
      );
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  return {
    answers,
    stop: async () => {
      stopped = true;
      await workers;
    },
  };
}

/**
 * How long a client calling through every gateway was refused while the account moved: its longest run
 * of 503s (`longestRefusals`), the longest stretch of the load between 200s (a slow answer lengthens it),
 * and from the end of the rollout (every shard restarted and ready) to the first 200.
 */
interface Gap {
  refused: Refusals;
  longest: number;
  afterRollout: number;
}

function gapOf(answers: Answer[], rolloutEnded: number): Gap {
  // No 200 since the rollout is an unbounded wait, never the time the load happened to stop at.
  const first = answers
    .filter((a) => a.status === 200 && a.at >= rolloutEnded)
    .reduce((m, a) => Math.min(m, a.at), Number.POSITIVE_INFINITY);
  return {
    refused: longestRefusals(answers),
    longest: longestWithout200(answers),
    afterRollout: Math.max(0, first - rolloutEnded),
  };
}

/** A gap as the log says it, beside each stop's hand-over and the restart's times. */
function told(gap: Gap, answers: Answer[], rolled: Rolled): string {
  const r = gap.refused;
  const { shard1, shard0 } = byRestart(answers, rolled);
  const run =
    r.answers.length === 0
      ? 'none'
      : `${outcomes(r.answers)} from ${r.from - rolled.to} ms after shard 0's stop`;
  return (
    `its 503s lasted at most ${r.ms} ms (goal: ${MOVE_GOAL_MS / 1000} s; ${run}), ` +
    `it went at most ${gap.longest} ms without a 200 (${shard1} ms over shard 1's restart, ${shard0} ms over shard 0's) ` +
    `and got its first 200 ${gap.afterRollout} ms after the rollout ended; ${restartTimes(rolled)}; ` +
    `the longest stretch ${describeStretch(answers, rolled.to, "shard 0's stop")}`
  );
}

/**
 * Until the load has had a 200 since `from`, for at most `ms`, and a second more: the client goes on as
 * the rollout ends, however long a busy machine takes. Running out is not thrown here: `without200`
 * then reads the wait as unbounded, and the check that follows fails with the load's tally.
 */
async function firstOkSince(answers: Answer[], from: number, ms = 20_000): Promise<void> {
  await until(
    'a 200 since the rollout',
    () => answers.some((a) => a.status === 200 && a.at >= from),
    ms,
  ).catch(() => {});
  await new Promise((r) => setTimeout(r, 1_000));
}

/**
 * The longest stretch without a 200, told for a person reading a slow run: when it began against `mark`
 * (a shard's stop), what was answered in it and the slowest answer's time (fast 503s mean no admitter;
 * few and slow ones, a gateway slow to answer).
 */
function describeStretch(answers: Answer[], mark: number, markName: string): string {
  const s = longestStretch(answers);
  const inside = answers.filter((a) => a.at > s.from && a.at < s.to);
  // The 200 that ended it counts too: it may have been sent long before.
  const slowest = answers.filter((a) => a.at > s.from && a.at <= s.to).reduce((m, a) => Math.max(m, a.ms), 0);
  return `${s.ms} ms from ${s.from - mark} ms after ${markName}, answered in it: ${outcomes(inside)}, the slowest answer (or the 200 ending it) in ${slowest} ms`;
}

/**
 * The goal of a graceful rollout, checked: no run of 503s (over either restart, or after the rollout)
 * longer than `MOVE_GOAL_MS`, and a 200 after the rollout from a hand-over, not a hold TTL (`HOLD_TTL_MS`)
 * after the old owner's last refresh. The failure says the load's tally and how each stop went.
 */
function expectMovedInTime(gap: Gap, answers: Answer[], rolled: Rolled) {
  const why = `${outcomes(answers)}; ${told(gap, answers, rolled)}`;
  expect(gap.refused.ms, why).toBeLessThanOrEqual(MOVE_GOAL_MS);
  expect(gap.afterRollout, why).toBeLessThan(HOLD_TTL_MS);
}

/** The longest stretch without a 200 over shard 1's restart (up to `from`) and over shard 0's (from `to`). */
function byRestart(answers: Answer[], rolled: { from: number; to: number }) {
  return {
    shard1: longestWithout200(answers.filter((a) => a.at <= rolled.from)),
    shard0: longestWithout200(answers.filter((a) => a.at >= rolled.to)),
  };
}

/**
 * Shard 0's restart, told from its stop: its old process's hand-over, each shard process's first log of
 * taking accounts over after it, and the new process ready; and shard 1's hand-over before it.
 */
function restartTimes(r: Rolled): string {
  const taken = [0, 1, 2].flatMap((shard) => {
    const taking = takeOverOf(stack.procs.get(shardProcess(shard))?.output ?? [], r.to);
    return taking === null ? [] : [`shard ${shard} took over at ${taking}`];
  });
  return `shard 0, from its stop: ${[handOverOf(r.stop0), ...taken].join(', ')}, ready again at ${r.ready - r.to} ms (shard 1 before it: ${handOverOf(r.stop1)})`;
}

/** The chart's `quotaLedger.minReadySeconds`: how long a restarted shard is ready before the next restarts. */
const MIN_READY_MS = 5_000;

interface Rolled {
  from: number;
  to: number;
  ready: number;
  stop1: Stopped;
  stop0: Stopped;
}

/**
 * Restarts shards 1 and 0 with `count`, as the chart's StatefulSet rolls them: highest first, each
 * stopped gracefully and ready for `MIN_READY_MS` before the next. Returns the stretch when shard 1 ran
 * the new count and shard 0 still the old one, when shard 0 was ready again, and how each stop went.
 */
async function rollShards(count: string): Promise<Rolled> {
  const stop1 = await stopShard(stack, 1);
  await stack.start(shardProcess(1), { SHARD_COUNT: count });
  const from = Date.now();
  await new Promise((r) => setTimeout(r, MIN_READY_MS));
  const to = Date.now();
  const stop0 = await stopShard(stack, 0);
  await stack.start(shardProcess(0), { SHARD_COUNT: count });
  return { from, to, ready: Date.now(), stop1, stop0 };
}

describe('changing the shard count under load', () => {
  it('2 → 3 → 2: accounts that move never get past their daily cap, nor their burst cap within the minute of the move', async () => {
    const oldMap = stack.baseUrl;
    // Owned by shard 0 of 2 and shard 2 of 3: it moves to the new shard, and back.
    const token = await movingAccount(stack, 'reshard-daily', { two: 0, three: 2 });
    for (let i = 0; i < 100; i++) expect((await call(oldMap, token)).status).toBe(200);

    // 2 → 3. Shard 2 starts; a gateway on the new map serves beside the old one; both carry load.
    await stack.start(shardProcess(2), { SHARD_COUNT: '3' });
    const newGateway = await stack.startSecondGateway({ LEDGER_ADDR: stack.ledgerAddr(3) });
    const gateways = [oldMap, newGateway.baseUrl];
    // And an account on a burst cap of 60 that moves too, its minute filled just before: the minute's
    // admissions go with it, so its new owner admits nothing more within that minute.
    const burstToken = await movingAccount(stack, 'reshard-burst', { two: 0, three: 2 });
    const minuteStarts = Date.now();
    for (let i = 0; i < 60; i++) expect((await call(oldMap, burstToken)).status).toBe(200);
    // An account with room to spare, moving when shard 0 hands over: how long it goes without a 200.
    const steadyGrow = load(
      await movingAccount(stack, 'reshard-steady', { two: 0, three: 2 }),
      () => gateways,
      1,
    );
    const grow = load(token, () => gateways, 2);
    const burst = load(burstToken, () => gateways, 1);
    // The old shards restart with the new count, one after the other, as the chart's rolling update
    // does: each stops gracefully (SIGTERM) and hands its accounts over.
    const grown1 = await rollShards('3');
    const rolledOut = Date.now();
    await firstOkSince(steadyGrow.answers, rolledOut);
    await steadyGrow.stop();
    const growGap = gapOf(steadyGrow.answers, rolledOut);
    console.log(`2 → 3, graceful, the moving account: ${told(growGap, steadyGrow.answers, grown1)}`);
    expectMovedInTime(growGap, steadyGrow.answers, grown1);
    // Then only the new owner admits it, once its old owner's charges are all recorded: the cap holds.
    await until(
      'the account to reach its cap on the new map',
      async () => (await usedToday(newGateway.baseUrl, token)) === CAP,
      90_000,
      250,
    );
    await new Promise((r) => setTimeout(r, 2_000));
    await grow.stop();
    await burst.stop();
    const burstInMinute = burst.answers.filter((a) => a.at < minuteStarts + 60_000);
    expect(
      burstInMinute.filter((a) => a.status === 200),
      outcomes(burstInMinute),
    ).toEqual([]);
    for (const a of burstInMinute) expect([429, 503]).toContain(a.status);
    const grown = tally(grow.answers);
    expect(grown.ok + 100, JSON.stringify(grown.by)).toBe(CAP);
    for (const a of grow.answers) {
      expect([200, 429, 503]).toContain(a.status);
      if (a.status === 503) expect(Number(a.retryAfter)).toBeGreaterThan(0);
    }
    expect(grow.answers.filter((a) => a.status === 429).every((a) => a.code === 'quota_exhausted')).toBe(
      true,
    );
    expect(await usedToday(newGateway.baseUrl, token)).toBe(CAP);

    // 3 → 2, with a second account that has room left: the shards come back to 2, and shard 2 is killed
    // (SIGKILL: no hand-over; its subject is then recorded by shard 0, which its accounts move to a hold
    // TTL later). The account moves from it, the steady one from shard 1, which hands over.
    const back = await movingAccount(stack, 'reshard-daily', { two: 0, three: 2 });
    for (let i = 0; i < 100; i++) expect((await call(newGateway.baseUrl, back)).status).toBe(200);
    const shrink = load(back, () => gateways, 2);
    const steadyShrink = load(
      await movingAccount(stack, 'reshard-steady', { two: 0, three: 1 }),
      () => gateways,
      1,
    );
    const between = await rollShards('2');
    const rolledBack = Date.now();
    await firstOkSince(steadyShrink.answers, rolledBack);
    await steadyShrink.stop();
    const shrinkGap = gapOf(steadyShrink.answers, rolledBack);
    // The longest is about a restart of shard 0: its old owner's stop until shard 0 (of 3) stands in for
    // it, and shard 0's own restart as 0 of 2.
    console.log(`3 → 2, graceful, the moving account: ${told(shrinkGap, steadyShrink.answers, between)}`);
    expectMovedInTime(shrinkGap, steadyShrink.answers, between);
    // Its new owner, shard 0 of 2, restarts last; meanwhile shard 0, still of 3, stands in for it and
    // admits it once shard 1 has handed it over.
    expect(
      steadyShrink.answers.filter((a) => a.status === 200 && a.at > between.from && a.at < between.to).length,
    ).toBeGreaterThan(0);
    await stack.stop(shardProcess(2), 'SIGKILL');
    await until(
      'the second account to reach its cap on the old map again',
      async () => (await usedToday(oldMap, back)) === CAP,
      90_000,
      250,
    );
    await new Promise((r) => setTimeout(r, 2_000));
    await shrink.stop();
    const shrunk = tally(shrink.answers);
    expect(shrunk.ok + 100, JSON.stringify(shrunk.by)).toBe(CAP);
    for (const a of shrink.answers) expect([200, 429, 503]).toContain(a.status);
    expect(await usedToday(oldMap, back)).toBe(CAP);
    // And the first account, moved back: still exactly at its cap.
    expect(await usedToday(oldMap, token)).toBe(CAP);
    await newGateway.stop();
    // 100 to 300 s beside the rest of the suite on two cores.
  }, 600_000);
});
