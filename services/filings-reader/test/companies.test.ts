import { generateDataset } from '@mdp/market';
import { day } from '@mdp/nse-calendar';
import { describe, expect, it } from 'vitest';
import { generateCompanies } from '../src/generate/companies.ts';

describe('the companies of the generated filings', () => {
  const market = generateDataset({ seed: 5, size: 600, endDay: day('2026-11-20'), historyDays: 400 });
  const companies = generateCompanies(40, market);

  it('are listed NSE companies of the generated market, largest first, with its names, sectors and revenue', () => {
    expect(companies).toHaveLength(40);
    const caps = companies.map((c) => {
      const stock = market.stocks.find((s) => s.symbol === c.symbol)!;
      expect(stock, c.symbol).toBeDefined();
      expect(stock).toMatchObject({ status: 'listed', stockType: 'equity', name: c.name, sector: c.sector });
      expect(stock.nseSymbol).toBe(c.symbol);
      const latest = market.annual.filter((a) => a.stockId === stock.id).at(-1)!;
      expect(c.revenueCr).toBe(Math.max(1, Math.round(latest.sales)));
      return market.plans.get(stock.id)!.marketCapCr;
    });
    expect(caps).toEqual([...caps].sort((a, b) => b - a));
    const smallest = caps.at(-1)!;
    const larger = market.stocks.filter(
      (s) =>
        s.status === 'listed' &&
        s.stockType === 'equity' &&
        s.nseSymbol &&
        (market.plans.get(s.id)?.marketCapCr ?? 0) > smallest,
    );
    expect(larger.length).toBe(39);
  });

  it('are the same for the same market', () => {
    expect(generateCompanies(40, market)).toEqual(companies);
  });
});
