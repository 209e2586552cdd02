import { randomBytes, randomUUID } from 'node:crypto';
import { dropSchema, type Pool } from '@mdp/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProjectionStore } from '../src/settlement/projections.ts';
import { DATABASE_URL, ledgerPool, migrateLedgerDown, withLedgerBefore } from './ledger-db.ts';
import { byName, cells, DAYS, daily, liveRun, ProjectionHistory } from './projection-releases.ts';

// Migration 0017, the projection's last step: usage_route_daily (unread since 0015, unwritten since 0016)
// is dropped with 0015's trigger and functions, and a view keeps its name. 0015's ledgers still write the
// table, so the migration refuses while one is running. Each check compares the projection with what the
// log implies (from the events sent).

const schema = `ledger_urd_${randomBytes(5).toString('hex')}`;
const ACCOUNTS = Array.from({ length: 4 }, () => randomUUID());
const history = new ProjectionHistory();

/** The kind of relation usage_route_daily is ('r' a table, 'v' a view), and 0015's objects on it left. */
async function shape(pool: Pool): Promise<{ kind: string; triggers: number; functions: number }> {
  const { rows } = await pool.query<{ kind: string; triggers: number; functions: number }>(
    `SELECT (SELECT c.relkind::text FROM pg_class c WHERE c.oid = 'usage_route_daily'::regclass) AS kind,
            (SELECT count(*)::int FROM pg_trigger t
              WHERE t.tgrelid = 'usage_route_daily'::regclass AND NOT t.tgisinternal) AS triggers,
            (SELECT count(*)::int FROM pg_proc p
              WHERE p.pronamespace = current_schema()::regnamespace
                AND p.proname IN ('usage_cells_add', 'usage_route_daily_to_cells')) AS functions`,
  );
  return rows[0]!;
}

let pool: Pool;

beforeAll(async () => {
  await withLedgerBefore(schema, '0017', 'urd-before', async (before) => {
    for (const day of DAYS) await before.query('SELECT usage_events_ensure_partition($1::date)', [day]);
    await history.recordAs('0015', before, history.batch(30, 0, ACCOUNTS.slice(0, 3)));
    const events = history.batch(30, 4, ACCOUNTS);
    await new ProjectionStore(before).record(events);
    history.sent.push(...events);
  });
});

afterAll(async () => {
  await pool?.end();
  await dropSchema(DATABASE_URL, schema);
});

describe('usage_route_daily dropped (migration 0017)', () => {
  it('refuses while a ledger of 0015’s release is running, and changes nothing', async () => {
    await withLedgerBefore(schema, '0017', 'urd-guard', async (before) => {
      await liveRun(before, 0, '0016', 'urd');
      await liveRun(before, 1, '0015', 'urd');
    });
    await expect(ledgerPool(schema, 'urd-refused')).rejects.toThrow(
      /migration 0017 needs every ledger on migration 0016's release or later; still running: shard 1 of 4 \(quota-ledger-1@urd, release of 0015\)$/,
    );
    await withLedgerBefore(schema, '0017', 'urd-unchanged', async (after) => {
      expect(
        (await after.query(`SELECT count(*)::int AS n FROM pgmigrations WHERE name >= '0017'`)).rows[0],
      ).toEqual({ n: 0 });
      expect(await shape(after)).toEqual({ kind: 'r', triggers: 2, functions: 2 });
      expect(await cells(after)).toEqual(history.implied());
    });
  });

  it('refuses for a run of a release before 0015 too', async () => {
    await withLedgerBefore(schema, '0017', 'urd-guard', async (before) => {
      await before.query('UPDATE ledger_shard_runs SET ended_at = now() WHERE shard_count = 4 AND shard = 1');
      await liveRun(before, 2, null, 'urd');
    });
    await expect(ledgerPool(schema, 'urd-refused')).rejects.toThrow(
      /still running: shard 2 of 4 \(quota-ledger-2@urd, a release before 0015\)$/,
    );
  });

  it('goes ahead once no such run is live, and names the cells by the old table’s name', async () => {
    await withLedgerBefore(schema, '0017', 'urd-guard', async (before) => {
      // Killed, never ended: its row stays, no longer refreshed.
      await before.query(
        `UPDATE ledger_shard_runs SET last_seen = now() - interval '61 seconds' WHERE shard_count = 4 AND shard = 2`,
      );
    });
    pool = await ledgerPool(schema, 'urd');
    expect(await shape(pool)).toEqual({ kind: 'v', triggers: 0, functions: 0 });
    expect(await cells(pool)).toEqual(history.implied());
    expect(await byName(pool)).toEqual(history.implied());
    expect(await daily(pool)).toEqual(history.impliedDaily());
  });

  it('records as before, and 0015’s statement (the reason for the refusal) fails whole', async () => {
    const store = new ProjectionStore(pool);
    const events = history.batch(30, 3, [ACCOUNTS[1]!, ACCOUNTS[3]!]);
    expect((await store.record(events)).recorded).toBe(events.length);
    history.sent.push(...events);
    expect(await cells(pool)).toEqual(history.implied());
    expect(await byName(pool)).toEqual(history.implied());
    expect(await store.rebuildDifferences()).toEqual([]);
    await expect(history.recordAs('0015', pool, history.batch(10, 0, ACCOUNTS))).rejects.toThrow(
      /usage_route_daily/,
    );
    expect(await cells(pool)).toEqual(history.implied());
    expect(await store.rebuildDifferences()).toEqual([]);
  });

  it('migrates down to 0016’s schema, where 0015’s and earlier releases’ writes reach the cells again', async () => {
    await migrateLedgerDown(schema, '0017');
    expect(await shape(pool)).toEqual({ kind: 'r', triggers: 2, functions: 2 });
    expect(await byName(pool)).toEqual([]);
    await history.recordAs('0015', pool, history.batch(10, 2, ACCOUNTS));
    expect(await cells(pool)).toEqual(history.implied());
    // Written by name only, the trigger carries it to the cells: charges, inserted and added to rows 0015's
    // statement wrote. (Not voids: against the table 0016 emptied, a pre-0015 ledger's are lost, which is
    // why 0016 refuses to run beside one; the trigger is back for 0016's own down migration.)
    await history.recordAs('0014', pool, history.batch(10, 0, ACCOUNTS));
    expect(await cells(pool)).toEqual(history.implied());
    expect(await daily(pool)).toEqual(history.impliedDaily());
    const store = new ProjectionStore(pool);
    const events = history.batch(10, 2, ACCOUNTS);
    await store.record(events);
    history.sent.push(...events);
    expect(await cells(pool)).toEqual(history.implied());
    expect(await store.rebuildDifferences()).toEqual([]);
  });
});
