import type { DayNumber } from './dates.ts';
import { calendarInForce } from './in-force.ts';

/**
 * The last session whose end-of-day data exists at the instant `nowMs`, by the calendar in force:
 * every generated dataset ends on it, so all services agree.
 */
export function lastCompletedSession(nowMs: number): DayNumber {
  return calendarInForce().lastCompletedSession(nowMs);
}
