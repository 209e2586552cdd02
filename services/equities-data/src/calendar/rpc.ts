import type { AsyncServiceImpl } from '@mdp/grpc';
import type { TradingCalendar } from '@mdp/nse-calendar';
import type { calendar } from '@mdp/proto';

export type TradingCalendarImpl = AsyncServiceImpl<typeof calendar.TradingCalendarServiceService>;

/** The calendar this process has in force: the one it loaded with the data it serves. */
export function calendarRpcs(current: () => TradingCalendar): TradingCalendarImpl {
  return {
    async getTradingCalendar() {
      const c = current();
      return {
        last_year: c.lastYear,
        days: c.days.map(({ date, kind, description }) => ({ date, kind, description })),
        version: c.version,
      };
    },
  };
}
