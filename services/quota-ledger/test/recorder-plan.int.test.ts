import { randomBytes } from 'node:crypto';
import { dropSchema, type Pool } from '@mdp/db';
import { newRequestId, type SettlementEvent } from '@mdp/usage';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { logColumns, logRow } from '../src/log/usage-log.ts';
import { openRecorder, ProjectionStore } from '../src/settlement/projections.ts';
import { DATABASE_URL, ledgerPool } from './ledger-db.ts';

// The batch statement is named, so its recorder connection keeps the plan it made on the log as it
// was then. Here that plan is made on a log analysed while empty (as a database-wide ANALYZE leaves a
// new ledger), then the log grows: the kept plan must still find earlier events by index.

const schema = `ledger_plan_${randomBytes(5).toString('hex')}`;
let pool: Pool;
let recorder: Pool;
let store: ProjectionStore;

let n = 0;
const charges = (count: number, accounts = 50): SettlementEvent[] =>
  Array.from({ length: count }, () => {
    n += 1;
    return {
      v: 1,
      request_id: newRequestId(),
      account_id: `00000000-0000-4000-8000-${String(n % accounts).padStart(12, '0')}`,
      kind: 'charged',
      admitted_at_ms: Date.parse('2026-03-14T10:00:00Z'),
      settled_at_ms: Date.parse('2026-03-14T10:00:00Z') + 5,
      route: 'getStockQuote',
      status: 200,
    };
  });

beforeAll(async () => {
  pool = await ledgerPool(schema, 'recorder-plan-test');
  recorder = openRecorder({ url: DATABASE_URL, schema, applicationName: 'recorder-plan-test-recorder' });
  store = new ProjectionStore(pool, recorder);
});

afterAll(async () => {
  await recorder?.end();
  await pool?.end();
  await dropSchema(DATABASE_URL, schema);
});

/**
 * The statement works on the log's numbers alone (migration 0016): it never reads a dictionary, whose
 * index grows with every account the ledger has seen.
 */
function expectNoDictionary(plan: string) {
  expect(plan).toMatch(/on usage_cells/);
  expect(plan).not.toMatch(/ on usage_(accounts|routes) /);
}

it('keeps looking earlier events up by index after the log it was planned on has grown', async () => {
  await pool.query("SELECT usage_events_ensure_partition('2026-03-14')");
  await pool.query('ANALYZE usage_events, usage_cells');
  // Postgres settles on a generic plan from the sixth execution on a connection.
  for (let i = 0; i < 8; i++) await store.record(charges(25));
  for (let i = 0; i < 20; i++) await store.record(charges(1_000));

  // The plan as the connection would run it now (for an empty batch: a generic plan ignores the value).
  const { rows } = await recorder.query<{ 'QUERY PLAN': string }>(
    `EXPLAIN EXECUTE record_batch('{}', '{}', '{}', '{}', '{}', '{}', '{}', NULL, NULL, NULL)`,
  );
  const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
  // Earlier events are found by the request's key, never by reading the account's day.
  expect(plan).toMatch(/Index (Only )?Scan using usage_events_20260314_request_id_\w+_key/);
  expect(plan).not.toMatch(/usage_events_20260314_account_idx/);
  expect(plan).not.toMatch(/Seq Scan on usage_(events|cells)/);
  expectNoDictionary(plan);
  // So is a plan made for a batch as it is (what Postgres may choose instead of the generic one): a
  // thousand events over 50 accounts.
  const recorded = n;
  const numbers = await pool.query<{ id: number }>('SELECT id FROM usage_accounts ORDER BY id');
  const route = (await pool.query<{ id: number }>('SELECT id FROM usage_routes')).rows[0]!.id;
  const batch = charges(1_000).map((e, i) => logRow(e, route, numbers.rows[i % numbers.rows.length]!.id));
  batch.sort((x, y) => (x.request_id < y.request_id ? -1 : 1));
  await recorder.query('SET plan_cache_mode = force_custom_plan');
  const custom = await recorder.query<{ 'QUERY PLAN': string }>(
    `EXPLAIN EXECUTE record_batch(${logColumns(batch)
      .map((c) => `'${c}'`)
      .join(', ')}, NULL, NULL, NULL)`,
  );
  await recorder.query('RESET plan_cache_mode');
  expectNoDictionary(custom.rows.map((r) => r['QUERY PLAN']).join('\n'));

  // And what it records is still right: the projections hold every charge.
  const { rows: totals } = await pool.query<{ events: number; charged: number }>(
    `SELECT (SELECT count(*) FROM usage_events)::int AS events,
            (SELECT sum(charged) FROM usage_daily)::int AS charged`,
  );
  expect(totals[0]).toEqual({ events: recorded, charged: recorded });
});
