import { shardOf } from '@mdp/usage';
import { describe, expect, it } from 'vitest';
import { nextStandIn, type RegistryView, ShardMap, type ShardRun, type StandInState } from './shard-map.ts';

const settings = { liveMs: 5_000, holdTtlMs: 30_000, skewMs: 1_000 };
const T = 1_800_000_000_000;

/** An account id whose owner is `two` of 2 shards and `three` of 3 (found by search: ids are hashed). */
function accountMoving(two: number, three: number): string {
  for (let i = 0; ; i++) {
    const id = `acct-${i}`;
    if (shardOf(id, 2) === two && shardOf(id, 3) === three) return id;
  }
}

const run = (
  count: number,
  shard: number,
  activeSince: number,
  lastSeen: number,
  endedAt: number | null = null,
  standIn = false,
): ShardRun => ({ count, shard, activeSince, lastSeen, endedAt, standIn });

const view = (now: number, runs: ShardRun[], horizons: [number, number][] = []): RegistryView => ({
  now,
  runs,
  horizons: new Map(horizons),
});

describe('ShardMap', () => {
  it('with one shard count and nothing moving, ownership is the hash', () => {
    const v = view(T, [run(2, 0, T - 3_600_000, T), run(2, 1, T - 3_600_000, T)]);
    const map = new ShardMap({ shard: 0, count: 2 }, v, settings);
    expect(map.simple).toBe(true);
    expect(map.ownership(accountMoving(0, 2))).toEqual({ kind: 'owner', moved: false });
    expect(map.ownership(accountMoving(1, 2))).toEqual({ kind: 'not_owner' });
  });

  it('2 to 3: the new shard waits while the old owner runs, then while its charges may be unrecorded', () => {
    const x = accountMoving(0, 2);
    const old = T - 3_600_000;
    // Shard 2 of 3 has started; shards 0 and 1 still run 2.
    let v = view(
      T,
      [run(2, 0, old, T), run(2, 1, old, T), run(3, 2, T - 2_000, T)],
      [
        [0, T],
        [1, T],
      ],
    );
    expect(new ShardMap({ shard: 2, count: 3 }, v, settings).ownership(x)).toMatchObject({ kind: 'handoff' });
    // The incumbent keeps admitting it meanwhile: one writer at every moment.
    expect(new ShardMap({ shard: 0, count: 2 }, v, settings).ownership(x)).toEqual({
      kind: 'owner',
      moved: false,
    });
    // Shard 0 restarts with 3 at T + 10 s: its run of 2 ends (last refreshed at T + 9 s).
    const restarted = T + 10_000;
    const runs = (now: number) => [
      run(2, 0, old, T + 9_000),
      run(3, 0, restarted, now),
      run(2, 1, old, now),
      run(3, 2, T - 2_000, now),
    ];
    // Holds shard 0 gave out until T + 9 s may settle until T + 39 s (+ 1 s of skew allowed).
    v = view(T + 20_000, runs(T + 20_000), [[0, T + 20_000]]);
    expect(new ShardMap({ shard: 2, count: 3 }, v, settings).ownership(x)).toMatchObject({ kind: 'handoff' });
    v = view(T + 41_000, runs(T + 41_000), [[0, T + 35_000]]);
    expect(new ShardMap({ shard: 2, count: 3 }, v, settings).ownership(x)).toMatchObject({ kind: 'handoff' });
    // Subject 0 recorded through T + 40 s: everything shard 0 admitted is in the log.
    v = view(T + 41_000, runs(T + 41_000), [[0, T + 40_000]]);
    const now = new ShardMap({ shard: 2, count: 3 }, v, settings);
    expect(now.simple).toBe(false);
    expect(now.ownership(x)).toEqual({ kind: 'owner', moved: true });
    // Shard 0 (now of 3) no longer takes it: its gateways on the old map get 503.
    expect(new ShardMap({ shard: 0, count: 3 }, v, settings).ownership(x)).toEqual({ kind: 'not_owner' });
  });

  it('2 to 3 with a hand-over: the new shard takes the account as soon as the old run has ended and its subject is recorded through the end', () => {
    const x = accountMoving(0, 2);
    const old = T - 3_600_000;
    // Shard 0 of 2 stopped gracefully at T + 9.5 s (last refreshed at T + 9 s), its subject recorded then.
    const runs = (now: number) => [
      run(2, 0, old, T + 9_000, T + 9_500),
      run(2, 1, old, now),
      run(3, 2, T - 2_000, now),
    ];
    let v = view(T + 10_000, runs(T + 10_000), [[0, T + 9_000]]);
    expect(new ShardMap({ shard: 2, count: 3 }, v, settings).ownership(x)).toMatchObject({ kind: 'handoff' });
    v = view(T + 10_000, runs(T + 10_000), [[0, T + 9_500]]);
    // Not a hold TTL later: at once, with the requests it still held to be read from its hand-over.
    expect(new ShardMap({ shard: 2, count: 3 }, v, settings).ownership(x)).toEqual({
      kind: 'owner',
      moved: true,
      from: [{ count: 2, shard: 0 }],
    });
    // A run that ended without one (killed) keeps the hold TTL's wait.
    v = view(
      T + 10_000,
      [run(2, 0, old, T + 9_000), run(2, 1, old, T + 10_000), run(3, 2, T - 2_000, T + 10_000)],
      [[0, T + 9_500]],
    );
    expect(new ShardMap({ shard: 2, count: 3 }, v, settings).ownership(x)).toMatchObject({ kind: 'handoff' });
  });

  it('an account whose owner does not change is never held up by a move', () => {
    const stays = accountMoving(0, 0);
    const old = T - 3_600_000;
    const v = view(T + 20_000, [
      run(2, 0, old, T + 9_000),
      run(3, 0, T + 10_000, T + 20_000),
      run(2, 1, old, T + 20_000),
      run(3, 2, T, T + 20_000),
    ]);
    expect(new ShardMap({ shard: 0, count: 3 }, v, settings).ownership(stays)).toEqual({
      kind: 'owner',
      moved: false,
    });
  });

  it('3 to 2: the count that comes back is newer than the one it replaces', () => {
    const x = accountMoving(0, 2);
    // 3 has run since T; 2 ran before, lapsed, and shard 0 starts it again at T + 60 s (its row of 2
    // begins again: one row per count and shard).
    const runs = [
      run(2, 1, T - 7_200_000, T - 5_000),
      run(3, 0, T, T + 59_000),
      run(3, 1, T, T + 61_000),
      run(3, 2, T, T + 61_000),
      run(2, 0, T + 60_000, T + 61_000),
    ];
    // Shard 2 of 3 still runs: it keeps x, shard 0 of 2 waits.
    const v = view(T + 61_000, runs, [
      [0, T + 61_000],
      [1, T + 61_000],
      [2, T + 61_000],
    ]);
    expect(new ShardMap({ shard: 0, count: 2 }, v, settings).ownership(x)).toMatchObject({ kind: 'handoff' });
    expect(new ShardMap({ shard: 2, count: 3 }, v, settings).ownership(x)).toEqual({
      kind: 'owner',
      moved: false,
    });
  });

  it('a retired shard whose subject nobody records holds its accounts back', () => {
    const x = accountMoving(0, 2);
    const runs = [run(3, 2, T - 600_000, T - 300_000), run(2, 0, T - 200_000, T), run(2, 1, T - 200_000, T)];
    const stuck = view(T, runs, [
      [0, T],
      [1, T],
      [2, T - 299_000],
    ]);
    expect(new ShardMap({ shard: 0, count: 2 }, stuck, settings).ownership(x)).toMatchObject({
      kind: 'handoff',
    });
    const adopted = view(T, runs, [
      [0, T],
      [1, T],
      [2, T],
    ]);
    expect(new ShardMap({ shard: 0, count: 2 }, adopted, settings).ownership(x)).toEqual({
      kind: 'owner',
      moved: false,
    });
  });
});

