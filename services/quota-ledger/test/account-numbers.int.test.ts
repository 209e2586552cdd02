import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { dropSchema, type Pool } from '@mdp/db';
import { newRequestId } from '@mdp/usage';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type CanonicalEvent, canonicalLine } from '../src/log/usage-day.ts';
import { logUuid } from '../src/log/usage-log.ts';
import { sealDifferences } from '../src/log/usage-seals.ts';
import { ProjectionStore } from '../src/settlement/projections.ts';
import { DATABASE_URL, ledgerPool, ledgerPoolBefore, migrateLedgerDown } from './ledger-db.ts';

// Migration 0006 numbers the log's accounts. A log of migration 0005 is moved over whole: every event in
// its IST day's partition, a day sealed before still equal to its seal (count, digest and figures), a
// request id two accounts shared (ids clients chose before the gateway made them) still two requests;
// rows are 64 bytes at most where they were 72; and down again gives back the 0005 log.

const schema = `ledger_an_${randomBytes(5).toString('hex')}`;
const A = randomUUID();
const B = randomUUID();
const SHARED = logUuid('client-chosen-1');
const at = (iso: string) => Date.parse(iso);

/** The 0005 log's events, as canonical lines name them. */
const events: CanonicalEvent[] = [
  {
    request_id: newRequestId(),
    account_id: A,
    kind: 'charged',
    admitted_at_ms: at('2026-03-14T04:00:00Z'),
    route: 'getStockQuote',
    status: 200,
    interface: 'rest',
  },
  {
    request_id: SHARED,
    account_id: A,
    kind: 'charged',
    admitted_at_ms: at('2026-03-14T05:00:00Z'),
    route: 'getStockQuote',
    status: 200,
    interface: 'rest',
  },
  {
    request_id: SHARED,
    account_id: B,
    kind: 'charged',
    admitted_at_ms: at('2026-03-14T05:00:00Z'),
    route: 'searchStocks',
    status: 200,
    interface: 'mcp',
  },
  {
    request_id: SHARED,
    account_id: B,
    kind: 'voided',
    admitted_at_ms: at('2026-03-14T05:00:00Z'),
    route: 'searchStocks',
    status: 200,
    interface: 'mcp',
  },
  {
    request_id: newRequestId(),
    account_id: B,
    kind: 'refunded',
    admitted_at_ms: at('2026-03-14T06:00:00Z'),
    route: 'getStockQuote',
    status: 404,
    interface: 'rest',
  },
  // 18:29:59 UTC is 23:59:59 IST: still the 14th; 18:30 is the 15th.
  {
    request_id: newRequestId(),
    account_id: A,
    kind: 'charged',
    admitted_at_ms: at('2026-03-14T18:29:59Z'),
    route: 'getStockQuote',
    status: 200,
    interface: 'rest',
  },
  {
    request_id: newRequestId(),
    account_id: A,
    kind: 'charged',
    admitted_at_ms: at('2026-03-14T18:30:00Z'),
    route: 'getStockQuote',
    status: 200,
    interface: 'rest',
  },
];
const ON_14TH = events.slice(0, 6);
const order = (x: CanonicalEvent, y: CanonicalEvent) =>
  `${x.request_id} ${x.account_id} ${x.kind}` < `${y.request_id} ${y.account_id} ${y.kind}` ? -1 : 1;

let pool: Pool;

