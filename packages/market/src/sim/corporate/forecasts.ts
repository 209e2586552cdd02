import type { GeneratedDataset } from '../dataset.ts';
import { generateFinancials } from '../financials/index.ts';
import {
  type FinancialStatementRow,
  fiscalYearEnd,
  fiscalYearOf,
  periodLabel,
} from '../financials/statements.ts';
import { Rng } from '../rng.ts';
import type { ForecastRow, PriceTargetRow } from './model.ts';
import { lastPrice, listedEquities, quarterEnds } from './universe.ts';

const STREAM = 6_200_000;
/** Reported periods shown against their consensus, and periods ahead with estimates only. */
export const FORECAST_PAST_YEARS = 5;
export const FORECAST_YEARS_AHEAD = 2;
export const FORECAST_PAST_QUARTERS = 8;
export const FORECAST_QUARTERS_AHEAD = 2;

const r2 = (x: number) => Math.round(x * 100) / 100;

/** A period's figures as the company reported them (rupees crore, EPS rupees, returns percent). */
export interface ForecastActuals {
  revenue: number;
  ebitda: number;
  netIncome: number;
  eps: number;
  roa: number;
  roe: number;
}

/**
 * The reported figures of each period in a company's statements: revenue, operating profit as
 * EBITDA, net profit and EPS from the P&L; ROE and ROA on the total equity and total assets of the
 * latest balance sheet at the period end (annualised for quarters).
 */
export function reportedActuals(
  periods: readonly FinancialStatementRow[],
  asOf: number,
): { annual: Map<number, ForecastActuals>; quarterly: Map<number, ForecastActuals> } {
  const sheets = periods
    .filter((p) => p.section === 'balance_sheet')
    .sort((a, b) => a.periodEnd - b.periodEnd);
  const of = (p: FinancialStatementRow, scale: number): ForecastActuals | undefined => {
    const bs = sheets.filter((b) => b.periodEnd <= p.periodEnd).at(-1)?.items;
    const np = p.items['Net Profit'];
    if (!bs || np === undefined) return undefined;
    return {
      revenue: p.items.Revenue!,
      ebitda: p.items['Operating Profit']!,
      netIncome: np,
      eps: p.items['EPS (Rs)']!,
      roa: r2(((np * scale) / bs['Total Assets']!) * 100),
      roe: r2(((np * scale) / bs['Total Equity']!) * 100),
    };
  };
  const annual = new Map<number, ForecastActuals>();
  const quarterly = new Map<number, ForecastActuals>();
  for (const p of periods) {
    if (p.availableFrom > asOf) continue;
    const a = p.section === 'profit_loss' ? of(p, 1) : p.section === 'quarterly' ? of(p, 4) : undefined;
    if (a) (p.section === 'profit_loss' ? annual : quarterly).set(p.periodEnd, a);
  }
  return { annual, quarterly };
}

/** Analysts covering a company: none for the smallest, up to about 45 for the largest. */
function coverage(rng: Rng, marketCapCr: number): number {
  const n = (Math.log10(Math.max(1, marketCapCr)) - 2.7) * 13 + rng.normal() * 3;
  return Math.max(0, Math.min(45, Math.round(n)));
}

/**
 * Consensus estimates against the reported figures of the companies' financial statements (the
 * financials generator, itself expanded from the annual results), for the latest reported years and
 * quarters, and estimates only for the periods ahead. Companies no analyst covers get no rows.
 */
