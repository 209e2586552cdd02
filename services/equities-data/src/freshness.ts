import type { Clock } from '@mdp/nse-calendar';
import {
  type DayNumber,
  isRegularTradingDay,
  lastCompletedSession,
  type TradingCalendar,
  tradingDays,
} from '@mdp/nse-calendar';
import { Gauge, type Registry } from '@mdp/telemetry';

/**
 * NSE sessions whose end-of-day data exists at `nowMs` but is not in the data served (0: current).
 * NaN when nothing is loaded. Full sessions only: a special session's files (Muhurat trading, a Budget
 * weekend) are an extra the daily import takes when they come, and a Budget Sunday's would otherwise
 * page until Monday evening's run. By the calendar in force.
 */
export function sessionsBehind(lastLoaded: DayNumber | undefined, nowMs: number): number {
  if (lastLoaded === undefined) return Number.NaN;
  const last = lastCompletedSession(nowMs);
  if (last <= lastLoaded) return 0;
  return tradingDays(lastLoaded + 1, last).filter((d) => isRegularTradingDay(d)).length;
}

const DAY_S = 86_400;

/**
 * How fresh the served prices are, for the "data is a trading day behind" alert: the last session held
 * and how many completed sessions are missing, read at scrape time from what is being served.
 */
export function registerFreshnessMetrics(
  registry: Registry,
  lastLoaded: () => DayNumber | undefined,
  calendar: () => TradingCalendar,
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
    help: 'When the NSE holiday list in force runs out (00:00 IST on 1 January after the last year loaded)',
    registers: [registry],
    collect() {
      this.set(calendar().endMs() / 1000);
    },
  });
  new Gauge({
    name: 'equities_data_sessions_behind',
    help: 'Completed NSE sessions (end-of-day data out from 16:00 IST) not yet in the served prices',
    registers: [registry],
    collect() {
      this.set(sessionsBehind(lastLoaded(), clock()));
    },
  });
}