/** A schema at migration 0005 holding `events`, the 14th sealed as the ledger seals a day. */
async function log0005(): Promise<void> {
  const before = await ledgerPoolBefore(schema, '0006', 'an');
  try {
    await before.query(
      "SELECT usage_events_ensure_partition(d::date) FROM unnest('{2026-03-14,2026-03-15}'::text[]) d",
    );
    await before.query("INSERT INTO usage_routes (name) VALUES ('getStockQuote'), ('searchStocks')");
    for (const e of events)
      await before.query(
        `INSERT INTO usage_events (request_id, account_id, admitted_at, route, status, kind, interface)
         SELECT $1, $2, to_timestamp($3 / 1000.0), r.id, $5, $6::"char", $7::"char" FROM usage_routes r WHERE r.name = $4`,
        [e.request_id, e.account_id, e.admitted_at_ms, e.route, e.status, e.kind[0], e.interface[0]],
      );
    const lines = [...ON_14TH].sort(order).map(canonicalLine);
    await before.query('INSERT INTO usage_seals (day, events, sha256) VALUES ($1, $2, $3)', [
      '2026-03-14',
      lines.length,
      createHash('sha256').update(lines.join('')).digest('hex'),
    ]);
    await before.query(
      `INSERT INTO usage_seal_figures (day, account_id, route, interface, events, charged) VALUES
         ('2026-03-14', $1, 'getStockQuote', 'rest', 3, 3),
         ('2026-03-14', $2, 'searchStocks', 'mcp', 2, 0),
         ('2026-03-14', $2, 'getStockQuote', 'rest', 1, 0)`,
      [A, B],
    );
    const { rows } = await before.query('SELECT max(pg_column_size(e.*))::int AS bytes FROM usage_events e');
    expect(rows[0].bytes).toBeGreaterThan(64);
  } finally {
    await before.end();
  }
}

beforeAll(async () => {
  await log0005();
  pool = await ledgerPool(schema, 'an');
});

afterAll(async () => {
  await pool?.end();
  await dropSchema(DATABASE_URL, schema);
});

it('moves the 0005 log over whole: every event in its day, the sealed day equal to its seal', async () => {
  const { rows } = await pool.query(
    `SELECT e.tableoid::regclass::text AS part, e.request_id::text, a.account_id::text, e.kind
       FROM usage_events e JOIN usage_accounts a ON a.id = e.account ORDER BY 1, 2, 3, 4`,
  );
  const expected = events
    .map((e) => ({
      part: e.admitted_at_ms < at('2026-03-14T18:30:00Z') ? 'usage_events_20260314' : 'usage_events_20260315',
      request_id: e.request_id,
      account_id: e.account_id,
      kind: e.kind[0],
    }))
    .sort((x, y) =>
      `${x.part} ${x.request_id} ${x.account_id} ${x.kind}` <
      `${y.part} ${y.request_id} ${y.account_id} ${y.kind}`
        ? -1
        : 1,
    );
  expect(rows).toEqual(expected);
  expect(await sealDifferences(pool)).toEqual([]);
  // Two accounts, one number each.
  const { rows: accounts } = await pool.query(
    'SELECT count(*)::int AS n, count(DISTINCT id)::int AS ids FROM usage_accounts',
  );
  expect(accounts[0]).toEqual({ n: 2, ids: 2 });
});

it('keeps a row to 64 bytes, and the request key within its account', async () => {
  const { rows } = await pool.query('SELECT max(pg_column_size(e.*))::int AS bytes FROM usage_events e');
  expect(rows[0].bytes).toBeLessThanOrEqual(64);
  // The same request id under another account is another request; under its own, a duplicate.
  const store = new ProjectionStore(pool);
  const again = (account: string) => ({
    v: 1 as const,
    request_id: SHARED,
    account_id: account,
    kind: 'charged' as const,
    admitted_at_ms: at('2026-03-15T05:00:00Z'),
    settled_at_ms: at('2026-03-15T05:00:01Z'),
    route: 'getStockQuote',
    status: 200,
  });
  const C = randomUUID();
  expect((await store.record([again(A), again(C)])).recorded).toBe(2);
  expect((await store.record([again(A), again(C)])).recorded).toBe(0);
  const { rows: numbers } = await pool.query(
    'SELECT account_id::text, id FROM usage_accounts WHERE account_id = ANY($1::uuid[]) ORDER BY id',
    [[A, B, C]],
  );
  expect(numbers.map((r) => r.account_id)).toEqual([...[A, B].sort(), C]);
});

it('migrates down to the 0005 log with every event', async () => {
  await migrateLedgerDown(schema, '0006');
  const { rows } = await pool.query(
    `SELECT count(*)::int AS n, count(DISTINCT account_id)::int AS accounts,
            to_regclass('usage_accounts') IS NULL AS gone FROM usage_events`,
  );
  expect(rows[0]).toEqual({ n: events.length + 2, accounts: 3, gone: true });
});
