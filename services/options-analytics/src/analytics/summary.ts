import type { ExpiryAnalytics } from './chain-analytics.ts';
import type { MaxPain } from './max-pain.ts';
import {
  addTotals,
  NO_TOTALS,
  type PutCallRatios,
  type PutCallTotals,
  putCallRatios,
} from './put-call-ratio.ts';
import { constantMaturityValue, constantMaturityVol } from './term-structure.ts';

/** One underlying on one day, across its expiries: the row the IV history is made of. */
export interface UnderlyingSummary {
  /** 30-day constant-maturity ATM IV and 25-delta skew (fractions). */
  atmIv30: number | null;
  skew30: number | null;
  /** Over every expiry. */
  totals: PutCallTotals;
  ratios: PutCallRatios;
  /** Max pain of the front monthly expiry. */
  maxPain: MaxPain | null;
  maxPainExpiry: string | null;
}

/**
 * The front monthly expiry: the earliest expiry that is the last one listed in its calendar month
 * (NIFTY's weeklies are skipped; for monthly-only underlyings it is simply the nearest expiry).
 */
export function frontMonthly(expiries: readonly string[]): string | null {
  const lastOfMonth = new Map<string, string>();
  for (const e of expiries) {
    const month = e.slice(0, 7);
    const cur = lastOfMonth.get(month);
    if (cur === undefined || e > cur) lastOfMonth.set(month, e);
  }
  const monthlies = [...lastOfMonth.values()].sort();
  return monthlies[0] ?? null;
}

export function summarise(expiries: readonly ExpiryAnalytics[]): UnderlyingSummary {
  const totals = expiries.reduce((acc, e) => addTotals(acc, e.totals), NO_TOTALS);
  const front = frontMonthly(expiries.map((e) => e.expiry));
  const frontAnalytics = expiries.find((e) => e.expiry === front);
  return {
    atmIv30: constantMaturityVol(expiries.map((e) => ({ days: e.t * 365, value: e.atmIv }))),
    skew30: constantMaturityValue(expiries.map((e) => ({ days: e.t * 365, value: e.skew25d }))),
    totals,
    ratios: putCallRatios(totals),
    maxPain: frontAnalytics?.maxPain ?? null,
    maxPainExpiry: frontAnalytics?.maxPain ? front : null,
  };
}
