import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dropSchema, type Pool } from '@mdp/db';
import { newRequestId, type SettlementEvent } from '@mdp/usage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CODE_LEVEL, refresh } from '../src/admission/registry-tables.ts';
import { logColumns, logRow, uniqueLogRows } from '../src/log/usage-log.ts';
import { ProjectionStore } from '../src/settlement/projections.ts';
import { DATABASE_URL, ledgerPool, ledgerPoolBefore, migrateLedgerDown } from './ledger-db.ts';

// Migration 0015 keys the projection by the log's numbers (usage_cells) while the release before, which
// writes and reads usage_route_daily by name, may still be running (a rollout) or run again (a rollback).
// Whichever release records a batch, both tables must end up holding the same figures, and those the
// log implies: that is what this file checks, with the earlier release's own statement.

const OLD_RECORD = readFileSync(new URL('./fixtures/record-batch-0014.sql', import.meta.url), 'utf8');

const schema = `ledger_uc_${randomBytes(5).toString('hex')}`;
/** The first three have figures before the migration; the others first appear after it (new rows). */
const ACCOUNTS = Array.from({ length: 5 }, () => randomUUID());
const ROUTES = ['getStockQuote', 'searchStocks', 'getIndexQuote'];
const DAYS = ['2026-03-13', '2026-03-14'];

/** Every event recorded so far, by either release: what the log implies is computed from these. */
const sent: SettlementEvent[] = [];
let nextAt = Date.parse('2026-03-13T04:00:00Z');

/**
 * `n` charges spread over `accounts`, the routes, the interfaces and both IST days; and a void of every
 * `voidEvery`th event sent so far.
 */
function batch(n: number, voidEvery: number, accounts: readonly string[]): SettlementEvent[] {
  const events: SettlementEvent[] = [];
  for (let i = 0; i < n; i++) {
    nextAt += 61_000;
    const day = i % 2 === 0 ? Date.parse('2026-03-13T06:00:00Z') : Date.parse('2026-03-14T06:00:00Z');
    const charge: SettlementEvent = {
      v: 1,
      request_id: newRequestId(),
      account_id: accounts[i % accounts.length]!,
      kind: 'charged',
      admitted_at_ms: day + (nextAt % 3_600_000),
      settled_at_ms: day + (nextAt % 3_600_000) + 5,
      route: ROUTES[Math.floor(i / 2) % ROUTES.length]!,
      status: 200,
      interface: Math.floor(i / 6) % 2 === 0 ? 'rest' : 'mcp',
    };
    events.push(charge);
  }
  // Voids of charges recorded in earlier batches: the projection's figures go down.
  if (voidEvery > 0)
    for (const [i, e] of sent.entries())
      if (
        i % voidEvery === 0 &&
        e.kind === 'charged' &&
        !sent.some((v) => v.kind === 'voided' && v.request_id === e.request_id)
      )
        events.push({ ...e, kind: 'voided', status: 503 });
  return events;
}

/** What the log implies: charged units by account, IST day, route and interface (a charge not voided). */
function implied(): string[] {
  const voided = new Set(sent.filter((e) => e.kind === 'voided').map((e) => e.request_id));
  const cells = new Map<string, number>();
  for (const e of sent) {
    if (e.kind !== 'charged' || voided.has(e.request_id)) continue;
    const day = new Date(e.admitted_at_ms + 19_800_000).toISOString().slice(0, 10);
    const key = `${e.account_id} ${day} ${e.route} ${e.interface ?? 'rest'}`;
    cells.set(key, (cells.get(key) ?? 0) + 1);
  }
  return [...cells].map(([k, n]) => `${k} ${n}`).sort();
}

/** The earlier release's table, as that release reads it. */
async function byName(pool: Pool): Promise<string[]> {
  const { rows } = await pool.query<{ row: string }>(
    `SELECT account_id || ' ' || to_char(day, 'YYYY-MM-DD') || ' ' || route || ' ' || interface || ' ' || charged AS row
       FROM usage_route_daily WHERE charged > 0`,
  );
  return rows.map((r) => r.row).sort();
}

/** usage_cells, named through the dictionaries. */
async function cells(pool: Pool): Promise<string[]> {
  const { rows } = await pool.query<{ row: string }>(
    `SELECT a.account_id::text || ' ' || to_char(c.day, 'YYYY-MM-DD') || ' ' || r.name || ' ' ||
            CASE c.interface WHEN 'm' THEN 'mcp' ELSE 'rest' END || ' ' || c.charged AS row
       FROM usage_cells c JOIN usage_accounts a ON a.id = c.account JOIN usage_routes r ON r.id = c.route
      WHERE c.charged > 0`,
  );
  return rows.map((r) => r.row).sort();
}

