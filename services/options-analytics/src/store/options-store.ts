import { withTransaction } from '@mdp/db';
import type { Pool, PoolClient } from 'pg';
import type { DailyRow } from '../domain/daily-row.ts';
import type { Snapshot, UnderlyingKind } from '../domain/snapshot.ts';

/** Anything that runs a parameterised query: the pool, or one client inside a transaction. */
interface Queryable {
  query<R extends object = Record<string, unknown>>(text: string, values?: unknown[]): Promise<{ rows: R[] }>;
}

export interface Underlying {
  symbol: string;
  name: string | null;
  kind: UnderlyingKind;
  /** Set once its derivatives have been discontinued. */
  derivativesUntil: string | null;
  source: string;
}

export interface SnapshotHeader {
  id: number;
  underlying: string;
  tradeDate: string;
  snapshotMs: number;
  underlyingPrice: number;
  source: string;
}

const BATCH_ROWS = 20_000;

/**
 * A numeric array parameter as Postgres' array text, the same text pg would send for a JS array of
 * the numbers (String(n), NaN and Infinity included), without its per-element quoting and escaping,
 * which numbers never need (pg's array encoding was some 8% of the generated options load's CPU).
 */
function numberArray(values: readonly (number | string | null | undefined)[]): string {
  let out = '{';
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    out += `${i > 0 ? ',' : ''}${v === null || v === undefined ? 'NULL' : v}`;
  }
  return `${out}}`;
}

/**
 * The service's own tables (see migrations/). Writes are bulk `unnest` inserts; reads return plain
 * values (dates as YYYY-MM-DD strings, 64-bit counts as numbers).
 */
/** Taken by whatever rewrites the schema's contracts in bulk (a generated load, moving expiries): one at a time. */
export const LOAD_LOCK_SQL = "SELECT pg_advisory_xact_lock(hashtext(current_schema() || ':options-load'))";

export class OptionsStore {
  constructor(private readonly db: Queryable) {}

  /** Runs `fn` against a store bound to one transaction; commits if it resolves, rolls back if not. */
  static async transaction<T>(
    pool: Pool,
    fn: (store: OptionsStore, client: PoolClient) => Promise<T>,
  ): Promise<T> {
    return withTransaction(pool, (client) => fn(new OptionsStore(client), client));
  }

  async isEmpty(): Promise<boolean> {
    const { rows } = await this.db.query<{ any: boolean }>(
      'SELECT EXISTS (SELECT 1 FROM underlyings) OR EXISTS (SELECT 1 FROM snapshots) AS any',
    );
    return !rows[0]?.any;
  }

  /** Deletes every row of every table (for a fresh load). */
  async clear(): Promise<void> {
    await this.db.query(
      'TRUNCATE underlyings, lot_sizes, snapshots, option_quotes, future_quotes, daily_analytics, loads',
    );
  }

  /** Grows with every load (import or generation): what the service's caches are keyed by. */
  async dataVersion(): Promise<number> {
    const { rows } = await this.db.query<{ v: string }>('SELECT coalesce(max(id), 0) AS v FROM loads');
    return Number(rows[0]?.v ?? 0);
  }

  async recordLoad(kind: string, detail: Record<string, unknown>): Promise<void> {
    await this.db.query('INSERT INTO loads (kind, detail) VALUES ($1, $2)', [kind, JSON.stringify(detail)]);
  }

  /**
   * Adds or updates underlyings. Information already known is kept when the new value is empty: an
   * import of bhavcopies does not erase the names the lot-size file gave.
   */
  async upsertUnderlyings(list: readonly Underlying[]): Promise<void> {
    if (list.length === 0) return;
    await this.db.query(
      `INSERT INTO underlyings (symbol, name, kind, derivatives_until, source)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::date[], $5::text[])
       ON CONFLICT (symbol) DO UPDATE SET
         name = COALESCE(EXCLUDED.name, underlyings.name),
         kind = EXCLUDED.kind,
         derivatives_until = EXCLUDED.derivatives_until,
         source = EXCLUDED.source,
         updated_at = now()`,
      [
        list.map((u) => u.symbol),
        list.map((u) => u.name),
        list.map((u) => u.kind),
        list.map((u) => u.derivativesUntil),
        list.map((u) => u.source),
      ],
    );
  }

