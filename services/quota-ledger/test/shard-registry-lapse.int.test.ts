import { Registry } from '@mdp/telemetry';
import { shardOf } from '@mdp/usage';
import { describe, expect, it } from 'vitest';
import { until } from '../../../test/until.ts';
import { registriesOnOwnSchema } from './registries.ts';

// A shard whose registry refreshes fail or stall (Postgres away or slow for it) admits on its last map
// meanwhile, and to the other shards its run lapses (not refreshed for 5 s). When it refreshes again it
// is the same run: had it begun again, a run waiting for its accounts (a newer count's) would have begun
// first and taken them at once, before the holds it still had could expire or its charges be recorded.
// A run that lapsed in another process (a restart) does begin again.

const registries = registriesOnOwnSchema('ledger_lapse', 4);

const start = (shard: number, count: number) =>
  registries.start({ shard, count, holder: `test-${shard}-of-${count}`, holdTtlMs: 8_000, intervalMs: 100 });

/** An account of shard 0 of 2 that moves to shard 2 of 3. */
function moving(): string {
  for (let i = 0; ; i++)
    if (shardOf(`acct-${i}`, 2) === 0 && shardOf(`acct-${i}`, 3) === 2) return `acct-${i}`;
}

/** The run of shard 0 of 2 as the registry holds it. */
async function runOfZero(): Promise<{ activeSince: Date; lastSeen: Date }> {
  const { rows } = await registries
    .pool()
    .query<{ active_since: Date; last_seen: Date }>(
      'SELECT active_since, last_seen FROM ledger_shard_runs WHERE shard_count = 2 AND shard = 0',
    );
  return { activeSince: rows[0]!.active_since, lastSeen: rows[0]!.last_seen };
}

/** Makes the run look as if its process had not refreshed it for 10 s (twice the time a run lapses after). */
async function lapseZero(): Promise<Date> {
  const { rows } = await registries.pool().query<{ last_seen: Date }>(
    `UPDATE ledger_shard_runs SET last_seen = now() - interval '10 seconds'
      WHERE shard_count = 2 AND shard = 0 RETURNING last_seen`,
  );
  return rows[0]!.last_seen;
}

const refreshedSince = async (since: Date) => (await runOfZero()).lastSeen > since;

describe('the shard registry, a run that lapses', () => {
  const account = moving();

  it('is the same run when its process refreshes it again: the accounts it admits stay its own', async () => {
    const zero = start(0, 2);
    await zero.ready;
    const two = start(2, 3);
    await two.ready;
    expect(zero.ownership(account)).toEqual({ kind: 'owner', moved: false });
    expect(two.ownership(account).kind).toBe('handoff');
    const before = await runOfZero();

    const lapsedAt = await lapseZero();
    await until('shard 0 of 2 to refresh its run again', () => refreshedSince(lapsedAt), 10_000, 20);
    const after = await runOfZero();
    expect(after.activeSince).toEqual(before.activeSince);
    // Both have read the registry since (a map is made at each read): shard 0 of 2 still began first.
    const maps = [zero.map(), two.map()];
    await until(
      'both shards to read the registry again',
      () => zero.map() !== maps[0] && two.map() !== maps[1],
    );
    expect(zero.ownership(account)).toEqual({ kind: 'owner', moved: false });
    expect(two.ownership(account)).toMatchObject({
      kind: 'handoff',
      why: expect.stringContaining('still admits it'),
    });
    await zero.close();
    await two.close();
  });

  it('begins again in another process: a restart of the shard waits for the run that began before it', async () => {
    const two = start(2, 3);
    await two.ready;
    const before = await runOfZero();
    // The process before has gone without a hand-over (the first test closed it), its run lapsed.
    await lapseZero();
    const zero = start(0, 2);
    await zero.ready;
    const after = await runOfZero();
    expect(after.activeSince.getTime()).toBeGreaterThan(before.activeSince.getTime());
    expect(zero.ownership(account).kind).toBe('handoff');
  });

  it('shows how long ago it read the registry, and admits on its last map while it cannot', async () => {
    const metrics = new Registry();
    const zero = registries.start({
      shard: 1,
      count: 2,
      holder: 'test-1-of-2',
      holdTtlMs: 8_000,
      intervalMs: 100,
      registry: metrics,
    });
    await zero.ready;
    const age = async () => {
      const { values } = await metrics.getSingleMetric('ledger_shard_registry_read_age_seconds')!.get();
      expect(values[0]!.labels).toEqual({ shard: '1' });
      return values[0]!.value;
    };
    // An account of shard 1 of 2 and of 1 of 3, which no run of 3 holds (shards 2 of 3 and 0 of 2 run
    // still, the latter standing in for 0 of 3).
    const own = (() => {
      for (let i = 0; ; i++)
        if (shardOf(`acct-${i}`, 2) === 1 && shardOf(`acct-${i}`, 3) === 1) return `acct-${i}`;
    })();
    expect(zero.ownership(own)).toEqual({ kind: 'owner', moved: false });
    expect(await age()).toBeLessThan(1);
    // Every refresh takes this lock first: held here, none can be made.
    const blocker = await registries.pool().connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query(`SELECT pg_advisory_xact_lock(hashtext(current_schema() || ':ledger-shard-runs'))`);
      await until('the read age to pass 1.5 s', async () => (await age()) > 1.5, 10_000, 50);
      expect(zero.ownership(own)).toEqual({ kind: 'owner', moved: false });
    } finally {
      await blocker.query('ROLLBACK');
      blocker.release();
    }
    await until('the registry to be read again', async () => (await age()) < 1, 10_000, 50);
    await zero.close();
  });
});
