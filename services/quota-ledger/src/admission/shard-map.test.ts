import { shardOf } from '@mdp/usage';
import { describe, expect, it } from 'vitest';
import {
  nextReliefs,
  nextStandIn,
  type RegistryView,
  type Relief,
  ShardMap,
  type ShardRun,
  type StandInState,
} from './shard-map.ts';

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
  subject = shard,
  admitting = true,
): ShardRun => ({ count, shard, subject, activeSince, lastSeen, endedAt, standIn, admitting });

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
    expect(new ShardMap({ shard: 2, count: 3 }, v, settings).takenOver()).toEqual([]);
    v = view(T + 10_000, runs(T + 10_000), [[0, T + 9_500]]);
    // Not a hold TTL later: at once, with the requests it still held to be read from its hand-over.
    expect(new ShardMap({ shard: 2, count: 3 }, v, settings).ownership(x)).toEqual({
      kind: 'owner',
      moved: true,
      from: [{ count: 2, shard: 0, subject: 0 }],
    });
    // What its log says it takes over; not shard 1 of 2, which runs on.
    expect(new ShardMap({ shard: 2, count: 3 }, v, settings).takenOver()).toEqual([
      { count: 2, shard: 0, subject: 0, endedAt: T + 9_500 },
    ]);
    // A run that ended without one (killed) keeps the hold TTL's wait.
    v = view(
      T + 10_000,
      [run(2, 0, old, T + 9_000), run(2, 1, old, T + 10_000), run(3, 2, T - 2_000, T + 10_000)],
      [[0, T + 9_500]],
    );
    expect(new ShardMap({ shard: 2, count: 3 }, v, settings).ownership(x)).toMatchObject({ kind: 'handoff' });
    expect(new ShardMap({ shard: 2, count: 3 }, v, settings).takenOver()).toEqual([]);
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
    expect(shard0.ownership(x)).toEqual({
      kind: 'owner',
      moved: true,
      from: [{ count: 3, shard: 1, subject: 1 }],
    });
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

