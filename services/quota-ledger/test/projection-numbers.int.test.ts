import { randomBytes, randomUUID } from 'node:crypto';
import { dropSchema, type Pool } from '@mdp/db';
import { newRequestId } from '@mdp/usage';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ProjectionStore } from '../src/settlement/projections.ts';
import { DATABASE_URL, ledgerPool, ledgerPoolBefore, migrateLedgerDown } from './ledger-db.ts';

// Migration 0015 keys the projection by the log's numbers. A projection of migration 0014 is moved over
// whole (an account the log has not numbered yet gets its number), reads the same through the views and
// the store, goes on being moved by batches, and down again gives back the 0014 table.

const schema = `ledger_pn_${randomBytes(5).toString('hex')}`;
const A = randomUUID();
/** An account with figures in the projection and no number yet in usage_accounts. */
const B = randomUUID();

/** The 0014 projection: charged units by account, IST day, route and interface. */
const ROWS = [
  { account_id: A, day: '2026-03-14', route: 'getStockQuote', interface: 'rest', charged: 3 },
  { account_id: A, day: '2026-03-14', route: 'getStockQuote', interface: 'mcp', charged: 2 },
  { account_id: A, day: '2026-03-15', route: 'searchStocks', interface: 'rest', charged: 5 },
  { account_id: B, day: '2026-03-15', route: 'getStockQuote', interface: 'rest', charged: 7 },
];
const byKey = (x: { account_id: string; day: string; route: string; interface: string }) =>
  `${x.account_id} ${x.day} ${x.route} ${x.interface}`;
const sorted = <T extends (typeof ROWS)[number]>(rows: T[]) =>
  [...rows].sort((x, y) => (byKey(x) < byKey(y) ? -1 : 1));

let pool: Pool;

/** A schema at migration 0014 holding `ROWS`, A numbered (it has events), B not. */
async function projection0014(): Promise<void> {
  const before = await ledgerPoolBefore(schema, '0015', 'pn');
  try {
    await before.query('INSERT INTO usage_accounts (account_id) VALUES ($1)', [A]);
    for (const r of ROWS)
      await before.query(
        'INSERT INTO usage_route_daily (account_id, day, route, interface, charged) VALUES ($1, $2, $3, $4, $5)',
        [r.account_id, r.day, r.route, r.interface, r.charged],
      );
  } finally {
    await before.end();
  }
}

const projection = async () =>
  (
    await pool.query(
      "SELECT account_id, to_char(day, 'YYYY-MM-DD') AS day, route, interface, charged FROM usage_route_daily",
    )
  ).rows;

beforeAll(async () => {
  await projection0014();
  pool = await ledgerPool(schema, 'pn');
});

afterAll(async () => {
  await pool?.end();
  await dropSchema(DATABASE_URL, schema);
});

it('moves the 0014 projection over whole, each account and route by its number', async () => {
  expect(sorted(await projection())).toEqual(sorted(ROWS));
  const { rows } = await pool.query(
    `SELECT count(*)::int AS cells, count(DISTINCT c.account)::int AS accounts,
            bool_and(a.account_id IS NOT NULL AND r.name IS NOT NULL) AS named
       FROM usage_cells c LEFT JOIN usage_accounts a ON a.id = c.account LEFT JOIN usage_routes r ON r.id = c.route`,
  );
  expect(rows[0]).toEqual({ cells: ROWS.length, accounts: 2, named: true });
  const daily = await pool.query(
    "SELECT to_char(day, 'YYYY-MM-DD') AS day, interface, charged FROM usage_daily WHERE account_id = $1 ORDER BY 1, 2",
    [A],
  );
  expect(daily.rows).toEqual([
    { day: '2026-03-14', interface: 'mcp', charged: 2 },
    { day: '2026-03-14', interface: 'rest', charged: 3 },
    { day: '2026-03-15', interface: 'rest', charged: 5 },
  ]);
});

it('reads and moves the same figures by number: the day and month counts, and a batch on top', async () => {
  const store = new ProjectionStore(pool);
  const counts = await store.charged([A, B, 'not-an-account'], '2026-03-15', '2026-03');
  expect(Object.fromEntries(counts)).toEqual({
    [A]: { day: { rest: 5, mcp: 0 }, month: { rest: 8, mcp: 2 } },
    [B]: { day: { rest: 7, mcp: 0 }, month: { rest: 7, mcp: 0 } },
    'not-an-account': { day: { rest: 0, mcp: 0 }, month: { rest: 0, mcp: 0 } },
  });
  await pool.query("SELECT usage_events_ensure_partition('2026-03-15')");
  const charge = (account_id: string, via: 'rest' | 'mcp') => ({
    v: 1 as const,
    request_id: newRequestId(),
    account_id,
    kind: 'charged' as const,
    admitted_at_ms: Date.parse('2026-03-15T05:00:00Z'),
    settled_at_ms: Date.parse('2026-03-15T05:00:01Z'),
    route: 'getStockQuote',
    status: 200,
    interface: via,
  });
  const result = await store.record([charge(B, 'rest'), charge(B, 'mcp'), charge(A, 'rest')]);
  expect(result.recorded).toBe(3);
  const deltas = [...result.deltas].sort((x, y) =>
    `${x.accountId}${x.via}`.localeCompare(`${y.accountId}${y.via}`),
  );
  const expected = [
    { accountId: A, day: '2026-03-15', month: '2026-03', via: 'rest', delta: 1 },
    { accountId: B, day: '2026-03-15', month: '2026-03', via: 'mcp', delta: 1 },
    { accountId: B, day: '2026-03-15', month: '2026-03', via: 'rest', delta: 1 },
  ].sort((x, y) => `${x.accountId}${x.via}`.localeCompare(`${y.accountId}${y.via}`));
  expect(deltas).toEqual(expected);
  expect((await store.charged([B], '2026-03-15', '2026-03')).get(B)).toEqual({
    day: { rest: 8, mcp: 1 },
    month: { rest: 8, mcp: 1 },
  });
});

it('migrates down to the 0014 projection with every figure', async () => {
  await migrateLedgerDown(schema, '0015');
  const { rows } = await pool.query(
    `SELECT to_regclass('usage_cells') IS NULL AS gone,
            (SELECT relkind::text FROM pg_class WHERE oid = to_regclass('usage_route_daily')) AS kind`,
  );
  expect(rows[0]).toEqual({ gone: true, kind: 'r' });
  // The batch above: one more on B's REST row, and two rows it made.
  const moved = ROWS.map((r) =>
    r.account_id === B && r.interface === 'rest' ? { ...r, charged: r.charged + 1 } : r,
  );
  const added = [
    { account_id: B, day: '2026-03-15', route: 'getStockQuote', interface: 'mcp', charged: 1 },
    { account_id: A, day: '2026-03-15', route: 'getStockQuote', interface: 'rest', charged: 1 },
  ];
  expect(sorted(await projection())).toEqual(sorted([...moved, ...added]));
});
