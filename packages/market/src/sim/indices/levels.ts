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
export type Fundamentals = Map<number, FundamentalsOfYear>;

interface FundamentalsOfYear {
  profit: number;
  book: number;
  dividend: number;
}

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
  const n = grid.days.length;
  const fiscalYears = grid.days.map(latestReportedFiscalYear);
  const s = sessionSums(def, members, fiscalYears, fundamentals);
  const bars: IndexBar[] = [];
  let level: number | undefined;
  for (let t = 0; t < n; t++) {
    if (!s.traded[t]) {
      if (level !== undefined) throw new Error(`${def.name}: no constituent traded on a session`);
      continue;
    }
    let bar: Omit<IndexBar, 'pe' | 'pb' | 'divYield'>;
    if (level === undefined || s.active[t] === 0) {
      level ??= def.base;
      bar = { d: grid.days[t]!, open: level, high: level, low: level, close: level };
    } else {
      const base = def.weighting === 'cap' ? s.prev[t]! : s.active[t]!;
      const open = (level * s.o[t]!) / base;
      const close = (level * s.c[t]!) / base;
      const top = Math.max(open, close);
      const bottom = Math.min(open, close);
      bar = {
        d: grid.days[t]!,
        open,
        close,
        high: top + RANGE_SHARE * Math.max(0, (level * s.h[t]!) / base - top),
        low: bottom - RANGE_SHARE * Math.max(0, bottom - (level * s.l[t]!) / base),
      };
      level = close;
    }
    // Aggregate ratios over the constituents that traded on the session and have results for its year.
    const value = s.value[t]!;
    const profit = s.profit[t]!;
    const book = s.book[t]!;
    bars.push({
      ...rounded(bar),
      pe: profit > 0 ? round2(value / profit) : null,
      pb: book > 0 ? round2(value / book) : null,
      divYield: value > 0 ? round2((100 * s.dividend[t]!) / value) : null,
    });
  }
  return bars;
}

/**
 * The constituents' sums behind each session's bar. Member by member, each one's days in a row (it was
 * session by session, across every member's arrays, which kept the CPU waiting on memory); every sum
 * still adds the members in their order, so the levels are the same to the last bit.
 */
function sessionSums(
  def: IndexDefinition,
  members: readonly StockSeries[],
  fiscalYears: readonly number[],
  fundamentals: (stockId: number) => Fundamentals | undefined,
) {
  const n = fiscalYears.length;
  const s = {
    traded: new Uint8Array(n),
    active: new Int32Array(n),
    prev: new Float64Array(n),
    o: new Float64Array(n),
    h: new Float64Array(n),
    l: new Float64Array(n),
    c: new Float64Array(n),
    value: new Float64Array(n),
    profit: new Float64Array(n),
    book: new Float64Array(n),
    dividend: new Float64Array(n),
  };
  const cap = def.weighting === 'cap';
  for (const m of members) {
    const funds = fundamentals(m.stockId);
    let year = Number.NaN;
    let f: FundamentalsOfYear | undefined;
    for (let t = 0; t < n; t++) {
      const close = m.close[t]!;
      if (Number.isNaN(close)) continue;
      s.traded[t] = 1;
      if (fiscalYears[t] !== year) {
        year = fiscalYears[t]!;
        f = funds?.get(year);
      }
      if (f) {
        s.value[t]! += close;
        s.profit[t]! += f.profit;
        s.book[t]! += f.book;
        s.dividend[t]! += f.dividend;
      }
      const before = t > 0 ? m.close[t - 1]! : Number.NaN;
      if (Number.isNaN(before)) continue;
      s.active[t]!++;
      if (cap) {
        s.prev[t]! += before;
        s.o[t]! += m.open[t]!;
        s.h[t]! += m.high[t]!;
        s.l[t]! += m.low[t]!;
        s.c[t]! += close;
      } else {
        s.o[t]! += m.open[t]! / before;
        s.h[t]! += m.high[t]! / before;
        s.l[t]! += m.low[t]! / before;
        s.c[t]! += close / before;
      }
    }
  }
  return s;
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