describe('ShardMap: a relief while a shard restarts', () => {
  const old = T - 3_600_000;
  const x = accountMoving(1, 1);
  const mine = accountMoving(0, 0);
  // Three shards of 3; shard 1 stopped gracefully at T + 9.5 s, its subject recorded through then.
  const stopped = [
    run(3, 0, old, T + 10_000),
    run(3, 1, old, T + 9_000, T + 9_500),
    run(3, 2, old, T + 10_000),
  ];
  const horizons: [number, number][] = [
    [0, T + 10_000],
    [1, T + 9_500],
    [2, T + 10_000],
  ];

  it('is due at the shard before it (1 for shard 0) once the run hands over, and admits its accounts once registered', () => {
    const v = view(T + 10_000, stopped, horizons);
    const zero = new ShardMap({ shard: 0, count: 3 }, v, settings);
    expect(zero.reliefsDue()).toEqual([{ count: 3, shard: 1 }]);
    expect(nextReliefs(zero, [])).toEqual({
      held: [{ count: 3, shard: 1 }],
      ended: [],
      begun: [{ count: 3, shard: 1 }],
      changed: true,
    });
    expect(new ShardMap({ shard: 2, count: 3 }, v, settings).reliefsDue()).toEqual([]);
    // Not before it is in the registry: the other shards would not know to wait for it.
    expect(
      new ShardMap({ shard: 0, count: 3 }, v, settings, null, [{ count: 3, shard: 1 }]).ownership(x),
    ).toEqual({
      kind: 'not_owner',
    });
    const registered = view(
      T + 10_000,
      [...stopped, run(3, 1, T + 10_000, T + 10_000, null, false, 0)],
      horizons,
    );
    const relieving = new ShardMap({ shard: 0, count: 3 }, registered, settings, null, [
      { count: 3, shard: 1 },
    ]);
    expect(relieving.ownership(x)).toEqual({
      kind: 'owner',
      moved: true,
      from: [{ count: 3, shard: 1, subject: 1 }],
      relief: true,
    });
    expect(relieving.ownership(mine)).toEqual({ kind: 'owner', moved: false });
    expect(relieving.takenOver()).toEqual([{ count: 3, shard: 1, subject: 1, endedAt: T + 9_500 }]);
    // Nor for a run that was killed (no hand-over): its holds are waited out as before.
    const killed = view(T + 10_000, [stopped[0]!, run(3, 1, old, T + 9_000), stopped[2]!], horizons);
    expect(new ShardMap({ shard: 0, count: 3 }, killed, settings).reliefsDue()).toEqual([]);
  });

  it('ends when the shard runs again and admits, which waits until the relief has handed over and its subject is recorded', () => {
    const relief = run(3, 1, T + 10_000, T + 13_000, null, false, 0);
    const back = run(3, 1, T + 13_000, T + 13_000);
    // Not while the restarted shard is still catching up: its accounts would have nobody to admit them.
    const catchingUp = view(
      T + 13_000,
      [stopped[0]!, { ...back, admitting: false }, stopped[2]!, relief],
      horizons,
    );
    const before = new ShardMap({ shard: 0, count: 3 }, catchingUp, settings, null, [{ count: 3, shard: 1 }]);
    expect(before.reliefOver({ count: 3, shard: 1 })).toBe(false);
    // Held and neither over nor due again: reading the map begins and ends nothing.
    const held = [{ count: 3, shard: 1 }];
    expect(nextReliefs(before, held)).toEqual({ held, ended: [], begun: [], changed: false });
    expect(before.ownership(x)).toMatchObject({ kind: 'owner', relief: true });
    const v = view(T + 13_000, [stopped[0]!, back, stopped[2]!, relief], horizons);
    const zero = new ShardMap({ shard: 0, count: 3 }, v, settings, null, [{ count: 3, shard: 1 }]);
    expect(zero.reliefOver({ count: 3, shard: 1 })).toBe(true);
    expect(zero.reliefsDue()).toEqual([]);
    expect(nextReliefs(zero, held)).toEqual({ held: [], ended: held, begun: [], changed: true });
    expect(new ShardMap({ shard: 1, count: 3 }, v, settings).ownership(x)).toMatchObject({ kind: 'handoff' });
    const ended = { ...relief, endedAt: T + 13_200 };
    const unrecorded = view(T + 13_300, [stopped[0]!, back, stopped[2]!, ended], horizons);
    expect(new ShardMap({ shard: 1, count: 3 }, unrecorded, settings).ownership(x)).toMatchObject({
      kind: 'handoff',
    });
    const recorded = view(T + 13_300, [stopped[0]!, back, stopped[2]!, ended], [[0, T + 13_200]]);
    expect(new ShardMap({ shard: 1, count: 3 }, recorded, settings).ownership(x)).toEqual({
      kind: 'owner',
      moved: true,
      from: [{ count: 3, shard: 1, subject: 0 }],
    });
  });
});

/**
 * A plan's steps. `cut` and `mend`: the process's registry reads and refreshes fail from then until it is
 * mended (Postgres away or slow for it alone); it admits on its last map meanwhile, and its subject's
 * horizon stays where it was.
 */
type Step = { at: number; shard: number; act: 'start' | 'stop' | 'kill' | 'cut' | 'mend'; count?: number };

/**
 * The registry as a rollout writes it, second by second: every live process refreshes its runs (its
 * stand-in and reliefs, chosen, and ended, from its last map as the registry does), then reads every run;
 * its consumer records everything at once (a cut process's, nothing). A stop hands over every run of its
 * process. Returns, per second, each account's admitters: a process admits what its new map gives it
 * and, until this read, what its last one gave it (it acts on a map until it reads the next). What a
 * process writes while it reads (a relief's end) the others read a second later; a run it begins (a
 * stand-in, a relief) it registers and reads again at once, as the registry does.
 */
