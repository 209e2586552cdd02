import { type DayNumber, parseDay, weekStart } from '@mdp/nse-calendar';

/**
 * Which days a price page covers (SPEC 4.1 price history, 4.5 rule 4). A page ends at `end_date`
 * (default: today in IST) and spans `days` calendar days back. Weekly pages start on a Monday so a week
 * is never split between two pages. The next cursor is the last bar day before the page; paging with
 * it until `has_more` is false returns every bar exactly once.
 */
type Interval = 'daily' | 'weekly';

export interface PageRequest {
  days: number;
  interval: Interval;
  endDate?: string;
}

export interface PageWindow {
  from: DayNumber;
  to: DayNumber;
}

export class CursorError extends Error {}

/**
 * The window of a page. A cursor the service could not have issued — not a real date, after today,
 * or before the first bar it holds for the stock (or any cursor for a stock without bars) — is refused.
 */
export function pageWindow(
  req: PageRequest,
  today: DayNumber,
  firstBarDay: DayNumber | undefined,
): PageWindow {
  let to = today;
  if (req.endDate !== undefined) {
    const end = parseDay(req.endDate);
    if (end === undefined)
      throw new CursorError(`end_date "${req.endDate}" is not a calendar date (YYYY-MM-DD)`);
    if (end > today) throw new CursorError(`end_date ${req.endDate} is after today (IST)`);
    if (firstBarDay === undefined)
      throw new CursorError('end_date given, but there is no price history to page through');
    if (end < firstBarDay)
      throw new CursorError(`end_date ${req.endDate} is before the first bar held for this stock`);
    to = end;
  }
  const start = to - req.days + 1;
  return { from: req.interval === 'weekly' ? weekStart(start) : start, to };
}
