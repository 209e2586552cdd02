import { type DayNumber, day, weekday } from './dates.ts';
import { NSE_HOLIDAYS } from './holidays.ts';

/** The NSE trading calendar as day numbers, from the shared holiday list. */

const HOLIDAY_DAYS = new Set<DayNumber>([...NSE_HOLIDAYS].map((d) => day(d)));

export function isTradingDay(n: DayNumber): boolean {
  return weekday(n) < 5 && !HOLIDAY_DAYS.has(n);
}

/** Every trading day from `from` to `to`, both inclusive, in order. */
export function tradingDays(from: DayNumber, to: DayNumber): DayNumber[] {
  const days: DayNumber[] = [];
  for (let n = from; n <= to; n++) if (isTradingDay(n)) days.push(n);
  return days;
}

/** The latest trading day on or before `n`. */
export function tradingDayOnOrBefore(n: DayNumber): DayNumber {
  let d = n;
  while (!isTradingDay(d)) d--;
  return d;
}
