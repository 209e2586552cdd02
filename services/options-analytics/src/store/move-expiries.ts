import { type Pool, withTransaction } from '@mdp/db';
import { day, formatDay, type TradingCalendar } from '@mdp/nse-calendar';
import { LOAD_LOCK_SQL } from './options-store.ts';

/** An expiry the calendar closed, moved to the full session before it. */
export interface ExpiryMove {
  from: string;
  to: string;
  /** Contracts (options and futures) moved, per underlying. */
  contracts: Record<string, number>;
}

/**
 * Moves every held expiry that falls on a day the calendar does not hold a full session on (a holiday
 * declared after the contracts were listed, or a special session) to the previous full session, as the
 * exchange does. A contract already listed on that day is the same contract: the moved copy is
 * dropped. Records a load when anything moved, so the service serves the moved expiries within a
 * second. Idempotent: with nothing on a closed day it changes nothing.
 */
export async function moveExpiriesOffClosedDays(
  pool: Pool,
  calendar: TradingCalendar,
): Promise<ExpiryMove[]> {
  return withTransaction(pool, async (client) => {
    // Replicas following the same calendar change move the same rows: one at a time, and the later
    // finds nothing left to move.
    await client.query(LOAD_LOCK_SQL);
    const { rows } = await client.query<{ expiry: string }>(
      `SELECT to_char(expiry, 'YYYY-MM-DD') AS expiry FROM option_quotes
       UNION SELECT to_char(expiry, 'YYYY-MM-DD') FROM future_quotes ORDER BY 1`,
    );
    const moves: ExpiryMove[] = [];
    for (const { expiry } of rows) {
      const d = day(expiry);
      if (calendar.isRegularTradingDay(d)) continue;
      const to = formatDay(calendar.regularTradingDayOnOrBefore(d));
      const contracts: Record<string, number> = {};
      for (const [table, key] of [
        ['option_quotes', 'AND t.strike = o.strike AND t.option_type = o.option_type'],
        ['future_quotes', ''],
      ] as const) {
        await client.query(
          `DELETE FROM ${table} o USING ${table} t
           WHERE o.expiry = $1 AND t.snapshot_id = o.snapshot_id AND t.expiry = $2 ${key}`,
          [expiry, to],
        );
        const moved = await client.query<{ underlying: string; n: string }>(
          `WITH m AS (UPDATE ${table} SET expiry = $2 WHERE expiry = $1 RETURNING snapshot_id)
           SELECT s.underlying, count(*) AS n FROM m JOIN snapshots s ON s.id = m.snapshot_id GROUP BY 1`,
          [expiry, to],
        );
        for (const r of moved.rows) contracts[r.underlying] = (contracts[r.underlying] ?? 0) + Number(r.n);
      }
      await client.query('UPDATE daily_analytics SET max_pain_expiry = $2 WHERE max_pain_expiry = $1', [
        expiry,
        to,
      ]);
      if (Object.keys(contracts).length > 0) moves.push({ from: expiry, to, contracts });
    }
    if (moves.length > 0)
      await client.query('INSERT INTO loads (kind, detail) VALUES ($1, $2)', [
        'calendar',
        JSON.stringify({ moved: moves }),
      ]);
    return moves;
  });
}
