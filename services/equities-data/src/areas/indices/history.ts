import { type DayNumber, day, formatDay, weekStart } from '@mdp/nse-calendar';
import { type Week, weeksOf } from '../stocks/domain/weekly.ts';
import type { IndexDay } from './data.ts';

export const HISTORY_INTERVALS = ['1m', '3m', '6m', '1y', '2y', 'max'] as const;
export type HistoryInterval = (typeof HISTORY_INTERVALS)[number];

/** Months each interval spans back from the latest session (undefined: everything). */
const SPAN_MONTHS: Record<HistoryInterval, number | undefined> = {
  '1m': 1,
  '3m': 3,
  '6m': 6,
  '1y': 12,
  '2y': 24,
  max: undefined,
};

export const isWeekly = (i: HistoryInterval) => i === '2y' || i === 'max';

/** The same day of the month `months` earlier (the month's last day when it is shorter). */
export function monthsBefore(d: DayNumber, months: number): DayNumber {
  const [y, m, dd] = formatDay(d).split('-').map(Number) as [number, number, number];
  const total = y * 12 + (m - 1) - months;
  const [ty, tm] = [Math.floor(total / 12), (total % 12) + 1];
  const first = day(`${ty}-${String(tm).padStart(2, '0')}-01`);
  const nextFirst = tm === 12 ? day(`${ty + 1}-01-01`) : day(`${ty}-${String(tm + 1).padStart(2, '0')}-01`);
  return Math.min(first + dd - 1, nextFirst - 1);
}

/**
 * The window of an interval ending at the latest session: from the day after the same date `span`
 * months earlier. Weekly intervals start on the Monday of that first week, so every week is whole.
 */
export function historyWindow(interval: HistoryInterval, last: DayNumber, first: DayNumber) {
  const months = SPAN_MONTHS[interval];
  let from = months === undefined ? first : Math.max(first, monthsBefore(last, months) + 1);
  if (isWeekly(interval)) from = weekStart(from);
  return { from, to: last };
}

export type WeekBar = Week<IndexDay>;

const maxOf = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : Math.max(a, b));
const minOf = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : Math.min(a, b));

/**
 * ISO weeks of daily bars given oldest first: the first session's open, the highest high, the lowest
 * low, the last session's close and its P/E, P/B and dividend yield; `d` is the last session's day.
 */
export function weeklyIndexBars(daily: readonly IndexDay[]): WeekBar[] {
  return weeksOf(daily, (w, b) => {
    w.high = maxOf(w.high, b.high);
    w.low = minOf(w.low, b.low);
    w.close = b.close;
    w.pe = b.pe;
    w.pb = b.pb;
    w.divYield = b.divYield;
  });
}

export function barJson(b: IndexDay | WeekBar) {
  const base = {
    date: formatDay(b.d),
    open: b.open,
    high: b.high,
    low: b.low,
    close: b.close,
    pe: b.pe,
    pb: b.pb,
    div_yield: b.divYield,
  };
  return 'weekStart' in b ? { ...base, week_start: formatDay(b.weekStart), sessions: b.sessions } : base;
}
