import { type DayNumber, formatDay } from '@mdp/nse-calendar';
import type { PriceBar } from './adjust.ts';

/** Indicators computed from adjusted daily bars (oldest first), as of the last bar. */

const round = (x: number | null, digits = 2): number | null =>
  x === null || !Number.isFinite(x) ? null : Math.round(x * 10 ** digits) / 10 ** digits;

export function sma(closes: readonly number[], n: number): number | null {
  if (closes.length < n) return null;
  let sum = 0;
  for (let i = closes.length - n; i < closes.length; i++) sum += closes[i]!;
  return sum / n;
}

/** Exponential moving average seeded with the simple average of the first n values. */
export function emaSeries(values: readonly number[], n: number): number[] {
  if (values.length < n) return [];
  const k = 2 / (n + 1);
  let e = values.slice(0, n).reduce((a, b) => a + b, 0) / n;
  const out = [e];
  for (let i = n; i < values.length; i++) {
    e = values[i]! * k + e * (1 - k);
    out.push(e);
  }
  return out;
}

/** Wilder's RSI over n periods. */
export function rsi(closes: readonly number[], n = 14): number | null {
  if (closes.length <= n) return null;
  let gain = 0;
  let loss = 0;
  for (let i = 1; i <= n; i++) {
    const ch = closes[i]! - closes[i - 1]!;
    if (ch > 0) gain += ch;
    else loss -= ch;
  }
  gain /= n;
  loss /= n;
  for (let i = n + 1; i < closes.length; i++) {
    const ch = closes[i]! - closes[i - 1]!;
    gain = (gain * (n - 1) + Math.max(ch, 0)) / n;
    loss = (loss * (n - 1) + Math.max(-ch, 0)) / n;
  }
  if (loss === 0) return gain === 0 ? 50 : 100;
  return 100 - 100 / (1 + gain / loss);
}

/** Annualised standard deviation of daily log returns over the last `sessions` sessions, in %. */
export function volatility(
  closes: readonly number[],
  sessions: number,
  days?: readonly DayNumber[],
): number | null {
  if (closes.length < sessions + 1) return null;
  const rets: number[] = [];
  for (let i = closes.length - sessions; i < closes.length; i++) {
    // With `days`, a return across a hole in the history (more than MAX_GAP_DAYS) is left out.
    if (days && days[i]! - days[i - 1]! > MAX_GAP_DAYS) continue;
    rets.push(Math.log(closes[i]! / closes[i - 1]!));
  }
  if (rets.length < sessions * 0.8) return null;
  const mean = rets.reduce((a, b) => a + b, 0) / rets.length;
  const variance = rets.reduce((a, r) => a + (r - mean) ** 2, 0) / (rets.length - 1);
  return Math.sqrt(variance * 252) * 100;
}

/** A gap in the history longer than this (a suspension, missing data) makes a return unknown. */
const MAX_GAP_DAYS = 10;

/**
 * Close of the last bar on or before `d` — if that bar is within MAX_GAP_DAYS of `d` — or null
 * (history starts later, or has a hole there).
 */
export function closeOnOrBefore(bars: readonly PriceBar[], d: DayNumber): number | null {
  let lo = 0;
  let hi = bars.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (bars[mid]!.d <= d) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found < 0 || d - bars[found]!.d > MAX_GAP_DAYS ? null : bars[found]!.close;
}

export const RETURN_PERIODS = {
  '1w': 7,
  '1m': 30,
  '3m': 91,
  '6m': 182,
  '1y': 365,
  '3y': 1096,
  '5y': 1826,
} as const;

/** Price change in % over each calendar period up to the last bar (null without enough history). */
export function periodReturns(bars: readonly PriceBar[]): Record<keyof typeof RETURN_PERIODS, number | null> {
  const last = bars.at(-1);
  const out = {} as Record<keyof typeof RETURN_PERIODS, number | null>;
  for (const [k, days] of Object.entries(RETURN_PERIODS) as [keyof typeof RETURN_PERIODS, number][]) {
    const base = last && bars[0]!.d <= last.d - days ? closeOnOrBefore(bars, last.d - days) : null;
    out[k] = last && base ? round((last.close / base - 1) * 100) : null;
  }
  return out;
}

export interface Range52 {
  high: number;
  high_date: string;
  low: number;
  low_date: string;
}

export function range52(bars: readonly PriceBar[]): Range52 | null {
  const last = bars.at(-1);
  if (!last) return null;
  let hi = last;
  let lo = last;
  for (let i = bars.length - 1; i >= 0 && bars[i]!.d > last.d - 365; i--) {
    const b = bars[i]!;
    if (b.high > hi.high) hi = b;
    if (b.low < lo.low) lo = b;
  }
  return { high: hi.high, high_date: formatDay(hi.d), low: lo.low, low_date: formatDay(lo.d) };
}

/** Average true range over n sessions (Wilder). */
function atr(bars: readonly PriceBar[], n = 14): number | null {
  if (bars.length <= n) return null;
  const tr = (i: number) => {
    const b = bars[i]!;
    const pc = bars[i - 1]!.close;
    return Math.max(b.high - b.low, Math.abs(b.high - pc), Math.abs(b.low - pc));
  };
  let a = 0;
  for (let i = 1; i <= n; i++) a += tr(i);
  a /= n;
  for (let i = n + 1; i < bars.length; i++) a = (a * (n - 1) + tr(i)) / n;
  return a;
}

export function technicals(bars: readonly PriceBar[]) {
  const closes = bars.map((b) => b.close);
  const days = bars.map((b) => b.d);
  const last = bars.at(-1);
  const ema12 = emaSeries(closes, 12);
  const ema26 = emaSeries(closes, 26);
  let macd: { macd: number | null; signal: number | null; histogram: number | null } = {
    macd: null,
    signal: null,
    histogram: null,
  };
  if (ema26.length > 0) {
    const line = ema26.map((e, i) => ema12[i + 14]! - e);
    const signal = emaSeries(line, 9).at(-1) ?? null;
    const m = line.at(-1)!;
    macd = { macd: round(m), signal: round(signal), histogram: signal === null ? null : round(m - signal) };
  }
  const sma50 = sma(closes, 50);
  const sma200 = sma(closes, 200);
  return {
    as_of: last ? formatDay(last.d) : null,
    close: last?.close ?? null,
    sma: {
      '20': round(sma(closes, 20)),
      '50': round(sma50),
      '100': round(sma(closes, 100)),
      '200': round(sma200),
    },
    ema: {
      '20': round(emaSeries(closes, 20).at(-1) ?? null),
      '50': round(emaSeries(closes, 50).at(-1) ?? null),
    },
    rsi_14: round(rsi(closes, 14)),
    macd,
    atr_14: round(atr(bars, 14)),
    week_52: range52(bars),
    returns_pct: periodReturns(bars),
    volatility_pct: {
      '1m': round(volatility(closes, 21, days)),
      '1y': round(volatility(closes, 252, days)),
    },
    trend: {
      above_sma_50: last && sma50 !== null ? last.close > sma50 : null,
      above_sma_200: last && sma200 !== null ? last.close > sma200 : null,
      golden_cross: sma50 !== null && sma200 !== null ? sma50 > sma200 : null,
    },
  };
}
