import { type DayNumber, formatDay, weekStart } from '@mdp/nse-calendar';
import type { IndexDay } from './data.ts';
import { monthsBefore } from './history.ts';

/** The route's index slugs and the index names they stand for. */
export const VALUATION_INDICES: Readonly<Record<string, string>> = {
  'nifty-50': 'NIFTY 50',
  'nifty-500': 'NIFTY 500',
  'nifty-bank': 'NIFTY BANK',
  'nifty-midcap-50': 'NIFTY MIDCAP 50',
  'nifty-it': 'NIFTY IT',
  'nifty-next-50': 'NIFTY NEXT 50',
};

/** Longer windows are served as weekly points (each ISO week's last observation) to stay compact. */
const DAILY_UP_TO_YEARS = 5;

export interface Summary {
  observations: number;
  current: number;
  mean: number;
  sd: number;
  minus_1sd: number;
  plus_1sd: number;
  min: number;
  max: number;
  /** Percent of the window's observations at or below the current value. */
  current_percentile: number;
}

const round2 = (x: number) => Math.round(x * 100) / 100;

/** Mean, sample standard deviation and its bands, range, and where the latest value stands. */
export function summarize(values: readonly number[]): Summary | null {
  const n = values.length;
  if (n === 0) return null;
  const current = values[n - 1]!;
  const mean = values.reduce((a, v) => a + v, 0) / n;
  const sd = n > 1 ? Math.sqrt(values.reduce((a, v) => a + (v - mean) ** 2, 0) / (n - 1)) : 0;
  return {
    observations: n,
    current,
    mean: round2(mean),
    sd: round2(sd),
    minus_1sd: round2(mean - sd),
    plus_1sd: round2(mean + sd),
    min: Math.min(...values),
    max: Math.max(...values),
    current_percentile: Math.round((1000 * values.filter((v) => v <= current).length) / n) / 10,
  };
}

const hasRatio = (b: IndexDay) => b.pe !== null || b.pb !== null || b.divYield !== null;

/**
 * The `years` up to the latest day with ratios on or before `today` (from the day after the same date
 * `years` earlier): statistics over every daily observation, and the series daily or weekly.
 */
export function valuationWindow(days: readonly IndexDay[], years: number, today: DayNumber) {
  const rows = days.filter((b) => b.d <= today && hasRatio(b));
  const last = rows.at(-1);
  if (!last) return undefined;
  const from = monthsBefore(last.d, 12 * years) + 1;
  const window = rows.filter((b) => b.d >= from);
  const weekly = years > DAILY_UP_TO_YEARS;
  const series = weekly
    ? window.filter((b, i) => weekStart(window[i + 1]?.d ?? Infinity) !== weekStart(b.d))
    : window;
  const values = (pick: (b: IndexDay) => number | null) =>
    window.map(pick).filter((v): v is number => v !== null);
  return {
    from: formatDay(window[0]!.d),
    to: formatDay(last.d),
    bar_interval: weekly ? '1w' : '1d',
    summary: {
      pe: summarize(values((b) => b.pe)),
      pb: summarize(values((b) => b.pb)),
      div_yield: summarize(values((b) => b.divYield)),
    },
    series: series.map((b) => ({ date: formatDay(b.d), pe: b.pe, pb: b.pb, div_yield: b.divYield })),
  };
}