describe('ShardMap: a stand-in for the newer count', () => {
  const old = T - 3_600_000;

  it('3 to 2: shard 0, still of 3, admits an account moving from shard 1 of 3 to 0 of 2 once shard 1 hands over', () => {
    const x = accountMoving(0, 1);
    const stays = accountMoving(1, 0);
    // Shard 1 stopped gracefully at T + 9.5 s and runs 2 since T + 10 s; shard 0 stands in for 0 of 2.
    const runs = (now: number, shard1Ended: number | null) => [
      run(3, 0, old, now),
      run(3, 1, old, shard1Ended ?? now, shard1Ended),
      run(3, 2, old, now),
      ...(shard1Ended === null ? [] : [run(2, 1, T + 10_000, now)]),
      run(2, 0, T + 5_000, now, null, true),
    ];
    const v = view(T + 11_000, runs(T + 11_000, T + 9_500), [[1, T + 9_500]]);
    const shard0 = new ShardMap({ shard: 0, count: 3 }, v, settings, 2);
    expect(shard0.ownership(x)).toEqual({ kind: 'owner', moved: true, from: [{ count: 3, shard: 1 }] });
    // Its own accounts as before; the new count's shard 1 waits for it on the ones it keeps meanwhile.
    expect(shard0.ownership(stays)).toEqual({ kind: 'owner', moved: false });
    expect(new ShardMap({ shard: 1, count: 2 }, v, settings).ownership(stays)).toMatchObject({
      kind: 'handoff',
    });
    expect(new ShardMap({ shard: 1, count: 2 }, v, settings).ownership(x)).toEqual({ kind: 'not_owner' });
    // Not before shard 1's run of 3 has ended and its subject is recorded through the end.
    const before = view(T + 8_000, runs(T + 8_000, null), [[1, T + 8_000]]);
    expect(new ShardMap({ shard: 0, count: 3 }, before, settings, 2).ownership(x)).toMatchObject({
      kind: 'handoff',
    });
    const unrecorded = view(T + 11_000, runs(T + 11_000, T + 9_500), [[1, T + 9_000]]);
    expect(new ShardMap({ shard: 0, count: 3 }, unrecorded, settings, 2).ownership(x)).toMatchObject({
      kind: 'handoff',
    });
    // Nor while the stand-in run is not in the registry: the other shards would not know to wait for it.
    const unregistered = view(T + 11_000, runs(T + 11_000, T + 9_500).slice(0, -1), [[1, T + 9_500]]);
    expect(new ShardMap({ shard: 0, count: 3 }, unregistered, settings, 2).ownership(x)).toEqual({
      kind: 'not_owner',
    });
  });

  it("is the one other count own runs are live under, newer than the shard's own, with its index", () => {
    const steady = view(T, [run(2, 0, old, T), run(2, 1, old, T)]);
    expect(new ShardMap({ shard: 0, count: 2 }, steady, settings).standInCount).toBeNull();
    // 2 to 3: shard 2 of 3 has started.
    const grow = view(T, [run(2, 0, old, T), run(2, 1, old, T), run(3, 2, T - 2_000, T)]);
    expect(new ShardMap({ shard: 0, count: 2 }, grow, settings).standInCount).toBe(3);
    expect(new ShardMap({ shard: 1, count: 2 }, grow, settings).standInCount).toBe(3);
    // The newer count's shards never stand in for the older one, nor a shard past the newer count.
    expect(new ShardMap({ shard: 2, count: 3 }, grow, settings).standInCount).toBeNull();
    const shrink = view(T, [
      run(3, 0, old, T),
      run(3, 1, T - 2_000, T, T - 1_000),
      run(2, 1, T - 500, T),
      run(3, 2, old, T),
    ]);
    expect(new ShardMap({ shard: 0, count: 3 }, shrink, settings).standInCount).toBe(2);
    expect(new ShardMap({ shard: 2, count: 3 }, shrink, settings).standInCount).toBeNull();
    // Stand-ins alone do not make a count live: once its own runs are gone, nobody starts standing in.
    const onlyStandIns = view(T, [run(2, 0, old, T), run(2, 1, old, T), run(3, 1, T - 2_000, T, null, true)]);
    expect(new ShardMap({ shard: 0, count: 2 }, onlyStandIns, settings).standInCount).toBeNull();
    // Nor with two other counts.
    const three = view(T, [run(2, 0, old, T), run(3, 1, T - 9_000, T), run(4, 3, T - 2_000, T)]);
    expect(new ShardMap({ shard: 0, count: 2 }, three, settings).standInCount).toBeNull();
  });
});

