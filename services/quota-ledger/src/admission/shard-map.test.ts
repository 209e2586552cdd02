import { shardOf } from '@mdp/usage';
import { describe, expect, it } from 'vitest';
import { type RegistryView, ShardMap, type ShardRun } from './shard-map.ts';

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
): ShardRun => ({ count, shard, activeSince, lastSeen, endedAt });

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
    // 3 has run since T; 2 ran before, lapsed, and shard 0 starts it again at T + 60 s.
    const runs = [
      run(2, 0, T - 7_200_000, T - 5_000),
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
