import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { dropSchema, migratedPool, type Pool } from '@mdp/db';
import type { SettlementEvent } from '@mdp/usage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProjectionStore } from '../src/projections.ts';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@localhost:5432/mdp';
const schema = `ledger_rb_${randomBytes(5).toString('hex')}`;
let pool: Pool;
let store: ProjectionStore;
const exec = promisify(execFile);
const rebuild = () =>
  exec(process.execPath, ['--import', 'tsx', 'services/quota-ledger/src/cli.ts', 'rebuild'], {
    env: { ...process.env, DATABASE_URL, DB_SCHEMA: schema },
  });

const event = (
  request_id: string,
  kind: SettlementEvent['kind'],
  account = 'acct-1',
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
  pool = await migratedPool({
    url: DATABASE_URL,
    schema,
    dir: new URL('../migrations/', import.meta.url).pathname,
    max: 2,
    applicationName: 'rebuild-test',
  });
  store = new ProjectionStore(pool);
  await store.record([
    event('r1', 'charged'),
    event('r2', 'charged'),
    event('r3', 'refunded'),
    event('r4', 'charged', 'acct-2', '2026-03-14T18:30:00Z'),
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
      { account_id: 'acct-1', day: '2026-03-14', interface: 'mcp', charged: 1 },
      { account_id: 'acct-1', day: '2026-03-14', interface: 'rest', charged: 1 },
      { account_id: 'acct-2', day: '2026-03-15', interface: 'rest', charged: 1 },
    ]);
    expect(await store.charged('acct-1', '2026-03-14', '2026-03')).toEqual({
      day: { rest: 1, mcp: 1 },
      month: { rest: 1, mcp: 1 },
    });
  });

  it('replaying the log finds no difference, and the command says so with exit code 0', async () => {
    const { stdout } = await rebuild();
    expect(stdout).toMatch(
      /replayed 10 events of 2 accounts: projections equal the live ones \(no differences\)/,
    );
  });

  it('the log refuses updates and deletes', async () => {
    await expect(pool.query("DELETE FROM usage_events WHERE request_id = 'r1'")).rejects.toThrow(
      /append-only/,
    );
    await expect(pool.query("UPDATE usage_events SET kind = 'refunded'")).rejects.toThrow(/append-only/);
  });

  it('a projection that drifted from the log is reported, with exit code 1', async () => {
    await pool.query("UPDATE usage_daily SET charged = charged + 2 WHERE account_id = 'acct-1'");
    await expect(rebuild()).rejects.toMatchObject({
      code: 1,
      stdout: expect.stringContaining('account acct-1 period 2026-03-14 via rest: live 3, rebuilt 1'),
    });
  });
});