function rollout(
  steps: readonly Step[],
  accounts: readonly string[],
  opts: { until: number; standIns: boolean; reliefs?: boolean; count?: number },
) {
  const runs = new Map<string, ShardRun>();
  /** Which process refreshed each run last (the registry's `holder`). */
  const holders = new Map<string, number>();
  interface Proc {
    id: number;
    count: number;
    stand: StandInState;
    reliefs: Relief[];
    admitted: Set<string>;
    cutAt: number | null;
  }
  const procs = new Map<number, Proc>();
  /**
   * Each second, the accounts' admitters, and the accounts taken from another process before that
   * process's holds of them could have expired and without its hand-over (`early`).
   */
  const owners: { at: number; owners: Map<string, string[]>; early: string[] }[] = [];
  /** By account, when each process last admitted it; by process, when it last handed over. */
  const lastAdmitted = new Map<string, Map<number, number>>(accounts.map((a) => [a, new Map()]));
  const handedOver = new Map<number, number>();
  let processes = 0;
  const started = (count: number): Proc => ({
    id: ++processes,
    count,
    stand: { standIn: null, ended: false },
    reliefs: [],
    admitted: new Set(),
    cutAt: null,
  });
  const key = (count: number, shard: number, subject = shard) => `${count}/${shard}@${subject}`;
  const initial = opts.count ?? 2;
  for (let s = 0; s < initial; s++) {
    const p = started(initial);
    procs.set(s, p);
    runs.set(key(initial, s), run(initial, s, old(), T));
    holders.set(key(initial, s), p.id);
  }
  function old() {
    return T - 3_600_000;
  }
  // As `refresh` in registry-tables.ts: a run begins again once it has handed over, or after it lapsed in
  // another process.
  const refresh = (
    count: number,
    shard: number,
    now: number,
    standIn: boolean,
    id: number,
    subject = shard,
  ) => {
    const k = key(count, shard, subject);
    const prev = runs.get(k);
    const begins =
      !prev || prev.endedAt !== null || (prev.lastSeen < now - settings.liveMs && holders.get(k) !== id);
    runs.set(k, run(count, shard, begins ? now : prev.activeSince, now, null, standIn, subject));
    holders.set(k, id);
    return runs.get(k)!;
  };
  const refreshAll = (subject: number, p: Proc, now: number) => {
    refresh(p.count, subject, now, false, p.id);
    if (p.stand.standIn !== null) refresh(p.stand.standIn, subject, now, true, p.id);
    for (const r of p.reliefs) refresh(r.count, r.shard, now, false, p.id, subject);
  };
  const end = (k: string, now: number) => {
    const r = runs.get(k);
    if (r) runs.set(k, { ...r, endedAt: now });
  };
  for (let at = 0; at <= opts.until; at += 1_000) {
    const now = T + at;
    for (const step of steps.filter((s) => s.at === at)) {
      const p = procs.get(step.shard);
      if (step.act === 'start') procs.set(step.shard, started(step.count!));
      else if (step.act === 'cut') p!.cutAt = now;
      else if (step.act === 'mend') p!.cutAt = null;
      else if (p) {
        procs.delete(step.shard);
        if (step.act === 'stop') {
          end(key(p.count, step.shard), now);
          if (p.stand.standIn !== null) end(key(p.stand.standIn, step.shard), now);
          for (const r of p.reliefs) end(key(r.count, r.shard, step.shard), now);
          handedOver.set(p.id, at);
        }
      }
    }
    for (const [shard, p] of procs) if (p.cutAt === null) refreshAll(shard, p, now);
    const horizons: [number, number][] = [0, 1, 2].map((s) => [s, procs.get(s)?.cutAt ?? now]);
    const snapshot = new Map(runs);
    const registered = new Map<string, ShardRun>();
    const v = view(now, [...snapshot.values()], horizons);
    const byAccount = new Map<string, string[]>(accounts.map((a) => [a, []]));
    const early: string[] = [];
    for (const [shard, p] of procs) {
      if (p.cutAt !== null) {
        for (const a of p.admitted) byAccount.get(a)!.push(`${shard} of ${p.count}`);
        continue;
      }
      const mapOf = (at: RegistryView) =>
        new ShardMap({ shard, count: p.count }, at, settings, p.stand.standIn, p.reliefs);
      let map = mapOf(v);
      // A new stand-in is registered at the next refresh (till then the map leaves it out); one that
      // ended stops now.
      if (opts.standIns || p.stand.standIn !== null) p.stand = nextStandIn(map, p.stand);
      map = mapOf(v);
      if (opts.reliefs) {
        const r = nextReliefs(map, p.reliefs);
        for (const e of r.ended) end(key(e.count, e.shard, shard), now);
        if (r.ended.length > 0) handedOver.set(p.id, at);
        p.reliefs = r.held;
        // Registered one at a time (the registry serialises refreshes), each after those before it.
        for (const b of r.begun)
          registered.set(
            key(b.count, b.shard, shard),
            refresh(b.count, b.shard, now + registered.size, false, p.id, shard),
          );
        const mine = new Map([...snapshot, ...registered]);
        map = mapOf(view(now, [...mine.values()], horizons));
      }
      const admits = new Set(accounts.filter((a) => map.ownership(a).kind === 'owner'));
      for (const a of new Set([...admits, ...p.admitted])) byAccount.get(a)!.push(`${shard} of ${p.count}`);
      p.admitted = admits;
    }
    for (const [shard, p] of procs)
      for (const a of p.admitted) {
        const last = lastAdmitted.get(a)!;
        for (const [other, s] of last)
          if (other !== p.id && (handedOver.get(other) ?? -1) < s && at < s + settings.holdTtlMs)
            early.push(
              `${a} at ${at / 1000} s by shard ${shard} of ${p.count}, ${(at - s) / 1000} s after another`,
            );
        last.set(p.id, at);
      }
    owners.push({ at, owners: byAccount, early });
  }
  return owners;
}