  async replaceLotSizes(rows: readonly { symbol: string; month: string; lotSize: number }[]): Promise<void> {
    const symbols = [...new Set(rows.map((r) => r.symbol))];
    await this.db.query('DELETE FROM lot_sizes WHERE symbol = ANY($1::text[])', [symbols]);
    await this.db.query(
      `INSERT INTO lot_sizes (symbol, month, lot_size)
       SELECT * FROM unnest($1::text[], $2::text[], $3::int[])`,
      [rows.map((r) => r.symbol), rows.map((r) => r.month), rows.map((r) => r.lotSize)],
    );
  }

  async underlying(symbol: string): Promise<Underlying | null> {
    const { rows } = await this.db.query<{
      symbol: string;
      name: string | null;
      kind: UnderlyingKind;
      derivatives_until: string | null;
      source: string;
    }>('SELECT symbol, name, kind, derivatives_until::text, source FROM underlyings WHERE symbol = $1', [
      symbol,
    ]);
    const r = rows[0];
    return r
      ? {
          symbol: r.symbol,
          name: r.name,
          kind: r.kind,
          derivativesUntil: r.derivatives_until,
          source: r.source,
        }
      : null;
  }

  /**
   * Writes snapshots, each replacing any earlier one of the same underlying and day (and a later one in
   * the list an earlier one). A handful of statements for the whole list, not a few per snapshot.
   */
  async saveSnapshots(snapshots: readonly Snapshot[], source: string): Promise<void> {
    const byKey = new Map<string, Snapshot>();
    for (const s of snapshots) byKey.set(`${s.underlying} ${s.tradeDate}`, s);
    const list = [...byKey.values()];
    if (list.length === 0) return;
    await this.db.query(
      `DELETE FROM snapshots WHERE (underlying, trade_date) IN
         (SELECT * FROM unnest($1::text[], $2::date[]))`,
      [list.map((s) => s.underlying), list.map((s) => s.tradeDate)],
    );
    // snapshotMs is numeric, as the single-row insert's untyped `$3 / 1000.0` was: the same timestamps.
    const { rows } = await this.db.query<{ id: string; underlying: string; trade_date: string }>(
      `INSERT INTO snapshots (underlying, trade_date, snapshot_ts, underlying_price, source)
       SELECT u, d, to_timestamp(ms / 1000.0), p, $5
         FROM unnest($1::text[], $2::date[], $3::numeric[], $4::float8[]) WITH ORDINALITY AS s (u, d, ms, p, n)
        ORDER BY n
       RETURNING id, underlying, trade_date::text`,
      [
        list.map((s) => s.underlying),
        list.map((s) => s.tradeDate),
        numberArray(list.map((s) => s.snapshotMs)),
        numberArray(list.map((s) => s.underlyingPrice)),
        source,
      ],
    );
    const idOf = new Map(rows.map((r) => [`${r.underlying} ${r.trade_date}`, r.id]));
    const options = list.flatMap((s) => {
      const id = idOf.get(`${s.underlying} ${s.tradeDate}`)!;
      return s.options.map((q) => ({ id, q }));
    });
    for (let i = 0; i < options.length; i += BATCH_ROWS) {
      const b = options.slice(i, i + BATCH_ROWS);
      await this.db.query(
        `INSERT INTO option_quotes
           (snapshot_id, expiry, strike, option_type, close, last, bid, ask, oi, oi_change, volume, lot_size)
         SELECT * FROM unnest($1::int8[], $2::date[], $3::float8[], $4::text[], $5::float8[], $6::float8[],
           $7::float8[], $8::float8[], $9::int8[], $10::int8[], $11::int8[], $12::int[])`,
        [
          numberArray(b.map((o) => o.id)),
          b.map((o) => o.q.expiry),
          numberArray(b.map((o) => o.q.strike)),
          b.map((o) => o.q.type),
          numberArray(b.map((o) => o.q.close)),
          numberArray(b.map((o) => o.q.last)),
          numberArray(b.map((o) => o.q.bid)),
          numberArray(b.map((o) => o.q.ask)),
          numberArray(b.map((o) => Math.round(o.q.oi))),
          numberArray(b.map((o) => Math.round(o.q.oiChange))),
          numberArray(b.map((o) => Math.round(o.q.volume))),
          numberArray(b.map((o) => o.q.lotSize)),
        ],
      );
    }
    const futures = list.flatMap((s) => {
      const id = idOf.get(`${s.underlying} ${s.tradeDate}`)!;
      return s.futures.map((f) => ({ id, f }));
    });
    if (futures.length > 0)
      await this.db.query(
        `INSERT INTO future_quotes (snapshot_id, expiry, close, oi, oi_change, volume, lot_size)
         SELECT * FROM unnest($1::int8[], $2::date[], $3::float8[], $4::int8[], $5::int8[], $6::int8[], $7::int[])`,
        [
          numberArray(futures.map((o) => o.id)),
          futures.map((o) => o.f.expiry),
          numberArray(futures.map((o) => o.f.close)),
          numberArray(futures.map((o) => Math.round(o.f.oi))),
          numberArray(futures.map((o) => Math.round(o.f.oiChange))),
          numberArray(futures.map((o) => Math.round(o.f.volume))),
          numberArray(futures.map((o) => o.f.lotSize)),
        ],
      );
  }

