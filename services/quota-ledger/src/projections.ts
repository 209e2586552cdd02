import type { Pool } from '@mdp/db';
import { istDay, istMonth } from '@mdp/ist-time';
import type { Interface, SettlementEvent, SettlementKind } from '@mdp/usage';
import { type ByInterface, type ChargeDelta, noUnits } from './domain/account-book.ts';

/** Does a request count as charged, given the kinds of event recorded for it? */
const counts = (kinds: Set<string>) => kinds.has('charged') && !kinds.has('voided');

export interface BatchResult {
  /** Events not seen before (the rest were duplicates or re-deliveries). */
  recorded: number;
  deltas: ChargeDelta[];
}

/**
 * The ledger's Postgres side: the append-only event log and the projections derived from it, written in
 * one transaction per batch so that a projection never disagrees with the log.
 */
export class ProjectionStore {
  constructor(private readonly pool: Pool) {}

  /**
   * Records a batch of events. Duplicates (same request and kind) are ignored by the log's unique key,
   * so re-delivered and repeated events change nothing. Projection deltas are computed from the kinds
   * a request had before and after the batch, which makes the result independent of arrival order.
   */
  async record(events: SettlementEvent[]): Promise<BatchResult> {
    if (events.length === 0) return { recorded: 0, deltas: [] };
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const inserted = await client.query<{ request_id: string; kind: SettlementKind }>(
        `INSERT INTO usage_events (request_id, kind, account_id, admitted_at, settled_at, day, month, route, status, interface)
         SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::timestamptz[], $5::timestamptz[],
                              $6::date[], $7::text[], $8::text[], $9::smallint[], $10::text[])
         ON CONFLICT (request_id, kind) DO NOTHING
         RETURNING request_id, kind`,
        [
          events.map((e) => e.request_id),
          events.map((e) => e.kind),
          events.map((e) => e.account_id),
          events.map((e) => new Date(e.admitted_at_ms)),
          events.map((e) => new Date(e.settled_at_ms)),
          events.map((e) => istDay(e.admitted_at_ms)),
          events.map((e) => istMonth(e.admitted_at_ms)),
          events.map((e) => e.route),
          events.map((e) => e.status),
          events.map((e) => e.interface ?? 'rest'),
        ],
      );
      const fresh = new Map<string, Set<string>>();
      for (const row of inserted.rows) {
        if (!fresh.has(row.request_id)) fresh.set(row.request_id, new Set());
        fresh.get(row.request_id)!.add(row.kind);
      }
      const deltas: ChargeDelta[] = [];
      if (fresh.size > 0) {
        const now = await client.query<{
          request_id: string;
          account_id: string;
          day: string;
          month: string;
          via: Interface;
          kinds: string[];
        }>(
          `SELECT request_id, min(account_id) AS account_id, to_char(min(day), 'YYYY-MM-DD') AS day, min(month) AS month,
                  min(interface) AS via, array_agg(kind) AS kinds
             FROM usage_events WHERE request_id = ANY($1::text[]) GROUP BY request_id`,
          [[...fresh.keys()]],
        );
        for (const row of now.rows) {
          const after = new Set(row.kinds);
          const before = new Set([...after].filter((k) => !fresh.get(row.request_id)!.has(k)));
          const delta = Number(counts(after)) - Number(counts(before));
          if (delta !== 0)
            deltas.push({ accountId: row.account_id, day: row.day, month: row.month, via: row.via, delta });
        }
        await this.applyDeltas(client, deltas);
      }
      await client.query('COMMIT');
      return { recorded: inserted.rowCount ?? 0, deltas };
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      throw err;
    } finally {
      client.release();
    }
  }

  private async applyDeltas(client: import('pg').PoolClient, deltas: ChargeDelta[]): Promise<void> {
    const sum = (key: (d: ChargeDelta) => string) => {
      const m = new Map<string, { accountId: string; period: string; via: Interface; delta: number }>();
      for (const d of deltas) {
        const period = key(d);
        const k = `${d.accountId} ${period} ${d.via}`;
        const cur = m.get(k) ?? { accountId: d.accountId, period, via: d.via, delta: 0 };
        cur.delta += d.delta;
        m.set(k, cur);
      }
      return [...m.values()].filter((x) => x.delta !== 0);
    };
    // Increments upsert; decrements (voids) update rows that must exist, because the CHECK on a row
    // proposed for insertion is evaluated before ON CONFLICT could turn it into an update.
    for (const [table, period, rows] of [
      ['usage_daily', 'day', sum((d) => d.day)],
      ['usage_monthly', 'month', sum((d) => d.month)],
    ] as const) {
      const up = rows.filter((r) => r.delta > 0);
      const down = rows.filter((r) => r.delta < 0);
      const cast = period === 'day' ? 'date' : 'text';
      if (up.length > 0) {
        await client.query(
          `INSERT INTO ${table} (account_id, ${period}, interface, charged)
           SELECT * FROM unnest($1::text[], $2::${cast}[], $3::text[], $4::int[])
           ON CONFLICT (account_id, ${period}, interface) DO UPDATE SET charged = ${table}.charged + EXCLUDED.charged`,
          [up.map((x) => x.accountId), up.map((x) => x.period), up.map((x) => x.via), up.map((x) => x.delta)],
        );
      }
      if (down.length > 0) {
        await client.query(
          `UPDATE ${table} t SET charged = t.charged + d.delta
             FROM unnest($1::text[], $2::${cast}[], $3::text[], $4::int[]) AS d(account_id, period, via, delta)
            WHERE t.account_id = d.account_id AND t.${period} = d.period AND t.interface = d.via`,
          [
            down.map((x) => x.accountId),
            down.map((x) => x.period),
            down.map((x) => x.via),
            down.map((x) => x.delta),
          ],
        );
      }
    }
  }

  /** Which of these requests have a settlement event (of any kind) recorded in the log. */
  async settled(requestIds: string[]): Promise<Set<string>> {
    if (requestIds.length === 0) return new Set();
    const { rows } = await this.pool.query<{ request_id: string }>(
      'SELECT DISTINCT request_id FROM usage_events WHERE request_id = ANY($1::text[])',
      [requestIds],
    );
    return new Set(rows.map((r) => r.request_id));
  }

  /** Charged counts of one account's day and month by interface, as the projections hold them. */
  async charged(
    accountId: string,
    day: string,
    month: string,
  ): Promise<{ day: ByInterface; month: ByInterface }> {
    const { rows } = await this.pool.query<{ window: 'day' | 'month'; via: Interface; charged: number }>(
      `SELECT 'day' AS window, interface AS via, charged FROM usage_daily WHERE account_id = $1 AND day = $2::date
       UNION ALL
       SELECT 'month', interface, charged FROM usage_monthly WHERE account_id = $1 AND month = $3`,
      [accountId, day, month],
    );
    const counts = { day: noUnits(), month: noUnits() };
    for (const row of rows) counts[row.window][row.via] = row.charged;
    return counts;
  }

  /**
   * Replays the whole event log into fresh projections (inside a transaction that is rolled back) and
   * lists every (account, period) where they differ from the live ones. Empty means the live
   * projections are exactly what the log implies.
   */
  async rebuildDifferences(): Promise<
    { account_id: string; period: string; via: Interface; live: number; rebuilt: number }[]
  > {
    const { rows } = await this.pool.query<{
      account_id: string;
      period: string;
      via: Interface;
      live: number;
      rebuilt: number;
    }>(
      `WITH per_request AS (
         SELECT request_id, min(account_id) AS account_id, min(day) AS day, min(month) AS month,
                min(interface) AS via, bool_or(kind = 'charged') AND NOT bool_or(kind = 'voided') AS charged
           FROM usage_events GROUP BY request_id),
       rebuilt_daily AS (
         SELECT account_id, to_char(day, 'YYYY-MM-DD') AS period, via, count(*)::int AS n
           FROM per_request WHERE charged GROUP BY account_id, day, via),
       rebuilt_monthly AS (
         SELECT account_id, month AS period, via, count(*)::int AS n
           FROM per_request WHERE charged GROUP BY account_id, month, via),
       live_daily AS (SELECT account_id, to_char(day, 'YYYY-MM-DD') AS period, interface AS via, charged AS n
                        FROM usage_daily WHERE charged <> 0),
       live_monthly AS (SELECT account_id, month AS period, interface AS via, charged AS n
                          FROM usage_monthly WHERE charged <> 0)
       SELECT coalesce(l.account_id, r.account_id) AS account_id, coalesce(l.period, r.period) AS period,
              coalesce(l.via, r.via) AS via, coalesce(l.n, 0) AS live, coalesce(r.n, 0) AS rebuilt
         FROM live_daily l FULL JOIN rebuilt_daily r USING (account_id, period, via)
        WHERE coalesce(l.n, 0) <> coalesce(r.n, 0)
       UNION ALL
       SELECT coalesce(l.account_id, r.account_id), coalesce(l.period, r.period), coalesce(l.via, r.via),
              coalesce(l.n, 0), coalesce(r.n, 0)
         FROM live_monthly l FULL JOIN rebuilt_monthly r USING (account_id, period, via)
        WHERE coalesce(l.n, 0) <> coalesce(r.n, 0)
       ORDER BY 1, 2, 3`,
    );
    return rows;
  }

  /** Totals for the rebuild report. */
  async totals(): Promise<{ events: number; accounts: number }> {
    const { rows } = await this.pool.query<{ events: number; accounts: number }>(
      'SELECT count(*)::int AS events, count(DISTINCT account_id)::int AS accounts FROM usage_events',
    );
    return rows[0]!;
  }
}
