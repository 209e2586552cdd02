import { NSE_HOLIDAYS } from '@mdp/nse-calendar';
import { addDays } from '../analytics/time.ts';

/** Day of the week of a YYYY-MM-DD date, 0 = Sunday. */
export function weekday(date: string): number {
  return new Date(`${date}T00:00:00Z`).getUTCDay();
}

/** A weekday that is not an NSE holiday. */
export function isTradingDay(date: string, holidays: ReadonlySet<string> = NSE_HOLIDAYS): boolean {
  const d = weekday(date);
  return d !== 0 && d !== 6 && !holidays.has(date);
}

/** The latest trading day on or before `date`. */
export function tradingDayOnOrBefore(date: string, holidays: ReadonlySet<string> = NSE_HOLIDAYS): string {
  let d = date;
  while (!isTradingDay(d, holidays)) d = addDays(d, -1);
  return d;
}

/** The trading days from `from` to `to`, both included when they are trading days. */
export function tradingDays(
  from: string,
  to: string,
  holidays: ReadonlySet<string> = NSE_HOLIDAYS,
): string[] {
  const out: string[] = [];
  for (let d = from; d <= to; d = addDays(d, 1)) if (isTradingDay(d, holidays)) out.push(d);
  return out;
}
