import { type DayNumber, tradingDays } from '@mdp/nse-calendar';
import type { CorporateActionRow } from '../../model.ts';
import type { GeneratedDataset } from '../dataset.ts';

/** The trading days of the generated history, the grid every index is computed on. */
export interface DayGrid {
  days: DayNumber[];
  indexOf: Map<DayNumber, number>;
}

export function dayGrid(ds: GeneratedDataset): DayGrid {
  const days = tradingDays(ds.options.endDay - ds.options.historyDays, ds.options.endDay);
  return { days, indexOf: new Map(days.map((d, i) => [d, i])) };
}

/**
 * One stock's market value (rupees crore) at each session's open, high, low and close: shares in issue
 * that day times the traded price. A split or bonus multiplies the shares as it divides the price, so
 * the value runs on smoothly across an ex-date. NaN where the stock has no bar.
 */
export interface StockSeries {
  stockId: number;
  open: Float64Array;
  high: Float64Array;
  low: Float64Array;
  close: Float64Array;
  /** Grid positions of the first and last bar (-1 when none). */
  first: number;
  last: number;
}

/** Shares in issue on day `d`, from today's count and the splits and bonuses after `d`. */
function sharesOn(sharesNow: number, actions: readonly CorporateActionRow[], d: DayNumber): number {
  let shares = sharesNow;
  for (const a of actions) if (a.exDate > d) shares = (shares * a.ratioOld) / a.ratioNew;
  return shares;
}

export function stockSeries(
  ds: GeneratedDataset,
  grid: DayGrid,
  stockId: number,
  sharesNow: number,
  actions: readonly CorporateActionRow[],
): StockSeries {
  const n = grid.days.length;
  const s: StockSeries = {
    stockId,
    open: new Float64Array(n).fill(Number.NaN),
    high: new Float64Array(n).fill(Number.NaN),
    low: new Float64Array(n).fill(Number.NaN),
    close: new Float64Array(n).fill(Number.NaN),
    first: -1,
    last: -1,
  };
  ds.emitBars(stockId, (b) => {
    const t = grid.indexOf.get(b.d);
    if (t === undefined) return;
    // paise × shares / 1e9 = rupees crore
    const k = sharesOn(sharesNow, actions, b.d) / 1e9;
    s.open[t] = b.open * k;
    s.high[t] = b.high * k;
    s.low[t] = b.low * k;
    s.close[t] = b.close * k;
    if (s.first < 0) s.first = t;
    s.last = t;
  });
  return s;
}
