import { type DayNumber, tradingDays } from '@mdp/nse-calendar';
import type { GeneratedDataset } from '../dataset.ts';

/** How many of the largest listed equities stand in for the market. */
const MARKET_STOCKS = 25;

export interface MarketReturns {
  /** The generated history's sessions, oldest first. */
  days: DayNumber[];
  /** Market-cap-weighted mean daily log return of the largest stocks on each session (0 on the first). */
  returns: Float64Array;
}

/**
 * The generated market's daily returns, measured from the bars users see: the largest listed
 * equities' closes, adjusted for splits and bonuses on their ex-dates, weighted by market cap. Cheap
 * (a few dozen stocks re-simulated) and it keeps the flows tied to the prices.
 */
export function marketReturns(ds: GeneratedDataset): MarketReturns {
  const end = ds.options.endDay;
  const days = tradingDays(end - ds.options.historyDays, end);
  const index = new Map(days.map((d, i) => [d, i]));
  const sum = new Float64Array(days.length);
  const weight = new Float64Array(days.length);
  const largest = ds.stocks
    .filter((s) => s.status === 'listed' && s.stockType === 'equity' && ds.plans.has(s.id))
    .map((s) => ({ id: s.id, cap: ds.plans.get(s.id)!.marketCapCr }))
    .sort((a, b) => b.cap - a.cap || a.id - b.id)
    .slice(0, MARKET_STOCKS);
  for (const { id, cap } of largest) {
    const factor = new Map<DayNumber, number>();
    for (const a of ds.actions)
      if (a.stockId === id) factor.set(a.exDate, (factor.get(a.exDate) ?? 1) * (a.ratioNew / a.ratioOld));
    let previous: number | undefined;
    ds.emitBars(id, (bar) => {
      const i = index.get(bar.d);
      if (previous !== undefined && i !== undefined) {
        sum[i]! += cap * Math.log((bar.close * (factor.get(bar.d) ?? 1)) / previous);
        weight[i]! += cap;
      }
      previous = bar.close;
    });
  }
  const returns = new Float64Array(days.length);
  for (let i = 0; i < days.length; i++) returns[i] = weight[i]! > 0 ? sum[i]! / weight[i]! : 0;
  return { days, returns };
}
