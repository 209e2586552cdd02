import type { AnnualResultRow } from '@mdp/market';
import type { PriceBar } from './adjust.ts';
import { closeOnOrBefore } from './technicals.ts';

const round = (x: number | null) => (x === null || !Number.isFinite(x) ? null : Math.round(x * 100) / 100);

/** Compound annual growth in % from `start` to `end` over `years`; null unless both are positive. */
export function cagr(start: number | undefined, end: number | undefined, years: number): number | null {
  if (start === undefined || end === undefined || start <= 0 || end <= 0 || years <= 0) return null;
  return round(((end / start) ** (1 / years) - 1) * 100);
}

const PERIODS = [10, 5, 3, 1] as const;

/** Growth section of the profile: compounded sales, profit and price growth, ROE by period. */
export function growth(annual: readonly AnnualResultRow[], bars: readonly PriceBar[]) {
  const byYear = [...annual].sort((a, b) => a.fiscalYear - b.fiscalYear);
  const latest = byYear.at(-1);
  const at = (yearsBack: number) =>
    byYear.find((r) => latest && r.fiscalYear === latest.fiscalYear - yearsBack);
  const compounded = (pick: (r: AnnualResultRow) => number) =>
    Object.fromEntries(
      PERIODS.map((n) => {
        const start = at(n);
        return [`${n}y`, latest && start ? cagr(pick(start), pick(latest), n) : null];
      }),
    );
  const roe = (r: AnnualResultRow) => (r.equity > 0 ? (r.netProfit / r.equity) * 100 : null);
  const avgRoe = (n: number) => {
    const rows = byYear.slice(-n);
    if (rows.length < n) return null;
    const values = rows.map(roe).filter((x): x is number => x !== null);
    return values.length === n ? round(values.reduce((a, b) => a + b, 0) / n) : null;
  };
  const last = bars.at(-1);
  const priceCagr = Object.fromEntries(
    PERIODS.map((n) => {
      const base =
        last && bars[0]!.d <= last.d - 365 * n
          ? closeOnOrBefore(bars, last.d - Math.round(365.25 * n))
          : null;
      return [`${n}y`, last && base ? cagr(base, last.close, n) : null];
    }),
  );
  return {
    latest_fiscal_year: latest ? `FY${latest.fiscalYear}` : null,
    compounded_sales_growth_pct: compounded((r) => r.sales),
    compounded_profit_growth_pct: compounded((r) => r.netProfit),
    stock_price_cagr_pct: priceCagr,
    return_on_equity_pct: {
      '10y': avgRoe(10),
      '5y': avgRoe(5),
      '3y': avgRoe(3),
      last_year: latest ? round(roe(latest)) : null,
    },
    growth_rates: byYear.map((r, i) => {
      const prev = byYear[i - 1];
      const yoy = (a: number, b: number | undefined) =>
        b === undefined || b <= 0 ? null : round((a / b - 1) * 100);
      return {
        fiscal_year: `FY${r.fiscalYear}`,
        sales_cr: r.sales,
        net_profit_cr: r.netProfit,
        sales_growth_pct: prev ? yoy(r.sales, prev.sales) : null,
        profit_growth_pct: prev ? yoy(r.netProfit, prev.netProfit) : null,
        roe_pct: round(roe(r)),
      };
    }),
  };
}
