import { randomBytes, randomUUID } from 'node:crypto';
import { dropSchema, type Pool } from '@mdp/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProjectionStore } from '../src/settlement/projections.ts';
import { DATABASE_URL, ledgerPoolBefore, migrateLedgerDown, withLedgerBefore } from './ledger-db.ts';
import { byName, cells, DAYS, daily, liveRun, ProjectionHistory } from './projection-releases.ts';

// Migration 0016, the projection's second step: this release's batch statement writes usage_cells only.
// Only a ledger of a release before 0015 reads usage_route_daily, so the migration refuses while one is
// running; 0015's release (it reads the cells, writes both) may go on recording during the rollout and
// after a rollback. Each check compares the tables with what the log implies (from the events sent).

const schema = `ledger_uco_${randomBytes(5).toString('hex')}`;
const ACCOUNTS = Array.from({ length: 4 }, () => randomUUID());
const history = new ProjectionHistory();

let pool: Pool;

beforeAll(async () => {
  await withLedgerBefore(schema, '0016', 'uco-before', async (before) => {
    for (const day of DAYS) await before.query('SELECT usage_events_ensure_partition($1::date)', [day]);
    await history.recordAs('0014', before, history.batch(30, 0, ACCOUNTS.slice(0, 2)));
    await history.recordAs('0015', before, history.batch(30, 4, ACCOUNTS.slice(0, 3)));
  });
});

afterAll(async () => {
  await pool?.end();
  await dropSchema(DATABASE_URL, schema);
});

describe('the projection by numbers alone (migration 0016)', () => {
  it('refuses while a ledger of a release before 0015 is running, and changes nothing', async () => {
    await withLedgerBefore(schema, '0016', 'uco-guard', async (before) => {
      await liveRun(before, 0, '0015', 'uco');
      await liveRun(before, 1, null, 'uco');
    });
    await expect(ledgerPoolBefore(schema, '0017', 'uco-refused')).rejects.toThrow(
      /migration 0016 needs every ledger on migration 0015's release or later; still running: shard 1 of 4 \(quota-ledger-1@uco, a release before 0015\)$/,
    );
    await withLedgerBefore(schema, '0016', 'uco-unchanged', async (after) => {
      expect(
        (await after.query(`SELECT count(*)::int AS n FROM pgmigrations WHERE name >= '0016'`)).rows[0],
      ).toEqual({ n: 0 });
      expect(await byName(after)).toEqual(history.implied());
    });
  });

  it('goes ahead once that run has ended, or was last seen over a minute ago', async () => {
    await withLedgerBefore(schema, '0016', 'uco-guard', async (before) => {
      await before.query('UPDATE ledger_shard_runs SET ended_at = now() WHERE shard_count = 4 AND shard = 1');
      // Killed, never ended: its row stays, no longer refreshed.
      await liveRun(before, 2, null, 'uco');
      await before.query(
        `UPDATE ledger_shard_runs SET last_seen = now() - interval '61 seconds' WHERE shard_count = 4 AND shard = 2`,
      );
    });
    pool = await ledgerPoolBefore(schema, '0017', 'uco');
    // The old table is emptied (it is the projection no more); the daily view sums the cells.
    expect(await byName(pool)).toEqual([]);
    expect(await cells(pool)).toEqual(history.implied());
    expect(await daily(pool)).toEqual(history.impliedDaily());
  });

  it('records into the cells only, and reads them back', async () => {
    const store = new ProjectionStore(pool);
    // An account new to the projection, and voids of charges 0014's and 0015's releases recorded.
    const events = history.batch(30, 3, [ACCOUNTS[1]!, ACCOUNTS[3]!]);
    const result = await store.record(events);
    history.sent.push(...events);
    expect(result.recorded).toBe(events.length);
    expect(await cells(pool)).toEqual(history.implied());
    expect(await byName(pool)).toEqual([]);
    expect(await daily(pool)).toEqual(history.impliedDaily());
    expect(await store.rebuildDifferences()).toEqual([]);
    const month = (account: string) =>
      history
        .impliedDaily()
        .map((r) => r.split(' '))
        .filter((r) => r[0] === account)
        .reduce((n, r) => n + Number(r[3]), 0);
    const charged = (await store.charged([ACCOUNTS[3]!], '2026-03-14', '2026-03')).get(ACCOUNTS[3]!)!;
    expect(month(ACCOUNTS[3]!)).toBeGreaterThan(0);
    expect(charged.month.rest + charged.month.mcp).toBe(month(ACCOUNTS[3]!));
  });

  it('lets a ledger of 0015’s release record on, as while pods roll or after a rollback', async () => {
    await history.recordAs('0015', pool, history.batch(20, 5, ACCOUNTS));
    expect(await cells(pool)).toEqual(history.implied());
    expect(await daily(pool)).toEqual(history.impliedDaily());
    // Then this release's, then 0015's again, each voiding what the other recorded.
    const store = new ProjectionStore(pool);
    const events = history.batch(10, 2, ACCOUNTS);
    await store.record(events);
    history.sent.push(...events);
    await history.recordAs('0015', pool, history.batch(10, 2, ACCOUNTS));
    expect(await cells(pool)).toEqual(history.implied());
    expect(await store.rebuildDifferences()).toEqual([]);
  });

  it('migrates down to 0015’s two tables, equal again, and a ledger before 0015 records on', async () => {
    await migrateLedgerDown(schema, '0016');
    expect(await byName(pool)).toEqual(history.implied());
    expect(await daily(pool)).toEqual(history.impliedDaily());
    await history.recordAs('0014', pool, history.batch(10, 3, ACCOUNTS));
    expect(await byName(pool)).toEqual(history.implied());
    expect(await cells(pool)).toEqual(history.implied());
  });
});
