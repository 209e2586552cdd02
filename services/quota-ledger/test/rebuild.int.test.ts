import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { dropSchema, type Pool } from '@mdp/db';
import type { SettlementEvent } from '@mdp/usage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeArgsFor } from '../../../test/bundles.ts';
import { ProjectionStore } from '../src/settlement/projections.ts';
import { DATABASE_URL, ledgerPool, ledgerPoolBefore } from './ledger-db.ts';
import { cells } from './projection-releases.ts';

const schema = `ledger_rb_${randomBytes(5).toString('hex')}`;
let pool: Pool;
let store: ProjectionStore;
const exec = promisify(execFile);
const rebuild = () =>
  exec(process.execPath, [...nodeArgsFor('services/quota-ledger/src/cli.ts'), 'rebuild'], {
    env: { ...process.env, DATABASE_URL, DB_SCHEMA: schema },
  });

const ACCT_1 = '11111111-1111-4111-8111-111111111111';
const ACCT_2 = '22222222-2222-4222-8222-222222222222';
const ACCT_9 = '99999999-9999-4999-8999-999999999999';

const event = (
  request_id: string,
  kind: SettlementEvent['kind'],
  account = ACCT_1,
  at = '2026-03-14T10:00:00Z',
): SettlementEvent => ({
  v: 1,
  request_id,
  account_id: account,
  kind,
  admitted_at_ms: Date.parse(at),
  settled_at_ms: Date.parse(at) + 5,
  route: 'getStockQuote',
  status: kind === 'charged' ? 200 : 404,
});

beforeAll(async () => {
  pool = await ledgerPool(schema, 'rebuild-test');
  store = new ProjectionStore(pool);
  await store.record([
    event('r1', 'charged'),
    event('r2', 'charged'),
    event('r3', 'refunded'),
    { ...event('r4', 'charged', ACCT_2, '2026-03-14T18:30:00Z'), route: 'searchStocks' },
    event('r5', 'voided'),
    event('r5', 'charged'),
    { ...event('r6', 'charged'), interface: 'mcp' },
  ]);
  await store.record([
    event('r1', 'charged'),
    event('r2', 'voided'),
    { ...event('r7', 'charged'), interface: 'mcp' },
    { ...event('r7', 'voided'), interface: 'mcp' },
  ]);
});
afterAll(async () => {
  await pool.end();
  await dropSchema(DATABASE_URL, schema);
});

describe('ledger rebuild', () => {
  it('the projections count what the log implies: charges minus voids, in the IST day of admission, by interface', async () => {
    const { rows } = await pool.query(
      "SELECT account_id, to_char(day, 'YYYY-MM-DD') AS day, interface, charged FROM usage_daily ORDER BY 1, 2, 3",
    );
    expect(rows).toEqual([
      { account_id: ACCT_1, day: '2026-03-14', interface: 'mcp', charged: 1 },
      { account_id: ACCT_1, day: '2026-03-14', interface: 'rest', charged: 1 },
      { account_id: ACCT_2, day: '2026-03-15', interface: 'rest', charged: 1 },
    ]);
    // Read together, each account gets its own counts: ACCT_2's charge is of another day.
    const charged = await store.charged([ACCT_1, ACCT_2, ACCT_9], '2026-03-14', '2026-03');
    expect(Object.fromEntries(charged)).toEqual({
      [ACCT_1]: { day: { rest: 1, mcp: 1 }, month: { rest: 1, mcp: 1 } },
      [ACCT_2]: { day: { rest: 0, mcp: 0 }, month: { rest: 1, mcp: 0 } },
      [ACCT_9]: { day: { rest: 0, mcp: 0 }, month: { rest: 0, mcp: 0 } },
    });
  });

  it('the by-route projection counts the same requests per IST day, route and interface', async () => {
    expect(await cells(pool)).toEqual(
      [
        `${ACCT_1} 2026-03-14 getStockQuote mcp 1`,
        `${ACCT_1} 2026-03-14 getStockQuote rest 1`,
        `${ACCT_2} 2026-03-15 searchStocks rest 1`,
      ].sort(),
    );
  });

  it('replaying the log finds no difference, and the command says so with exit code 0', async () => {
    const { stdout } = await rebuild();
    expect(stdout).toMatch(
      /replayed 10 events of 2 accounts, 0 dropped day\(s\) from their seals: projections equal the live ones \(no differences\)/,
    );
  });

  it('the log refuses updates and deletes', async () => {
    await expect(
      pool.query('DELETE FROM usage_events WHERE request_id = usage_log_uuid($1)', ['r1']),
    ).rejects.toThrow(/append-only/);
    await expect(pool.query("UPDATE usage_events SET kind = 'r'")).rejects.toThrow(/append-only/);
    await expect(pool.query('TRUNCATE usage_events')).rejects.toThrow(/append-only/);
  });

  it('a projection that drifted from the log is reported, with exit code 1', async () => {
    await pool.query(
      "UPDATE usage_cells SET charged = charged + 2 WHERE account = usage_account($1) AND interface = 'r'",
      [ACCT_1],
    );
    await expect(rebuild()).rejects.toMatchObject({
      code: 1,
      stdout: expect.stringContaining(
        `account ${ACCT_1} period 2026-03-14 getStockQuote via rest: live 3, rebuilt 1`,
      ),
    });
    // The daily and monthly figures are its sums: they drifted with it.
    expect((await store.charged([ACCT_1], '2026-03-14', '2026-03')).get(ACCT_1)).toEqual({
      day: { rest: 3, mcp: 1 },
      month: { rest: 3, mcp: 1 },
    });
    await pool.query('UPDATE usage_cells SET charged = charged + 1 WHERE account = usage_account($1)', [
      ACCT_2,
    ]);
    await expect(rebuild()).rejects.toMatchObject({
      code: 1,
      stdout: expect.stringContaining(
        `account ${ACCT_2} period 2026-03-15 searchStocks via rest: live 2, rebuilt 1`,
      ),
    });
  });
});