  async saveDailyRows(rows: readonly DailyRow[]): Promise<void> {
    for (let i = 0; i < rows.length; i += BATCH_ROWS) {
      const b = rows.slice(i, i + BATCH_ROWS);
      await this.db.query(
        `INSERT INTO daily_analytics (underlying, trade_date, close, atm_iv, skew_25d, pcr_oi, pcr_volume,
           max_pain, max_pain_expiry, source)
         SELECT * FROM unnest($1::text[], $2::date[], $3::float8[], $4::float8[], $5::float8[], $6::float8[],
           $7::float8[], $8::float8[], $9::date[], $10::text[])
         ON CONFLICT (underlying, trade_date) DO UPDATE SET
           close = EXCLUDED.close, atm_iv = EXCLUDED.atm_iv, skew_25d = EXCLUDED.skew_25d,
           pcr_oi = EXCLUDED.pcr_oi, pcr_volume = EXCLUDED.pcr_volume, max_pain = EXCLUDED.max_pain,
           max_pain_expiry = EXCLUDED.max_pain_expiry, source = EXCLUDED.source`,
        [
          b.map((r) => r.underlying),
          b.map((r) => r.tradeDate),
          numberArray(b.map((r) => r.close)),
          numberArray(b.map((r) => r.atmIv)),
          numberArray(b.map((r) => r.skew25d)),
          numberArray(b.map((r) => r.pcrOi)),
          numberArray(b.map((r) => r.pcrVolume)),
          numberArray(b.map((r) => r.maxPain)),
          b.map((r) => r.maxPainExpiry),
          b.map((r) => r.source),
        ],
      );
    }
  }

  /** The latest snapshot of an underlying, or null. */
  async latestSnapshot(underlying: string): Promise<SnapshotHeader | null> {
    const { rows } = await this.db.query<{
      id: string;
      trade_date: string;
      ms: number;
      underlying_price: number;
      source: string;
    }>(
      `SELECT id, trade_date::text, extract(epoch FROM snapshot_ts)::float8 * 1000 AS ms, underlying_price, source
       FROM snapshots WHERE underlying = $1 ORDER BY trade_date DESC LIMIT 1`,
      [underlying],
    );
    const r = rows[0];
    return r
      ? {
          id: Number(r.id),
          underlying,
          tradeDate: r.trade_date,
          snapshotMs: Math.round(r.ms),
          underlyingPrice: r.underlying_price,
          source: r.source,
        }
      : null;
  }

