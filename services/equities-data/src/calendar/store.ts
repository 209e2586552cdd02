import type { Pool } from '@mdp/db';
import { type CalendarDay, SEED_CALENDAR, SEED_DAYS, SEED_YEARS, TradingCalendar } from '@mdp/nse-calendar';
import type { PoolClient } from 'pg';

type Db = Pick<PoolClient, 'query'>;

export type CalendarList = 'trading' | 'clearing';
export const listOf = (kind: CalendarDay['kind']): CalendarList =>
  kind === 'clearing' ? 'clearing' : 'trading';

/**
 * Gives a new database the compiled seed (2019-2026) as its calendar, once: a database with any year
 * loaded is left alone. Safe to run from several processes at once.
 */
export async function seedCalendar(client: Db): Promise<void> {
  const years: number[] = [];
  for (let y = SEED_YEARS.first; y <= SEED_YEARS.last; y++) years.push(y);
  await client.query(
    `WITH fresh AS (
       INSERT INTO trading_calendar_years (list, year, source)
       SELECT 'trading', y, 'seed' FROM unnest($1::int[]) AS y
       WHERE NOT EXISTS (SELECT 1 FROM trading_calendar_years)
       ON CONFLICT DO NOTHING
       RETURNING year
     )
     INSERT INTO trading_calendar (list, day, kind, description, source)
     SELECT 'trading', d, k, t, 'seed' FROM unnest($2::date[], $3::text[], $4::text[]) AS s(d, k, t)
     WHERE EXISTS (SELECT 1 FROM fresh)
     ON CONFLICT DO NOTHING`,
    [years, SEED_DAYS.map((d) => d.date), SEED_DAYS.map((d) => d.kind), SEED_DAYS.map((d) => d.description)],
  );
}

/** Every entry of the calendar, in date order. */
export async function readCalendarDays(db: Db): Promise<(CalendarDay & { source: string })[]> {
  const { rows } = await db.query<CalendarDay & { source: string }>(
    `SELECT to_char(day, 'YYYY-MM-DD') AS date, kind, description, source
     FROM trading_calendar ORDER BY day, list`,
  );
  return rows;
}

/** The calendar the schema holds; the seed while none is loaded (a database not yet seeded). */
export async function readCalendar(db: Db): Promise<TradingCalendar> {
  const { rows } = await db.query<{ last: number | null }>(
    `SELECT max(year) AS last FROM trading_calendar_years WHERE list = 'trading'`,
  );
  const last = rows[0]?.last ?? null;
  if (last === null) return SEED_CALENDAR;
  const days = (await readCalendarDays(db)).map(({ date, kind, description }) => ({
    date,
    kind,
    description,
  }));
  return new TradingCalendar(days, last);
}

/** Seeds a new database, then reads the calendar: what a process does before it dates anything. */
export async function loadCalendar(pool: Pool): Promise<TradingCalendar> {
  await seedCalendar(pool);
  return readCalendar(pool);
}
