import { randomBytes, randomUUID } from 'node:crypto';
import { dropSchema, type Pool } from '@mdp/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CODE_LEVEL, refresh } from '../src/admission/registry-tables.ts';
import { ProjectionStore } from '../src/settlement/projections.ts';
import { DATABASE_URL, ledgerPoolBefore, migrateLedgerDown, withLedgerBefore } from './ledger-db.ts';
import { byName, cells, DAYS, ProjectionHistory } from './projection-releases.ts';

// Migration 0015 keys the projection by the log's numbers (usage_cells) while the release before, which
// writes and reads usage_route_daily by name, may still be running (a rollout) or run again (a rollback).
// Whichever of the two releases records a batch, both tables must end up holding the same figures, and
// those the log implies: that is what this file checks, with each release's own statement, on the schema
// as 0015 leaves it (0016, the step after, is usage-cells-only.int.test.ts).

const schema = `ledger_uc_${randomBytes(5).toString('hex')}`;
/** The first three have figures before the migration; the others first appear after it (new rows). */
const ACCOUNTS = Array.from({ length: 5 }, () => randomUUID());
const history = new ProjectionHistory();

let pool: Pool;

beforeAll(async () => {
  await withLedgerBefore(schema, '0015', 'uc-before', async (before) => {
    for (const day of DAYS) await before.query('SELECT usage_events_ensure_partition($1::date)', [day]);
    await history.recordAs('0014', before, history.batch(40, 0, ACCOUNTS.slice(0, 3)));
    await history.recordAs('0014', before, history.batch(20, 4, ACCOUNTS.slice(0, 3)));
  });
  pool = await ledgerPoolBefore(schema, '0016', 'uc');
});

afterAll(async () => {
  await pool?.end();
  await dropSchema(DATABASE_URL, schema);
});

describe('the projection by numbers beside the one by names (migration 0015)', () => {
  it('starts with every figure the earlier release recorded', async () => {
    expect(history.implied().length).toBeGreaterThan(10);
    expect(await byName(pool)).toEqual(history.implied());
    expect(await cells(pool)).toEqual(history.implied());
  });

  it('follows batches the earlier release records after the migration, charges and voids', async () => {
    // An account new to both tables: the earlier release inserts its rows.
    await history.recordAs('0014', pool, history.batch(30, 3, [ACCOUNTS[0]!, ACCOUNTS[3]!]));
    expect(await byName(pool)).toEqual(history.implied());
    expect(await cells(pool)).toEqual(history.implied());
  });

  it('keeps the earlier release’s table equal to what 0015’s release records, and reads the cells back', async () => {
    const store = new ProjectionStore(pool);
    await history.recordAs('0015', pool, history.batch(30, 5, [ACCOUNTS[1]!, ACCOUNTS[4]!]));
    expect(await cells(pool)).toEqual(history.implied());
    expect(await byName(pool)).toEqual(history.implied());
    expect(await store.rebuildDifferences()).toEqual([]);
    // The day and month counts admission loads, by number, agree with the rows by name: an account the
    // earlier release recorded, and one only 0015's release has.
    for (const account of [ACCOUNTS[3]!, ACCOUNTS[4]!]) {
      const units = (day: string | null, via: string) =>
        history
          .implied()
          .map((r) => r.split(' '))
          .filter((r) => r[0] === account && (day === null || r[1] === day) && r[3] === via)
          .reduce((n, r) => n + Number(r[4]), 0);
      expect(units(null, 'rest') + units(null, 'mcp')).toBeGreaterThan(0);
      expect((await store.charged([account], '2026-03-14', '2026-03')).get(account)).toEqual({
        day: { rest: units('2026-03-14', 'rest'), mcp: units('2026-03-14', 'mcp') },
        month: { rest: units(null, 'rest'), mcp: units(null, 'mcp') },
      });
    }
    // An id that is no account (not a uuid) has nothing charged, and does not fail the others' read.
    const mixed = await store.charged(['not-an-account', ACCOUNTS[4]!], '2026-03-14', '2026-03');
    expect(mixed.get('not-an-account')).toEqual({ day: { rest: 0, mcp: 0 }, month: { rest: 0, mcp: 0 } });
    expect(mixed.get(ACCOUNTS[4]!)).toEqual(
      (await store.charged([ACCOUNTS[4]!], '2026-03-14', '2026-03')).get(ACCOUNTS[4]!),
    );
  });

  it('a batch of either release after the other, again', async () => {
    await history.recordAs('0014', pool, history.batch(10, 2, ACCOUNTS));
    await history.recordAs('0015', pool, history.batch(10, 2, ACCOUNTS));
    expect(await byName(pool)).toEqual(history.implied());
    expect(await cells(pool)).toEqual(history.implied());
  });

  it('knows each ledger run’s release: 0015’s or later by its code level, an earlier one’s as none', async () => {
    const me = { shard: 0, count: 1, holder: 'quota-ledger-0@uc' };
    const runs = { standIn: null, reliefs: [], admitting: true, announce: false };
    await refresh(pool, me, runs, new Map(), 10_000);
    const level = async () =>
      (await pool.query('SELECT code_level FROM ledger_shard_runs WHERE shard_count = 1 AND shard = 0'))
        .rows[0];
    expect(await level()).toEqual({ code_level: CODE_LEVEL });
    // A refresh of a release before 0015 (its statement names no level), then this code's again.
    await pool.query(
      'UPDATE ledger_shard_runs SET last_seen = now(), holder = $1 WHERE shard_count = 1 AND shard = 0',
      [me.holder],
    );
    expect(await level()).toEqual({ code_level: null });
    await refresh(pool, me, runs, new Map(), 10_000);
    expect(await level()).toEqual({ code_level: CODE_LEVEL });
    // A run's end is not a refresh: the release that refreshed it last is kept.
    await pool.query('UPDATE ledger_shard_runs SET ended_at = now() WHERE shard_count = 1 AND shard = 0');
    expect(await level()).toEqual({ code_level: CODE_LEVEL });
  });

  it('migrates down with the earlier release’s table whole, and that release records on', async () => {
    await migrateLedgerDown(schema, '0015');
    const { rows } = await pool.query(`SELECT to_regclass('usage_cells') IS NULL AS gone`);
    expect(rows[0]).toEqual({ gone: true });
    expect(await byName(pool)).toEqual(history.implied());
    await history.recordAs('0014', pool, history.batch(10, 3, ACCOUNTS));
    expect(await byName(pool)).toEqual(history.implied());
  });
});
