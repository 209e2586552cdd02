import { addDays, day, formatDay, regularTradingDayOnOrBefore, weekStart } from '@mdp/nse-calendar';
import { ivStandings } from '../analytics/iv-rank.ts';
import { realisedVol } from '../analytics/realised-vol.ts';
import type { DailyRow } from '../domain/daily-row.ts';
import { percent, round } from './format.ts';

export const IV_RANGES = ['1m', '3m', '6m', '1y', '2y', '5y', 'max'] as const;
export type IvRange = (typeof IV_RANGES)[number];
const MONTHS: Record<Exclude<IvRange, 'max'>, number> = {
  '1m': 1,
  '3m': 3,
  '6m': 6,
  '1y': 12,
  '2y': 24,
  '5y': 60,
};

/** Ranges of two years and more are served as weekly bars. */
export function barInterval(range: IvRange): '1d' | '1w' {
  return range === '2y' || range === '5y' || range === 'max' ? '1w' : '1d';
}

/** The same day `months` calendar months earlier (clamped to the month's length). */
export function monthsBefore(date: string, months: number): string {
  const y = Number(date.slice(0, 4));
  const m = Number(date.slice(5, 7)) - 1 - months;
  const d = Number(date.slice(8, 10));
  const first = new Date(Date.UTC(y, m, 1));
  const length = new Date(Date.UTC(first.getUTCFullYear(), first.getUTCMonth() + 1, 0)).getUTCDate();
  return new Date(Date.UTC(first.getUTCFullYear(), first.getUTCMonth(), Math.min(d, length)))
    .toISOString()
    .slice(0, 10);
}

/** The first day a range covers, counted back from the series' last day; null for `max`. */
export function rangeStart(last: string, range: IvRange): string | null {
  return range === 'max' ? null : addDays(monthsBefore(last, MONTHS[range]), 1);
}

/** How far before a range's start rows are needed: a year for IV rank, and some for realised vol. */
export function lookbackStart(from: string): string {
  return addDays(from, -(366 + 100));
}

const REALISED_VOL_DAYS = 20;

/**
 * Realised volatility over the last `window` returns ending at each row, using only runs of rows on
 * consecutive trading days (a gap in the data is not a return). A special session missing from the
 * data is no gap: no full session lies between the rows around it (sources often leave out a Muhurat
 * or Budget-weekend session, and the run would otherwise start again for 20 sessions).
 */
export function rollingRealisedVol(rows: readonly DailyRow[], window: number): (number | null)[] {
  const out: (number | null)[] = [];
  let run: number[] = [];
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    const prev = rows[i - 1];
    if (!prev || regularTradingDayOnOrBefore(day(row.tradeDate) - 1) > day(prev.tradeDate)) run = [];
    run.push(row.close);
    if (run.length > window + 1) run.shift();
    out.push(realisedVol(run, window));
  }
  return out;
}

export interface IvBar {
  date: string;
  close: number | null;
  atm_iv: number | null;
  iv_rank: number | null;
  iv_percentile: number | null;
  realised_vol: number | null;
  pcr_oi: number | null;
  pcr_volume: number | null;
  max_pain: number | null;
  skew_25d: number | null;
}

/** ISO week (Monday-based) of a date, as the Monday's date: the weekly bar key. */
function weekOf(date: string): string {
  return formatDay(weekStart(day(date)));
}

/**
 * The bars of a range from daily rows (sorted, starting far enough back for the rank and the realised
 * volatility): IV rank and percentile against the trailing year, 20-day realised volatility, then the
 * rows from `from` on, or for weekly bars the last trading day of each week.
 */
export function ivBars(rows: readonly DailyRow[], from: string | null, interval: '1d' | '1w'): IvBar[] {
  const standings = ivStandings(rows.map((r) => ({ date: r.tradeDate, iv: r.atmIv })));
  const rv = rollingRealisedVol(rows, REALISED_VOL_DAYS);
  const bars: IvBar[] = [];
  rows.forEach((r, i) => {
    if (from !== null && r.tradeDate < from) return;
    const bar: IvBar = {
      date: r.tradeDate,
      close: round(r.close, 2),
      atm_iv: percent(r.atmIv),
      iv_rank: round(standings[i]!.rank, 2),
      iv_percentile: round(standings[i]!.percentile, 2),
      realised_vol: percent(rv[i]),
      pcr_oi: round(r.pcrOi, 4),
      pcr_volume: round(r.pcrVolume, 4),
      max_pain: r.maxPain,
      skew_25d: percent(r.skew25d),
    };
    if (interval === '1w' && bars.length > 0 && weekOf(bars.at(-1)!.date) === weekOf(r.tradeDate))
      bars[bars.length - 1] = bar;
    else bars.push(bar);
  });
  return bars;
}