/** Each account's longest stretch of seconds without an admitter, over `owners`. */
function longestGaps(owners: ReturnType<typeof rollout>): Map<string, number> {
  const gaps = new Map<string, number>();
  const since = new Map<string, number>();
  for (const { at, owners: byAccount } of owners)
    for (const [a, who] of byAccount) {
      if (who.length > 0) since.delete(a);
      else if (!since.has(a)) since.set(a, at);
      if (since.has(a)) gaps.set(a, Math.max(gaps.get(a) ?? 0, at - since.get(a)! + 1_000));
    }
  return gaps;
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

  // 2 → 3 → 2 with a shard cut off from the registry while accounts move: shard 0 of 2 as shard 2 of 3
  // waits for its accounts, then shard 2 of 3, which leaves, while shards 0 and 1 of 2 wait for its.
  const cut = [
    ...steps.slice(0, 1),
    { at: 12_000, shard: 0, act: 'cut' },
    { at: 30_000, shard: 0, act: 'mend' },
    ...steps.slice(1, 7),
    { at: 135_000, shard: 2, act: 'cut' },
    { at: 158_000, shard: 2, act: 'mend' },
    ...steps.slice(7),
  ] as const;

  // Each with the count every shard and gateway runs once it is over.
  const plans = [
    ['2 → 3 → 2', steps, 2],
    ['2 → 3 rolled back', rolledBack, 2],
    ['3 → 2 rolled back', shrinkRolledBack, 3],
    ['2 → 3, shard 0 killed and started again on 2', crashed, 3],
    ['2 → 3 → 2, shards cut off from the registry', cut, 2],
  ] as const;

  // Every shard of 3 restarted in turn, last index first, as a StatefulSet rolls them.
  const rolling = [
    { at: 20_000, shard: 2, act: 'stop' },
    { at: 23_000, shard: 2, act: 'start', count: 3 },
    { at: 30_000, shard: 1, act: 'stop' },
    { at: 33_000, shard: 1, act: 'start', count: 3 },
    { at: 40_000, shard: 0, act: 'stop' },
    { at: 43_000, shard: 0, act: 'start', count: 3 },
  ] as const;
  // Each from 2 shards but the rolling restart, from 3.
  const every = [
    ...plans.map(([name, plan, count]) => [name, plan, count, 2] as const),
    ['rolling restart of 3', rolling, 3, 3] as const,
  ];

  const options = [
    { standIns: true, reliefs: true },
    { standIns: true, reliefs: false },
    { standIns: false, reliefs: true },
    { standIns: false, reliefs: false },
  ];
  const named = (o: (typeof options)[number]) => `stand-ins: ${o.standIns}, reliefs: ${o.reliefs}`;

  it('never has two shards admitting one account, with stand-ins, reliefs, both or neither', () => {
    // Gathered, then checked once: an expect per account and second (90 × 261 × 20) was most of the test.
    const twice: string[] = [];
    for (const [name, plan, , from] of every)
      for (const o of options)
        for (const { at, owners } of rollout(plan, accounts, { until: 260_000, count: from, ...o }))
          for (const [a, who] of owners)
            if (who.length > 1) twice.push(`${name}: ${a} at ${at / 1000} s (${named(o)}): ${who}`);
    expect(twice).toEqual([]);
  });

  it('takes an account from another process only once it handed over or its holds have expired', () => {
    const early: string[] = [];
    for (const [name, plan, , from] of every)
      for (const o of options)
        for (const second of rollout(plan, accounts, { until: 260_000, count: from, ...o }))
          for (const e of second.early) early.push(`${name} (${named(o)}): ${e}`);
    expect(early).toEqual([]);
  });

  it('a shard cut off from the registry stays the one admitter of its accounts: it runs on when it is back', () => {
    const grow = accountMoving(0, 2);
    const owners = (at: number) => rollout(cut, [grow], { until: at, standIns: true, reliefs: true }).at(-1)!;
    // Shard 0 of 2, cut off from 12 to 30 s, admits on its last map; shard 2 of 3 waits for it throughout,
    // and after it, as it still began first.
    for (const at of [11_000, 20_000, 31_000, 34_000])
      expect(owners(at).owners.get(grow)).toEqual(['0 of 2']);
    // It hands over at its stop (35 s): the account moves at once.
    expect(owners(35_000).owners.get(grow)).toEqual(['2 of 3']);
  });

  it('once a rollout, a rollback or a restart has settled, admits every account where the gateways send it', () => {
    const astray: string[] = [];
    for (const [name, plan, count, from] of every)
      for (const o of options) {
        const last = rollout(plan, accounts, { until: 260_000, count: from, ...o }).at(-1)!;
        for (const [a, who] of last.owners)
          if (who.join() !== `${shardOf(a, count)} of ${count}`)
            astray.push(`${name} (${named(o)}): ${a}: ${who}`);
      }
    expect(astray).toEqual([]);
  });

  it('with reliefs, leaves no account without an admitter through restarts that hand over', () => {
    // 2 → 3 → 2 until shard 2 is killed (its accounts then wait out its holds), and a rolling restart.
    for (const [plan, until, count] of [
      [steps, 159_000, 2],
      [rolling, 120_000, 3],
    ] as const) {
      const gaps = (reliefs: boolean) =>
        longestGaps(rollout(plan, accounts, { until, count, standIns: true, reliefs }));
      expect([...gaps(true).entries()]).toEqual([]);
      // Without reliefs an account waits through its shard's restart (3 s here; seconds in Kubernetes).
      expect(Math.max(...gaps(false).values())).toBeGreaterThanOrEqual(3_000);
    }
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
