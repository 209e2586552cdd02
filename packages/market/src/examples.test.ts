import { describe, expect, it } from 'vitest';
import { DEFAULT_EXAMPLES as ex } from './examples.ts';
import { DEFAULT_HISTORY_DAYS, DEFAULT_SEED, DEFAULT_SIZE, generateDataset } from './sim/dataset.ts';

// 2026-11-20, a Friday session; the names must not depend on the end day, so any day will do.
const endDay = Date.UTC(2026, 10, 20) / 86_400_000;

describe('the default dataset holds every example name the docs use', () => {
  const market = generateDataset({
    seed: DEFAULT_SEED,
    size: DEFAULT_SIZE,
    historyDays: DEFAULT_HISTORY_DAYS,
    endDay,
  });
  const bySymbol = (symbol: string) => market.stocks.find((s) => s.symbol === symbol);
  const aliasOwner = (kind: string, alias: string) =>
    market.stocks.find(
      (s) => s.id === market.aliases.find((a) => a.kind === kind && a.alias === alias)?.stockId,
    );

  it('names listed NSE equities, and a query that finds the example stock', () => {
    for (const symbol of [ex.stock, ...ex.peers, ex.brandOwner, ex.renamedTo]) {
      expect(bySymbol(symbol), symbol).toMatchObject({
        stockType: 'equity',
        status: 'listed',
        nseSymbol: symbol,
      });
    }
    expect(bySymbol(ex.stock)!.name).toBe(ex.stockName);
    expect(ex.stockName.toLowerCase()).toContain(ex.search);
  });

  it('names a brand and a former symbol of the companies said', () => {
    expect(aliasOwner('brand', ex.brand)?.symbol).toBe(ex.brandOwner);
    expect(aliasOwner('former_symbol', ex.formerSymbol)?.symbol).toBe(ex.renamedTo);
  });

  it('names a listed ETF', () => {
    expect(bySymbol(ex.etf)).toMatchObject({ stockType: 'etf', status: 'listed' });
  });

  it('holds no company of the real market the old examples named', () => {
    for (const real of ['TCS', 'RELIANCE', 'INFY', 'ETERNAL', 'M&M'])
      expect(bySymbol(real), real).toBeUndefined();
  });
});