/**
 * The registry as a rollout writes it, second by second: every live process refreshes its run (and its
 * stand-in, chosen, and ended, from its last map as the registry does), then reads every run; its
 * consumer records everything at once. Returns, per second, each account's admitters: a process admits
 * what its new map gives it and, until this read, what its last one gave it (it acts on a map until it
 * reads the next).
 */
function rollout(
  steps: readonly { at: number; shard: number; act: 'start' | 'stop' | 'kill'; count?: number }[],
  accounts: readonly string[],
  opts: { until: number; standIns: boolean },
) {
  const runs = new Map<string, ShardRun>();
  interface Proc {
    count: number;
    stand: StandInState;
    admitted: Set<string>;
  }
  const procs = new Map<number, Proc>();
  const owners: { at: number; owners: Map<string, string[]> }[] = [];
  const started = (count: number): Proc => ({
    count,
    stand: { standIn: null, ended: false },
    admitted: new Set(),
  });
  for (const s of [0, 1]) {
    procs.set(s, started(2));
    runs.set(`2/${s}`, run(2, s, old(), T));
  }
  function old() {
    return T - 3_600_000;
  }
  const refresh = (count: number, shard: number, now: number, standIn: boolean) => {
    const prev = runs.get(`${count}/${shard}`);
    const lapsed = !prev || prev.lastSeen < now - settings.liveMs || prev.endedAt !== null;
    runs.set(`${count}/${shard}`, run(count, shard, lapsed ? now : prev.activeSince, now, null, standIn));
  };
  for (let at = 0; at <= opts.until; at += 1_000) {
    const now = T + at;
    for (const step of steps.filter((s) => s.at === at)) {
      const p = procs.get(step.shard);
      if (step.act === 'start') procs.set(step.shard, started(step.count!));
      else if (p) {
        procs.delete(step.shard);
        const r = runs.get(`${p.count}/${step.shard}`)!;
        if (step.act === 'stop') runs.set(`${p.count}/${step.shard}`, { ...r, endedAt: now });
      }
    }
    for (const [shard, p] of procs) {
      refresh(p.count, shard, now, false);
      if (p.stand.standIn !== null) refresh(p.stand.standIn, shard, now, true);
    }
    const v = view(
      now,
      [...runs.values()],
      [0, 1, 2].map((s) => [s, now]),
    );
    const byAccount = new Map<string, string[]>(accounts.map((a) => [a, []]));
    for (const [shard, p] of procs) {
      let map = new ShardMap({ shard, count: p.count }, v, settings, p.stand.standIn);
      const next = opts.standIns || p.stand.standIn !== null ? nextStandIn(map, p.stand) : p.stand;
      // An ended stand-in stops now; a new one is registered at the next refresh.
      if (next.ended && !p.stand.ended) map = new ShardMap({ shard, count: p.count }, v, settings);
      p.stand = next;
      const admits = new Set(accounts.filter((a) => map.ownership(a).kind === 'owner'));
      for (const a of new Set([...admits, ...p.admitted])) byAccount.get(a)!.push(`${shard} of ${p.count}`);
      p.admitted = admits;
    }
    owners.push({ at, owners: byAccount });
  }
  return owners;
}

