import type { TradingCalendar } from './calendar.ts';
import { SEED_CALENDAR } from './seed.ts';

/**
 * The calendar this process works by. A service starts on the seed and puts the owner's calendar in
 * force as soon as it has read it, and again on every change; a calendar is swapped in whole, so a
 * computation that reads it once sees one list. The free functions of trading-days.ts and
 * sessions.ts answer by it.
 */
let inForce: TradingCalendar = SEED_CALENDAR;

export function calendarInForce(): TradingCalendar {
  return inForce;
}

/** Puts `calendar` in force for every later question in this process. */
export function putCalendarInForce(calendar: TradingCalendar): void {
  inForce = calendar;
}
