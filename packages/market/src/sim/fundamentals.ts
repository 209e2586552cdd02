import type { AnnualResultRow } from '../model.ts';
import type { Rng } from './rng.ts';
import type { SectorDef } from './taxonomy.ts';

/**
 * Minimal annual results consistent with the market: the latest year's profit matches a plausible
 * P/E at the generated market cap, book value a plausible P/B, and earlier years follow a company's
 * own growth rate. The full statements (sim/financials) are expanded from these rows, so the profile's
 * ratios and CAGRs and the financials route agree.
 */
export function annualResults(
  rng: Rng,
  stockId: number,
  marketCapCr: number,
  shares: number,
  sector: SectorDef,
  latestFiscalYear: number,
  years = 10,
): AnnualResultRow[] {
  const financial = sector.sector === 'Financial Services';
  const lossMaking = rng.chance(0.1);
  const pe = Math.exp(Math.log(24) + 0.55 * rng.normal());
  const pb = Math.exp(Math.log(financial ? 1.8 : 3) + 0.6 * rng.normal());
  const margin = Math.min(0.4, sector.margin * Math.exp(0.35 * rng.normal()));
  const growth = 0.11 + 0.06 * rng.normal();
  const debtToEquity = financial ? 3 + 4 * rng.next() : Math.exp(Math.log(0.35) + 0.9 * rng.normal());
  const payout = rng.chance(0.35) ? 0 : 0.1 + 0.35 * rng.next();

  let profit = lossMaking ? -(marketCapCr / pe) * (0.2 + rng.next()) : marketCapCr / pe;
  let sales = Math.abs(profit) / margin;
  let equity = marketCapCr / pb;
  const rows: AnnualResultRow[] = [];
  for (let y = latestFiscalYear; y > latestFiscalYear - years; y--) {
    const borrowings = equity * debtToEquity * Math.exp(0.15 * rng.normal());
    rows.push({
      stockId,
      fiscalYear: y,
      sales: round2(sales),
      netProfit: round2(profit),
      equity: round2(equity),
      borrowings: round2(borrowings),
      // Interest is capped at 30% of sales so that a lender's expanded P&L keeps positive expenses.
      ebit: round2(profit / 0.75 + Math.min(borrowings * 0.09, sales * 0.3)),
      dividendPs: profit > 0 ? round2((payout * profit * 1e7) / shares) : 0,
    });
    const g = growth + 0.07 * rng.normal();
    const prevSales = sales / (1 + g);
    const prevMargin = Math.min(0.45, Math.max(-0.2, margin * Math.exp(0.25 * rng.normal())));
    equity = Math.max(equity * 0.75, equity - Math.max(0, profit) * (1 - payout), 0.05);
    sales = prevSales;
    profit = lossMaking && rng.chance(0.5) ? -prevSales * Math.abs(prevMargin) * 0.5 : prevSales * prevMargin;
  }
  return rows.reverse();
}

function round2(x: number): number {
  return Math.round(x * 100) / 100;
}