  /** The contracts of a snapshot. */
  async snapshot(header: SnapshotHeader, kind: UnderlyingKind): Promise<Snapshot> {
    const [options, futures] = await Promise.all([
      this.db.query<{
        expiry: string;
        strike: number;
        option_type: 'call' | 'put';
        close: number | null;
        last: number | null;
        bid: number | null;
        ask: number | null;
        oi: number;
        oi_change: number;
        volume: number;
        lot_size: number;
      }>(
        `SELECT expiry::text, strike, option_type, close, last, bid, ask, oi::float8 AS oi,
                oi_change::float8 AS oi_change, volume::float8 AS volume, lot_size
         FROM option_quotes WHERE snapshot_id = $1`,
        [header.id],
      ),
      this.db.query<{
        expiry: string;
        close: number | null;
        oi: number;
        oi_change: number;
        volume: number;
        lot_size: number;
      }>(
        `SELECT expiry::text, close, oi::float8 AS oi, oi_change::float8 AS oi_change, volume::float8 AS volume, lot_size
         FROM future_quotes WHERE snapshot_id = $1`,
        [header.id],
      ),
    ]);
    return {
      underlying: header.underlying,
      kind,
      tradeDate: header.tradeDate,
      snapshotMs: header.snapshotMs,
      underlyingPrice: header.underlyingPrice,
      options: options.rows.map((r) => ({
        expiry: r.expiry,
        strike: r.strike,
        type: r.option_type,
        close: r.close,
        last: r.last,
        bid: r.bid,
        ask: r.ask,
        oi: r.oi,
        oiChange: r.oi_change,
        volume: r.volume,
        lotSize: r.lot_size,
      })),
      futures: futures.rows.map((r) => ({
        expiry: r.expiry,
        close: r.close,
        oi: r.oi,
        oiChange: r.oi_change,
        volume: r.volume,
        lotSize: r.lot_size,
      })),
    };
  }

  /** An underlying's daily rows on or after `from` (all when null), oldest first. */
  async dailyRows(underlying: string, from: string | null): Promise<DailyRow[]> {
    const { rows } = await this.db.query<{
      trade_date: string;
      close: number;
      atm_iv: number | null;
      skew_25d: number | null;
      pcr_oi: number | null;
      pcr_volume: number | null;
      max_pain: number | null;
      max_pain_expiry: string | null;
      source: string;
    }>(
      `SELECT trade_date::text, close, atm_iv, skew_25d, pcr_oi, pcr_volume, max_pain, max_pain_expiry::text, source
       FROM daily_analytics WHERE underlying = $1 AND ($2::date IS NULL OR trade_date >= $2::date)
       ORDER BY trade_date`,
      [underlying, from],
    );
    return rows.map((r) => ({
      underlying,
      tradeDate: r.trade_date,
      close: r.close,
      atmIv: r.atm_iv,
      skew25d: r.skew_25d,
      pcrOi: r.pcr_oi,
      pcrVolume: r.pcr_volume,
      maxPain: r.max_pain,
      maxPainExpiry: r.max_pain_expiry,
      source: r.source,
    }));
  }

  /** The last trading day an underlying has a daily row for. */
  async lastDailyDate(underlying: string): Promise<string | null> {
    const { rows } = await this.db.query<{ d: string | null }>(
      'SELECT max(trade_date)::text AS d FROM daily_analytics WHERE underlying = $1',
      [underlying],
    );
    return rows[0]?.d ?? null;
  }

  async counts(): Promise<Record<string, number>> {
    const { rows } = await this.db.query<{ t: string; n: string }>(
      `SELECT 'underlyings' AS t, count(*) AS n FROM underlyings
       UNION ALL SELECT 'snapshots', count(*) FROM snapshots
       UNION ALL SELECT 'option_quotes', count(*) FROM option_quotes
       UNION ALL SELECT 'daily_analytics', count(*) FROM daily_analytics
       UNION ALL SELECT 'lot_sizes', count(*) FROM lot_sizes`,
    );
    return Object.fromEntries(rows.map((r) => [r.t, Number(r.n)]));
  }
}
