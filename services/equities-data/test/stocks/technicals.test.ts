import type { AnnualResultRow } from '@mdp/market';
import { day } from '@mdp/nse-calendar';
import { describe, expect, it } from 'vitest';
import type { PriceBar } from '../../src/areas/stocks/domain/adjust.ts';
import { cagr, growth } from '../../src/areas/stocks/domain/growth.ts';
import {
  emaSeries,
  periodReturns,
  range52,
  rsi,
  sma,
  technicals,
  volatility,
} from '../../src/areas/stocks/domain/technicals.ts';

const bars = (closes: number[], start = day('2024-01-01')): PriceBar[] =>
  closes.map((c, i) => ({
    d: start + i,
    open: c,
    high: c + 1,
    low: c - 1,
    close: c,
    volume: 100,
    deliveryQty: 50,
  }));

describe('technical indicators', () => {
  it('computes simple and exponential moving averages', () => {
    expect(sma([1, 2, 3, 4, 5], 5)).toBe(3);
    expect(sma([1, 2], 5)).toBeNull();
    // EMA(3): seed (1+2+3)/3 = 2, then 4*0.5 + 2*0.5 = 3.
    expect(emaSeries([1, 2, 3, 4], 3)).toEqual([2, 3]);
  });

  it("computes Wilder's RSI: 100 on a rising series, 0 on a falling one, about 50 on a zigzag", () => {
    expect(rsi(Array.from({ length: 30 }, (_, i) => 100 + i))).toBe(100);
    expect(rsi(Array.from({ length: 30 }, (_, i) => 100 - i))).toBe(0);
    const zigzag = rsi(Array.from({ length: 31 }, (_, i) => (i % 2 ? 101 : 100)))!;
    expect(Math.abs(zigzag - 50)).toBeLessThan(3);
    // The textbook example (Wilder, 14 periods) gives about 70.5 on its first value.
    const wilder = [
      44.34, 44.09, 44.15, 43.61, 44.33, 44.83, 45.1, 45.42, 45.84, 46.08, 45.89, 46.03, 45.61, 46.28, 46.28,
    ];
    expect(rsi(wilder)).toBeCloseTo(70.46, 1);
  });

  it('annualises the volatility of daily log returns', () => {
    const closes = Array.from({ length: 253 }, (_, i) => 100 * Math.exp((i % 2 ? 0.01 : -0.01) * 1));
    // Returns alternate ±0.02: standard deviation 0.02, times √252.
    expect(volatility(closes, 252)).toBeCloseTo(0.02 * Math.sqrt(252) * 100, 0);
  });

  it('measures returns over calendar periods and the 52-week range with its dates', () => {
    const series = bars(Array.from({ length: 800 }, (_, i) => 100 + i));
    const r = periodReturns(series);
    expect(r['1y']).toBeCloseTo((899 / (899 - 365) - 1) * 100, 1);
    expect(r['3y']).toBeNull();
    expect(range52(series)).toMatchObject({ high: 900, low: 100 + 800 - 365 - 1 });
    const t = technicals(series);
    expect(t.sma['50']).toBeCloseTo(874.5, 5);
    expect(t.trend).toEqual({ above_sma_50: true, above_sma_200: true, golden_cross: true });
  });
});

describe('growth', () => {
  it('compounds annual growth, and gives none when the start or end is not positive', () => {
    expect(cagr(100, 200, 5)).toBeCloseTo(14.87, 2);
    expect(cagr(-5, 200, 5)).toBeNull();
    expect(cagr(100, 0, 3)).toBeNull();
  });

  it('reports compounded sales and profit growth, ROE by period and year-on-year growth rates', () => {
    const annual: AnnualResultRow[] = Array.from({ length: 6 }, (_, i) => ({
      stockId: 1,
      fiscalYear: 2021 + i,
      sales: 100 * 1.1 ** i,
      netProfit: 10 * 1.2 ** i,
      equity: 100,
      borrowings: 0,
      ebit: 15,
      dividendPs: 0,
    }));
    const g = growth(annual, bars([100, 110]));
    expect(g.compounded_sales_growth_pct['5y']).toBeCloseTo(10, 5);
    expect(g.compounded_profit_growth_pct['3y']).toBeCloseTo(20, 5);
    expect(g.compounded_sales_growth_pct['10y']).toBeNull();
    expect(g.return_on_equity_pct.last_year).toBeCloseTo(24.88, 2);
    expect(g.growth_rates[1]).toMatchObject({
      fiscal_year: 'FY2022',
      sales_growth_pct: 10,
      profit_growth_pct: 20,
    });
    expect(g.latest_fiscal_year).toBe('FY2026');
  });
});