/** Records `events` as a ledger of the release before 0015 does: its own statement, its dictionaries. */
async function recordAsBefore(pool: Pool, events: SettlementEvent[]): Promise<void> {
  const number = async (table: 'usage_routes' | 'usage_accounts', column: string, keys: string[]) => {
    await pool.query(
      `INSERT INTO ${table} (${column}) SELECT unnest($1::text[])${column === 'account_id' ? '::uuid' : ''} ON CONFLICT DO NOTHING`,
      [keys],
    );
    const { rows } = await pool.query<{ k: string; id: number }>(
      `SELECT ${column}::text AS k, id FROM ${table} WHERE ${column}::text = ANY($1::text[])`,
      [keys],
    );
    return new Map(rows.map((r) => [r.k, r.id]));
  };
  const routes = await number('usage_routes', 'name', ROUTES);
  const accounts = await number('usage_accounts', 'account_id', ACCOUNTS);
  const rows = uniqueLogRows(events.map((e) => logRow(e, routes.get(e.route)!, accounts.get(e.account_id)!)));
  await pool.query(OLD_RECORD, [...logColumns(rows), null, null, null]);
  sent.push(...events);
}

let pool: Pool;

beforeAll(async () => {
  const before = await ledgerPoolBefore(schema, '0015', 'uc-before');
  try {
    for (const day of DAYS) await before.query('SELECT usage_events_ensure_partition($1::date)', [day]);
    await recordAsBefore(before, batch(40, 0, ACCOUNTS.slice(0, 3)));
    await recordAsBefore(before, batch(20, 4, ACCOUNTS.slice(0, 3)));
  } finally {
    await before.end();
  }
  pool = await ledgerPool(schema, 'uc');
});

afterAll(async () => {
  await pool?.end();
  await dropSchema(DATABASE_URL, schema);
});

describe('the projection by numbers beside the one by names (migration 0015)', () => {
  it('starts with every figure the earlier release recorded', async () => {
    expect(implied().length).toBeGreaterThan(10);
    expect(await byName(pool)).toEqual(implied());
    expect(await cells(pool)).toEqual(implied());
  });

  it('follows batches the earlier release records after the migration, charges and voids', async () => {
    // An account new to both tables: the earlier release inserts its rows.
    await recordAsBefore(pool, batch(30, 3, [ACCOUNTS[0]!, ACCOUNTS[3]!]));
    expect(await byName(pool)).toEqual(implied());
    expect(await cells(pool)).toEqual(implied());
  });

  it('keeps the earlier release’s table equal to what this release records, and reads it back', async () => {
    const store = new ProjectionStore(pool);
    const events = batch(30, 5, [ACCOUNTS[1]!, ACCOUNTS[4]!]);
    const result = await store.record(events);
    sent.push(...events);
    expect(result.recorded).toBe(events.length);
    expect(await cells(pool)).toEqual(implied());
    expect(await byName(pool)).toEqual(implied());
    expect(await store.rebuildDifferences()).toEqual([]);
    // The day and month counts admission loads, by number, agree with the rows by name: an account the
    // earlier release recorded, and one only this release has.
    for (const account of [ACCOUNTS[3]!, ACCOUNTS[4]!]) {
      const units = (day: string | null, via: string) =>
        implied()
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
    await recordAsBefore(pool, batch(10, 2, ACCOUNTS));
    const store = new ProjectionStore(pool);
    const events = batch(10, 2, ACCOUNTS);
    await store.record(events);
    sent.push(...events);
    expect(await byName(pool)).toEqual(implied());
    expect(await cells(pool)).toEqual(implied());
  });

  it('knows each ledger run’s release: this one’s by its code level, an earlier one’s as none', async () => {
    const me = { shard: 0, count: 1, holder: 'quota-ledger-0@uc' };
    const runs = { standIn: null, reliefs: [], admitting: true, announce: false };
    await refresh(pool, me, runs, new Map(), 10_000);
    const level = async () =>
      (await pool.query('SELECT code_level FROM ledger_shard_runs WHERE shard_count = 1 AND shard = 0'))
        .rows[0];
    expect(await level()).toEqual({ code_level: CODE_LEVEL });
    // A refresh of the release before (its statement names no level), then this release's again.
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
    expect(await byName(pool)).toEqual(implied());
    await recordAsBefore(pool, batch(10, 3, ACCOUNTS));
    expect(await byName(pool)).toEqual(implied());
  });
});