describe('the by-route projection on a log recorded before it existed', () => {
  it('is filled from the log by its migration: charged, not voided requests', async () => {
    const older = `ledger_rt_${randomBytes(5).toString('hex')}`;
    const before = await ledgerPoolBefore(older, '0003', 'rt');
    try {
      await before.query(
        `INSERT INTO usage_events (request_id, kind, account_id, admitted_at, settled_at, day, month, route, status, interface)
         VALUES ('q1', 'charged', '${ACCT_9}', '2026-03-14 10:00+05:30', '2026-03-14 10:00+05:30', '2026-03-14', '2026-03', 'getStockQuote', 200, 'rest'),
                ('q2', 'charged', '${ACCT_9}', '2026-03-14 10:00+05:30', '2026-03-14 10:00+05:30', '2026-03-14', '2026-03', 'getStockQuote', 200, 'rest'),
                ('q2', 'voided', '${ACCT_9}', '2026-03-14 10:00+05:30', '2026-03-14 10:00+05:30', '2026-03-14', '2026-03', 'getStockQuote', 200, 'rest'),
                ('q3', 'refunded', '${ACCT_9}', '2026-03-14 10:00+05:30', '2026-03-14 10:00+05:30', '2026-03-14', '2026-03', 'getStockQuote', 404, 'rest'),
                ('q4', 'charged', '${ACCT_9}', '2026-03-15 10:00+05:30', '2026-03-15 10:00+05:30', '2026-03-15', '2026-03', 'searchStocks', 200, 'mcp')`,
      );
      const after = await ledgerPool(older, 'rt', 1);
      try {
        expect(await cells(after)).toEqual([
          `${ACCT_9} 2026-03-14 getStockQuote rest 1`,
          `${ACCT_9} 2026-03-15 searchStocks mcp 1`,
        ]);
        // The events went in without their daily and monthly rows; since 0013 those figures are the
        // by-route projection's sums, so they count the log's charges too.
        const migrated = new ProjectionStore(after);
        expect(await migrated.rebuildDifferences()).toEqual([]);
        expect((await migrated.charged([ACCT_9], '2026-03-15', '2026-03')).get(ACCT_9)).toEqual({
          day: { rest: 0, mcp: 1 },
          month: { rest: 1, mcp: 1 },
        });
        // And the partitioned log (migration 0005) holds every event, in its IST day's partition, the
        // clients' request ids as their uuid digests.
        const { rows: moved } = await after.query(
          `SELECT tableoid::regclass::text AS part, kind, status FROM usage_events
            WHERE request_id = usage_log_uuid('q2') ORDER BY kind`,
        );
        expect(moved).toEqual([
          { part: 'usage_events_20260314', kind: 'c', status: 200 },
          { part: 'usage_events_20260314', kind: 'v', status: 200 },
        ]);
        const { rows: all } = await after.query('SELECT count(*)::int AS n FROM usage_events');
        expect(all[0].n).toBe(5);
      } finally {
        await after.end();
      }
    } finally {
      await before.end();
      await dropSchema(DATABASE_URL, older);
    }
  });
});
