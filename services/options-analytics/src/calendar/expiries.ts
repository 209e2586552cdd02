import { addDays, day, formatDay, regularTradingDayOnOrBefore, weekday } from '@mdp/nse-calendar';

/**
 * NSE's expiry rules. From 1 September 2025 every equity-derivative contract expires on a Tuesday:
 * monthlies on the last Tuesday of the month, NIFTY weeklies on every Tuesday (weeklies of the other
 * indices ended in November 2024). Before that monthlies expired on the last Thursday. An expiry day
 * that is a trading holiday (or a special session's day) moves to the previous full session (31 March
 * 2026 → 30 March), by the calendar in force.
 */
const TUESDAY_EXPIRIES_FROM = '2025-09-01';
// Days of the week as @mdp/nse-calendar numbers them (0 = Monday).
const TUESDAY = 1;
const THURSDAY = 3;

/** The weekday contracts expiring in the week of (or month containing) `date` expire on. */
function expiryWeekday(date: string): number {
  return date >= TUESDAY_EXPIRIES_FROM ? TUESDAY : THURSDAY;
}

function lastWeekdayOfMonth(year: number, month: number, dayOfWeek: number): string {
  const last = new Date(Date.UTC(year, month, 0)).toISOString().slice(0, 10); // month is 1-based here
  const back = (weekday(day(last)) - dayOfWeek + 7) % 7;
  return addDays(last, -back);
}

/** The day itself when NSE holds a full session on it, else the full session before it. */
const onOrBeforeTradingDay = (date: string): string => formatDay(regularTradingDayOnOrBefore(day(date)));

/** The monthly expiry of a calendar month (1-12), holiday-adjusted. */
export function monthlyExpiry(year: number, month: number): string {
  const first = `${year}-${String(month).padStart(2, '0')}-01`;
  return onOrBeforeTradingDay(lastWeekdayOfMonth(year, month, expiryWeekday(first)));
}

/** The next `count` monthly expiries strictly after `date`. */
export function nextMonthlyExpiries(date: string, count: number): string[] {
  const out: string[] = [];
  let year = Number(date.slice(0, 4));
  let month = Number(date.slice(5, 7));
  while (out.length < count) {
    const e = monthlyExpiry(year, month);
    if (e > date) out.push(e);
    month++;
    if (month > 12) {
      month = 1;
      year++;
    }
  }
  return out;
}

/** The next `count` weekly (NIFTY) expiries strictly after `date`, holiday-adjusted. */
export function nextWeeklyExpiries(date: string, count: number): string[] {
  const out: string[] = [];
  let d = addDays(date, 1);
  while (out.length < count) {
    if (weekday(day(d)) === expiryWeekday(d)) {
      const e = onOrBeforeTradingDay(d);
      if (e > date && !out.includes(e)) out.push(e);
    }
    d = addDays(d, 1);
  }
  return out;
}

/** Monthly expiries of quarter-end months (March, June, September, December) after `date`. */
export function nextQuarterlyExpiries(date: string, count: number): string[] {
  const out: string[] = [];
  let year = Number(date.slice(0, 4));
  let month = Math.ceil(Number(date.slice(5, 7)) / 3) * 3;
  while (out.length < count) {
    const e = monthlyExpiry(year, month);
    if (e > date) out.push(e);
    month += 3;
    if (month > 12) {
      month = 3;
      year++;
    }
  }
  return out;
}
