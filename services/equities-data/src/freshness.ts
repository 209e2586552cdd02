import type { Clock } from '@mdp/nse-calendar';
import {
  type DayNumber,
  IST_OFFSET_MS,
  LAST_HOLIDAY_YEAR,
  lastCompletedSession,
  tradingDays,
} from '@mdp/nse-calendar';
import { Gauge, type Registry } from '@mdp/telemetry';

/**
 * NSE sessions whose end-of-day data exists at `nowMs` but is not in the data served (0: current).
 * NaN when nothing is loaded. Pure.
 */
export function sessionsBehind(lastLoaded: DayNumber | undefined, nowMs: number): number {
  if (lastLoaded === undefined) return Number.NaN;
  const last = lastCompletedSession(nowMs);
  return last <= lastLoaded ? 0 : tradingDays(lastLoaded + 1, last).length;
}

const DAY_S = 86_400;

/**
 * 00:00 IST on 1 January after the last year whose NSE holidays are listed: from then on the calendar
 * knows weekends only, so a holiday would count as a missing session and shift derivative expiries.
 */
export function holidayCalendarEndMs(lastYear: number = LAST_HOLIDAY_YEAR): number {
  return Date.UTC(lastYear + 1, 0, 1) - IST_OFFSET_MS;
}

/**
 * How fresh the served prices are, for the "data is a trading day behind" alert: the last session held
 * and how many completed sessions are missing, read at scrape time from what is being served.
 */
export function registerFreshnessMetrics(
  registry: Registry,
  lastLoaded: () => DayNumber | undefined,
  clock: Clock,
): void {
  new Gauge({
    name: 'equities_data_last_session_timestamp_seconds',
    help: 'Start (00:00 UTC) of the latest trading session in the served prices; NaN when nothing is loaded',
    registers: [registry],
    collect() {
      const day = lastLoaded();
      this.set(day === undefined ? Number.NaN : day * DAY_S);
    },
  });
  new Gauge({
    name: 'equities_data_holiday_calendar_end_timestamp_seconds',
    help: 'When the NSE holiday list in force runs out (00:00 IST on 1 January after its last year)',
    registers: [registry],
  }).set(holidayCalendarEndMs() / 1000);
  new Gauge({
    name: 'equities_data_sessions_behind',
    help: 'Completed NSE sessions (end-of-day data out from 16:00 IST) not yet in the served prices',
    registers: [registry],
    collect() {
      this.set(sessionsBehind(lastLoaded(), clock()));
    },
  });
}
