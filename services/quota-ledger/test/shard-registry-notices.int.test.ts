import { describe, expect, it } from 'vitest';
import { until } from '../../../test/until.ts';
import { REGISTRY_LOCK, registryNow, writeHandover } from '../src/admission/registry-tables.ts';
import type { ShardRegistry } from '../src/admission/shard-registry.ts';
import { registriesOnOwnSchema } from './registries.ts';

// A shard reads the registry every second; a run that begins, or ends with a hand-over, is told to the
// other shards at once (LISTEN/NOTIFY), so each step of a move waits for no refresh. Here the refresh is
// a minute apart: only the notices can show one shard's change to another within the test.

const MINUTE = 60_000;
const registries = registriesOnOwnSchema('ledger_notices', 4);
const locked = registriesOnOwnSchema('ledger_notices_locked', 6);

const start = (shard: number, count: number, notices = true, on = registries) =>
  on.start({
    shard,
    count,
    holder: `test-${shard}-of-${count}`,
    holdTtlMs: 8_000,
    intervalMs: MINUTE,
    ...(notices ? { notices: on.notices } : {}),
  });

describe('the shard registry, told of changes', () => {
  it('reads a run of another count that begins, and a hand-over, at once rather than at its next refresh', async () => {
    const zero = start(0, 3);
    const deaf = start(2, 3, false);
    await Promise.all([zero.ready, zero.listening, deaf.ready]);
    expect(zero.map()!.standInCount).toBeNull();
    // Shard 1 runs a count of 2: shard 0 of 3 stands in for its index under it, told within the minute.
    const one = start(1, 2);
    await Promise.all([one.ready, one.listening]);
    await until('shard 0 to see the count of 2', () => zero.map()!.standInCount === 2, 10_000, 20);
    // The shard that does not listen still has its first read's map: nothing else moved it.
    expect(deaf.map()!.standInCount).toBeNull();
    // Shard 1 hands over: the other shards' maps show its run ended, and its subject recorded through then.
    await one.stopRefreshing();
    const endedAt = await registryNow(registries.pool());
    await writeHandover(registries.pool(), one.runs(), endedAt, []);
    await until('shard 0 to read the hand-over', () => zero.map()!.recordedThrough(1) >= endedAt, 10_000, 20);
    expect(deaf.map()!.recordedThrough(1)).toBe(0);
  });

  it('reads a hand-over told by its notice while the registry lock is held (a refresh stuck)', async () => {
    // Shard 2's hand-over asks shard 1 to relieve it (a refresh, which waits), shard 0 for nothing.
    const [zero, one, two] = [0, 1, 2].map((shard) => start(shard, 3, true, locked)) as [
      ShardRegistry,
      ShardRegistry,
      ShardRegistry,
    ];
    // Listening, and the read each connection asked for over: none is left to wait for the lock below.
    await Promise.all([zero, one, two].flatMap((r) => [r.ready, r.listening]));
    // Taken as a refresh takes it: every refresh now waits, and a notice's read must not.
    const holder = await locked.pool().connect();
    await holder.query('BEGIN');
    await holder.query(`SELECT ${REGISTRY_LOCK}`);
    try {
      await two.stopRefreshing();
      const endedAt = await registryNow(locked.pool());
      await writeHandover(locked.pool(), two.runs(), endedAt, []);
      await until(
        'shard 0 to read the hand-over',
        () => zero.map()!.recordedThrough(2) >= endedAt,
        10_000,
        20,
      );
      // The relief waits for the lock, as it must: it begins a run.
      expect(one.map()!.recordedThrough(2)).toBe(0);
    } finally {
      await holder.query('ROLLBACK');
      holder.release();
    }
    await until(
      'shard 1 to relieve shard 2',
      () => one.map()!.recordedThrough(2) >= 0 && one.runs().reliefs.length === 1,
      10_000,
      20,
    );
  });
});
