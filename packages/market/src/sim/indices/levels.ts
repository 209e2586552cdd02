import type { DayNumber } from '@mdp/nse-calendar';
import { latestReportedFiscalYear } from '../dataset.ts';
import type { IndexDefinition } from './definitions.ts';
import type { DayGrid, StockSeries } from './series.ts';

export interface IndexBar {
  d: DayNumber;
  open: number;
  high: number;
  low: number;
  close: number;
  /** Aggregate price/earnings (total market value over total latest annual profit); null when that is not positive. */
  pe: number | null;
  pb: number | null;
  /** Percent: total latest annual dividend over total market value. */
  divYield: number | null;
}

/** A constituent's annual profit, book value and dividends paid by fiscal year, in rupees crore. */
export type Fundamentals = Map<number, { profit: number; book: number; dividend: number }>;

/**
 * Constituents' highs and lows do not all come at the same moment, so the index's own range is
 * narrower than their weighted highs and lows: it keeps this share of the excess beyond open and close.
 */
const RANGE_SHARE = 0.5;

const round2 = (x: number) => Math.round(x * 100) / 100;

/**
 * Chain-linked levels. Each session's change is the change in total market value of the constituents
 * that traded that session and the one before (cap weighting), or the mean of their changes (equal
 * weighting, rebalanced daily). A company listing later joins the day after its first session, so it
 * never jumps the index. Open, high and low apply the same weights to the constituents' own.
 */
export function indexBars(
  def: IndexDefinition,
  members: readonly StockSeries[],
  grid: DayGrid,
  fundamentals: (stockId: number) => Fundamentals | undefined,
): IndexBar[] {
  const bars: IndexBar[] = [];
  const funds = members.map((m) => fundamentals(m.stockId));
  const fiscalYears = grid.days.map(latestReportedFiscalYear);
  let level: number | undefined;
  for (let t = 0; t < grid.days.length; t++) {
    let prev = 0;
    let o = 0;
    let h = 0;
    let l = 0;
    let c = 0;
    let active = 0;
    let traded = false;
    for (const m of members) {
      const close = m.close[t]!;
      if (Number.isNaN(close)) continue;
      traded = true;
      const before = t > 0 ? m.close[t - 1]! : Number.NaN;
      if (Number.isNaN(before)) continue;
      active++;
      if (def.weighting === 'cap') {
        prev += before;
        o += m.open[t]!;
        h += m.high[t]!;
        l += m.low[t]!;
        c += close;
      } else {
        o += m.open[t]! / before;
        h += m.high[t]! / before;
        l += m.low[t]! / before;
        c += close / before;
      }
    }
    if (!traded) {
      if (level !== undefined) throw new Error(`${def.name}: no constituent traded on a session`);
      continue;
    }
    let bar: Omit<IndexBar, 'pe' | 'pb' | 'divYield'>;
    if (level === undefined || active === 0) {
      level ??= def.base;
      bar = { d: grid.days[t]!, open: level, high: level, low: level, close: level };
    } else {
      const base = def.weighting === 'cap' ? prev : active;
      const open = (level * o) / base;
      const close = (level * c) / base;
      const top = Math.max(open, close);
      const bottom = Math.min(open, close);
      bar = {
        d: grid.days[t]!,
        open,
        close,
        high: top + RANGE_SHARE * Math.max(0, (level * h) / base - top),
        low: bottom - RANGE_SHARE * Math.max(0, bottom - (level * l) / base),
      };
      level = close;
    }
    bars.push({ ...rounded(bar), ...valuation(members, funds, t, fiscalYears[t]!) });
  }
  return bars;
}

function rounded(b: Omit<IndexBar, 'pe' | 'pb' | 'divYield'>): Omit<IndexBar, 'pe' | 'pb' | 'divYield'> {
  const open = round2(b.open);
  const close = round2(b.close);
  return {
    d: b.d,
    open,
    close,
    high: Math.max(open, close, round2(b.high)),
    low: Math.min(open, close, round2(b.low)),
  };
}

/** Aggregate ratios over the constituents that traded on session t and have results for the fiscal year. */
function valuation(
  members: readonly StockSeries[],
  funds: readonly (Fundamentals | undefined)[],
  t: number,
  fiscalYear: number,
): Pick<IndexBar, 'pe' | 'pb' | 'divYield'> {
  let value = 0;
  let profit = 0;
  let book = 0;
  let dividend = 0;
  members.forEach((m, i) => {
    const close = m.close[t]!;
    const f = funds[i]?.get(fiscalYear);
    if (Number.isNaN(close) || !f) return;
    value += close;
    profit += f.profit;
    book += f.book;
    dividend += f.dividend;
  });
  return {
    pe: profit > 0 ? round2(value / profit) : null,
    pb: book > 0 ? round2(value / book) : null,
    divYield: value > 0 ? round2((100 * dividend) / value) : null,
  };
}