describe('ShardMap through a rollout', () => {
  // Every pair of owners under 2 and 3 many times over.
  const accounts = Array.from({ length: 90 }, (_, i) => `acct-${i}`);
  // 2 → 3 (shard 2 starts; 1, then 0, restart with 3), then 3 → 2 (1, then 0, restart with 2; shard 2
  // is killed last), as test/reshard.int.test.ts and a StatefulSet roll them.
  const steps = [
    { at: 10_000, shard: 2, act: 'start', count: 3 },
    { at: 20_000, shard: 1, act: 'stop' },
    { at: 23_000, shard: 1, act: 'start', count: 3 },
    { at: 35_000, shard: 0, act: 'stop' },
    { at: 38_000, shard: 0, act: 'start', count: 3 },
    { at: 130_000, shard: 1, act: 'stop' },
    { at: 133_000, shard: 1, act: 'start', count: 2 },
    { at: 145_000, shard: 0, act: 'stop' },
    { at: 148_000, shard: 0, act: 'start', count: 2 },
    { at: 160_000, shard: 2, act: 'kill' },
  ] as const;

  // A 2 → 3 rolled back half-way: shard 1, restarted with 3, goes back to 2 and shard 2 is killed.
  const rolledBack = [
    ...steps.slice(0, 3),
    { at: 28_000, shard: 2, act: 'kill' },
    { at: 30_000, shard: 1, act: 'stop' },
    { at: 31_000, shard: 1, act: 'start', count: 2 },
  ] as const;

  // 3 → 2 rolled back: shard 1, restarted with 2 (shard 0 of 3 stands in for 0 of 2), goes back to 3.
  const shrinkRolledBack = [
    ...steps.slice(0, 7),
    { at: 140_000, shard: 1, act: 'stop' },
    { at: 141_000, shard: 1, act: 'start', count: 3 },
  ] as const;

  // 2 → 3 with shard 0 of 2 killed early, and started again with 2 (its pod's old spec) while shard 1
  // still runs 2: meanwhile the new count's runs (shard 2, shard 1's stand-in) took its accounts.
  const crashed = [
    steps[0],
    { at: 12_000, shard: 0, act: 'kill' },
    { at: 60_000, shard: 0, act: 'start', count: 2 },
    { at: 90_000, shard: 1, act: 'stop' },
    { at: 93_000, shard: 1, act: 'start', count: 3 },
    { at: 110_000, shard: 0, act: 'stop' },
    { at: 113_000, shard: 0, act: 'start', count: 3 },
  ] as const;

  // Each with the count every shard and gateway runs once it is over.
  const plans = [
    ['2 → 3 → 2', steps, 2],
    ['2 → 3 rolled back', rolledBack, 2],
    ['3 → 2 rolled back', shrinkRolledBack, 3],
    ['2 → 3, shard 0 killed and started again on 2', crashed, 3],
  ] as const;

  it('never has two shards admitting one account, stand-ins or not', () => {
    // Gathered, then checked once: an expect per account and second (90 × 261 × 8) was most of the test.
    const twice: string[] = [];
    for (const [name, plan] of plans)
      for (const standIns of [true, false])
        for (const { at, owners } of rollout(plan, accounts, { until: 260_000, standIns }))
          for (const [a, who] of owners)
            if (who.length > 1)
              twice.push(`${name}: ${a} at ${at / 1000} s (stand-ins: ${standIns}): ${who}`);
    expect(twice).toEqual([]);
  });

  it('once a rollout, a rollback or a restart has settled, admits every account where the gateways send it', () => {
    const astray: string[] = [];
    for (const [name, plan, count] of plans)
      for (const standIns of [true, false]) {
        const last = rollout(plan, accounts, { until: 260_000, standIns }).at(-1)!;
        for (const [a, who] of last.owners)
          if (who.join() !== `${shardOf(a, count)} of ${count}`)
            astray.push(`${name} (stand-ins: ${standIns}): ${a}: ${who}`);
      }
    expect(astray).toEqual([]);
  });

  it('admits an account whose new owner restarts last as soon as its old owner hands it over', () => {
    const grow = accountMoving(1, 0);
    const shrink = accountMoving(0, 1);
    const admitted = (standIns: boolean, a: string, at: number) =>
      rollout(steps, [a], { until: at, standIns }).at(-1)!.owners.get(a)!;
    // 2 → 3: from shard 1 (stopped at 20 s) to shard 0 of 3 (started at 38 s).
    expect(admitted(true, grow, 25_000)).toEqual(['0 of 2']);
    expect(admitted(false, grow, 25_000)).toEqual([]);
    // 3 → 2: from shard 1 (stopped at 130 s) to shard 0 of 2 (started at 148 s).
    expect(admitted(true, shrink, 135_000)).toEqual(['0 of 3']);
    expect(admitted(false, shrink, 135_000)).toEqual([]);
    // And the new owner once it runs.
    expect(admitted(true, shrink, 150_000)).toEqual(['0 of 2']);
  });
});

describe('ShardMap.inherited', () => {
  it('gives each retired shard subject to one shard of the new count, while no run holds it', () => {
    const runs = [
      run(2, 0, T, T),
      run(2, 1, T, T),
      run(3, 2, T - 600_000, T - 300_000),
      run(5, 4, T - 600_000, T - 9_000),
    ];
    const v = view(T, runs);
    const known = [0, 1, 2, 3, 4];
    expect(new ShardMap({ shard: 0, count: 2 }, v, settings).inherited(known)).toEqual([2, 4]);
    expect(new ShardMap({ shard: 1, count: 2 }, v, settings).inherited(known)).toEqual([3]);
    // Shard 2 runs again (a count of 3 back): nobody else records its subject.
    const back = view(T, [...runs, run(3, 2, T - 1_000, T)]);
    expect(new ShardMap({ shard: 0, count: 2 }, back, settings).inherited(known)).toEqual([4]);
  });
});
