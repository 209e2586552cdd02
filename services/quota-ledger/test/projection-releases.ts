import { readFileSync } from 'node:fs';
import type { Pool } from '@mdp/db';
import { newRequestId, type SettlementEvent } from '@mdp/usage';
import { logColumns, logRow, uniqueLogRows } from '../src/log/usage-log.ts';

// Batches recorded by the ledger of one release or another against one schema, and what the log they
// leave implies, for the tests of the projection's migrations (0015, 0016, 0017): whichever release records,
// the projection must hold what the log implies.

/** An earlier release's batch statement, kept as it ran (test/fixtures/record-batch-<migration>.sql). */
export type FrozenRelease = '0014' | '0015';

const FROZEN = new Map<FrozenRelease, string>();
function frozen(release: FrozenRelease): string {
  let sql = FROZEN.get(release);
  if (sql === undefined) {
    sql = readFileSync(new URL(`./fixtures/record-batch-${release}.sql`, import.meta.url), 'utf8');
    FROZEN.set(release, sql);
  }
  return sql;
}

export const ROUTES = ['getStockQuote', 'searchStocks', 'getIndexQuote'];
/** The IST days the batches fall on (their partitions must exist). */
export const DAYS = ['2026-03-13', '2026-03-14'];

/** Every event recorded so far, by any release: what the log implies is computed from these. */
export class ProjectionHistory {
  readonly sent: SettlementEvent[] = [];
  private nextAt = Date.parse('2026-03-13T04:00:00Z');

  /**
   * `n` charges spread over `accounts`, the routes, the interfaces and both IST days; and a void of every
   * `voidEvery`th event sent so far.
   */
  batch(n: number, voidEvery: number, accounts: readonly string[]): SettlementEvent[] {
    const events: SettlementEvent[] = [];
    for (let i = 0; i < n; i++) {
      this.nextAt += 61_000;
      const day = i % 2 === 0 ? Date.parse('2026-03-13T06:00:00Z') : Date.parse('2026-03-14T06:00:00Z');
      events.push({
        v: 1,
        request_id: newRequestId(),
        account_id: accounts[i % accounts.length]!,
        kind: 'charged',
        admitted_at_ms: day + (this.nextAt % 3_600_000),
        settled_at_ms: day + (this.nextAt % 3_600_000) + 5,
        route: ROUTES[Math.floor(i / 2) % ROUTES.length]!,
        status: 200,
        interface: Math.floor(i / 6) % 2 === 0 ? 'rest' : 'mcp',
      });
    }
    // Voids of charges recorded in earlier batches: the projection's figures go down.
    if (voidEvery > 0)
      for (const [i, e] of this.sent.entries())
        if (
          i % voidEvery === 0 &&
          e.kind === 'charged' &&
          !this.sent.some((v) => v.kind === 'voided' && v.request_id === e.request_id)
        )
          events.push({ ...e, kind: 'voided', status: 503 });
    return events;
  }

  /** What the log implies: `account day route interface units` for each charge not voided, sorted. */
  implied(): string[] {
    const voided = new Set(this.sent.filter((e) => e.kind === 'voided').map((e) => e.request_id));
    const cells = new Map<string, number>();
    for (const e of this.sent) {
      if (e.kind !== 'charged' || voided.has(e.request_id)) continue;
      const day = new Date(e.admitted_at_ms + 19_800_000).toISOString().slice(0, 10);
      const key = `${e.account_id} ${day} ${e.route} ${e.interface ?? 'rest'}`;
      cells.set(key, (cells.get(key) ?? 0) + 1);
    }
    return [...cells].map(([k, n]) => `${k} ${n}`).sort();
  }

  /** `implied` summed by account, day and interface: `account day interface units`, sorted. */
  impliedDaily(): string[] {
    const days = new Map<string, number>();
    for (const row of this.implied()) {
      const [account, day, , via, n] = row.split(' ');
      const key = `${account} ${day} ${via}`;
      days.set(key, (days.get(key) ?? 0) + Number(n));
    }
    return [...days].map(([k, n]) => `${k} ${n}`).sort();
  }

  /** Records `events` as a ledger of `release` does: its own statement, its dictionaries. */
  async recordAs(release: FrozenRelease, pool: Pool, events: SettlementEvent[]): Promise<void> {
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
    const accounts = await number('usage_accounts', 'account_id', [
      ...new Set(events.map((e) => e.account_id)),
    ]);
    const rows = uniqueLogRows(
      events.map((e) => logRow(e, routes.get(e.route)!, accounts.get(e.account_id)!)),
    );
    await pool.query(frozen(release), [...logColumns(rows), null, null, null]);
    this.sent.push(...events);
  }
}

/**
 * usage_route_daily, the projection by name that releases before 0016 write (0014's also reads it); from
 * 0017 a view of the cells by name.
 */
export async function byName(pool: Pool): Promise<string[]> {
  const { rows } = await pool.query<{ row: string }>(
    `SELECT account_id || ' ' || to_char(day, 'YYYY-MM-DD') || ' ' || route || ' ' || interface || ' ' || charged AS row
       FROM usage_route_daily WHERE charged > 0`,
  );
  return rows.map((r) => r.row).sort();
}

/** usage_cells, the projection from 0015 on, named through the dictionaries. */
export async function cells(pool: Pool): Promise<string[]> {
  const { rows } = await pool.query<{ row: string }>(
    `SELECT a.account_id::text || ' ' || to_char(c.day, 'YYYY-MM-DD') || ' ' || r.name || ' ' ||
            CASE c.interface WHEN 'm' THEN 'mcp' ELSE 'rest' END || ' ' || c.charged AS row
       FROM usage_cells c JOIN usage_accounts a ON a.id = c.account JOIN usage_routes r ON r.id = c.route
      WHERE c.charged > 0`,
  );
  return rows.map((r) => r.row).sort();
}

/** The usage_daily view tools read. */
export async function daily(pool: Pool): Promise<string[]> {
  const { rows } = await pool.query<{ row: string }>(
    `SELECT account_id || ' ' || to_char(day, 'YYYY-MM-DD') || ' ' || interface || ' ' || charged AS row
       FROM usage_daily WHERE charged > 0`,
  );
  return rows.map((r) => r.row).sort();
}

/**
 * Adds or replaces a live run of shard `shard` of 4, refreshed by code of `level` (null: before 0015), as
 * the contract migrations' guards see it.
 */
export async function liveRun(pool: Pool, shard: number, level: string | null, tag: string): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    // As a refresh of that release sets it (migration 0015's trigger stamps the row with it).
    if (level !== null) await client.query(`SELECT set_config('mdp.ledger_code_level', $1, true)`, [level]);
    await client.query(
      `INSERT INTO ledger_shard_runs (shard_count, shard, holder, active_since, last_seen)
       VALUES (4, $1, $2, now(), now())
       ON CONFLICT (shard_count, shard) DO UPDATE SET last_seen = now(), holder = EXCLUDED.holder, ended_at = NULL`,
      [shard, `quota-ledger-${shard}@${tag}`],
    );
    await client.query('COMMIT');
  } finally {
    client.release();
  }
}
