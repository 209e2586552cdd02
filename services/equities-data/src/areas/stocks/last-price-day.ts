import { type DayNumber, parseDay } from '@mdp/nse-calendar';
import type { Pool } from 'pg';

/** The latest trading day the stored prices hold, or undefined when there are none. */
export async function lastPriceDay(pool: Pool): Promise<DayNumber | undefined> {
  const { rows } = await pool.query<{ d: string | null }>('SELECT max(d)::text AS d FROM daily_bars');
  return rows[0]?.d ? parseDay(rows[0].d) : undefined;
}
