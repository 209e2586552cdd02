import type { DayNumber } from './dates.ts';
import { tradingDayOnOrBefore } from './trading-days.ts';

const IST_OFFSET_MINUTES = 330;
/** End-of-day data of a session is taken as out from 16:00 IST (the close is 15:30). */
const EOD_MINUTE = 16 * 60;

/**
 * The last session whose end-of-day data exists at the instant `nowMs`: today's once the day's data is
 * out, else the trading day before. Every generated dataset ends on it, so all services agree.
 */
export function lastCompletedSession(nowMs: number): DayNumber {
  const istMinutes = Math.floor(nowMs / 60_000) + IST_OFFSET_MINUTES;
  const today = Math.floor(istMinutes / 1440);
  return tradingDayOnOrBefore(istMinutes - today * 1440 >= EOD_MINUTE ? today : today - 1);
}