export function generateForecasts(ds: GeneratedDataset): {
  forecasts: ForecastRow[];
  targets: PriceTargetRow[];
} {
  const end = ds.options.endDay;
  const listed = new Map(listedEquities(ds).map((s) => [s.id, s]));
  const forecasts: ForecastRow[] = [];
  const targets: PriceTargetRow[] = [];
  generateFinancials(ds, (stockId, periods) => {
    const s = listed.get(stockId);
    if (!s) return;
    const rng = new Rng(ds.options.seed, STREAM + stockId);
    const analysts = coverage(rng, ds.plans.get(stockId)!.marketCapCr);
    const { annual, quarterly } = reportedActuals(periods, end);
    const years = [...annual.keys()].sort((a, b) => a - b).slice(-FORECAST_PAST_YEARS);
    const quarters = [...quarterly.keys()].sort((a, b) => a - b).slice(-FORECAST_PAST_QUARTERS);
    if (analysts === 0 || years.length === 0) return;
    const growth = 0.08 + 0.06 * rng.normal();
    const row = (
      periodType: ForecastRow['periodType'],
      period: string,
      periodEnd: number,
      base: ForecastActuals,
      actual: ForecastActuals | null,
      spread: number,
      n: number,
    ): ForecastRow => {
      const k = 1 + spread * rng.normal();
      // Revenue is easier to forecast than profit: a smaller miss.
      const revenueMiss = 1 + spread * 0.4 * rng.normal();
      return {
        stockId,
        periodType,
        period,
        periodEnd,
        analysts: Math.max(1, n),
        revenueEst: r2(base.revenue * revenueMiss),
        revenueAct: actual ? actual.revenue : null,
        ebitdaEst: r2(base.ebitda * (1 + spread * 0.6 * rng.normal())),
        ebitdaAct: actual ? actual.ebitda : null,
        netIncomeEst: r2(base.netIncome * k),
        netIncomeAct: actual ? actual.netIncome : null,
        epsEst: r2(base.eps * k),
        epsAct: actual ? actual.eps : null,
        roaEst: r2(base.roa * k),
        roaAct: actual ? actual.roa : null,
        roeEst: r2(base.roe * k),
        roeAct: actual ? actual.roe : null,
      };
    };
    const scaled = (a: ForecastActuals, f: number): ForecastActuals => ({
      revenue: a.revenue * f,
      ebitda: a.ebitda * f,
      netIncome: a.netIncome * f,
      eps: a.eps * f,
      roa: a.roa,
      roe: a.roe,
    });
    for (const y of years) {
      const a = annual.get(y)!;
      forecasts.push(row('annual', periodLabel('profit_loss', y), y, a, a, 0.12, analysts));
    }
    const lastYear = annual.get(years.at(-1)!)!;
    const lastFy = fiscalYearOf(years.at(-1)!);
    for (let k = 1; k <= FORECAST_YEARS_AHEAD; k++) {
      const ahead = scaled(lastYear, (1 + growth) ** k);
      forecasts.push(
        row('annual', `FY${lastFy + k}`, fiscalYearEnd(lastFy + k), ahead, null, 0.05, analysts - 2 * k),
      );
    }
    for (const q of quarters) {
      const a = quarterly.get(q)!;
      forecasts.push(row('quarterly', periodLabel('quarterly', q), q, a, a, 0.15, analysts - 2));
    }
    // Quarters ahead: the same quarter a year earlier, grown.
    const lastQuarter = quarters.at(-1);
    const next = lastQuarter === undefined ? [] : quarterEnds(lastQuarter + 1, lastQuarter + 200);
    next.slice(0, FORECAST_QUARTERS_AHEAD).forEach((periodEnd, i) => {
      const yearAgo = quarterly.get(quarters[quarters.length - 4 + i] ?? -1);
      if (!yearAgo) return;
      const label = periodLabel('quarterly', periodEnd);
      forecasts.push(
        row('quarterly', label, periodEnd, scaled(yearAgo, 1 + growth), null, 0.05, analysts - 3),
      );
    });
    const price = lastPrice(ds, s);
    const mean = price * (1 + 0.1 + 0.12 * rng.normal());
    const buy = Math.round(analysts * (0.3 + 0.5 * rng.next()));
    const sell = Math.round((analysts - buy) * rng.next() * 0.6);
    targets.push({
      stockId,
      d: end,
      analysts,
      mean: r2(mean),
      high: r2(mean * (1.15 + 0.25 * rng.next())),
      low: r2(mean * (0.6 + 0.3 * rng.next())),
      buy,
      hold: analysts - buy - sell,
      sell,
    });
  });
  return { forecasts, targets };
}
