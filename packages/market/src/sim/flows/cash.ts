import type { Rng } from '../rng.ts';
import type { MarketReturns } from './market-returns.ts';
import type { CashFlowRow } from './model.ts';

/** Crore of FII net buying per 1% market move on the day, and per 1% the day before (they chase). */
const FII_PER_PCT = 1_800;
const FII_PER_PCT_LAGGED = 500;
/** Steady domestic inflows (SIPs) behind DII buying, crore per session. */
const DII_DRIFT = 900;
/** Turnover grows with the market: gross amounts some years back are smaller. */
const TURNOVER_GROWTH = 0.14;

const lakh = (crore: number) => Math.round(crore * 100);

/**
 * Daily FII and DII cash-market flows over the generated sessions. FII net buying follows the
 * market's return (same day and the day before) plus a persistent sentiment that makes runs of buying
 * or selling; DIIs take the other side of part of it on top of their steady inflows. Gross buying and
 * selling straddle the net, so net = buy - sell holds exactly.
 */
export function cashFlows(rng: Rng, market: MarketReturns): CashFlowRow[] {
  const { days, returns } = market;
  const rows: CashFlowRow[] = [];
  const end = days.at(-1) ?? 0;
  let sentiment = 0;
  for (let t = 0; t < days.length; t++) {
    const d = days[t]!;
    sentiment = 0.92 * sentiment + 450 * rng.normal();
    const pct = returns[t]! * 100;
    const pctBefore = t > 0 ? returns[t - 1]! * 100 : 0;
    const fiiNet = FII_PER_PCT * pct + FII_PER_PCT_LAGGED * pctBefore + sentiment + 1_200 * rng.normal();
    const diiNet = -0.55 * fiiNet + DII_DRIFT + 800 * rng.normal();
    const scale = Math.exp((-TURNOVER_GROWTH * (end - d)) / 365);
    const fiiHalf = Math.max(11_000 * scale * Math.exp(0.22 * rng.normal()), Math.abs(fiiNet) / 2 + 800);
    const diiHalf = Math.max(9_500 * scale * Math.exp(0.22 * rng.normal()), Math.abs(diiNet) / 2 + 800);
    rows.push({
      period: 'day',
      d,
      fiiBuy: lakh(fiiHalf + fiiNet / 2),
      fiiSell: lakh(fiiHalf - fiiNet / 2),
      diiBuy: lakh(diiHalf + diiNet / 2),
      diiSell: lakh(diiHalf - diiNet / 2),
    });
  }
  return rows;
}
