import type { DayNumber } from './dates.ts';
import { calendarInForce } from './in-force.ts';

/** The NSE trading calendar in force (in-force.ts) as day numbers. */

export function isTradingDay(n: DayNumber): boolean {
  return calendarInForce().isTradingDay(n);
}

/** Whether a full session is held (no special session): what contracts expire and files arrive on. */
export function isRegularTradingDay(n: DayNumber): boolean {
  return calendarInForce().isRegularTradingDay(n);
}

/** Every trading day from `from` to `to`, both inclusive, in order. */
export function tradingDays(from: DayNumber, to: DayNumber): DayNumber[] {
  return calendarInForce().tradingDays(from, to);
}

/** The latest trading day on or before `n`. */
export function tradingDayOnOrBefore(n: DayNumber): DayNumber {
  return calendarInForce().tradingDayOnOrBefore(n);
}

/** The latest full session on or before `n` (an expiry on a closed or special-session day moves there). */
export function regularTradingDayOnOrBefore(n: DayNumber): DayNumber {
  return calendarInForce().regularTradingDayOnOrBefore(n);
}
