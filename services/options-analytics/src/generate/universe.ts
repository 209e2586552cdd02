import type { GeneratedDataset, StockRow } from '@mdp/market';

/**
 * Which underlyings of the generated market have derivatives. The index contracts follow NSE's
 * specifications (lot sizes, strike intervals); their levels come from the market's indices. Stocks
 * are chosen the way NSE's eligibility works in spirit: the largest companies by market value.
 */

/** Index underlyings with F&O: the contract symbol, the index it tracks, lot size and strike interval. */
export const INDEX_UNDERLYINGS = [
  { symbol: 'NIFTY', index: 'NIFTY 50', lotSize: 65, strikeStep: 50 },
  { symbol: 'BANKNIFTY', index: 'NIFTY BANK', lotSize: 30, strikeStep: 100 },
  { symbol: 'FINNIFTY', index: 'NIFTY FINANCIAL SERVICES', lotSize: 60, strikeStep: 50 },
  { symbol: 'MIDCPNIFTY', index: 'NIFTY MIDCAP SELECT', lotSize: 120, strikeStep: 25 },
  { symbol: 'NIFTYNXT50', index: 'NIFTY NEXT 50', lotSize: 25, strikeStep: 100 },
] as const;

/** Stocks with F&O today (NSE lists about 210). */
const FNO_STOCK_COUNT = 208;
/** Stocks whose F&O was discontinued during the history: an IV history up to that day, no chain. */
const FORMER_FNO_STOCK_COUNT = 343;

export interface FnoStocks {
  current: StockRow[];
  former: StockRow[];
}

/**
 * The F&O stocks of a generated market: listed NSE main-board equities that traded over the whole
 * history, largest market value first; the next ones down are those whose F&O has ended. A smaller
 * market simply has fewer.
 */
export function fnoStocks(ds: GeneratedDataset): FnoStocks {
  const start = ds.options.endDay - ds.options.historyDays;
  const ranked = ds.stocks
    .filter((s) => s.status === 'listed' && s.stockType === 'equity' && s.board === 'main' && s.nseSymbol)
    .filter((s) => ds.plans.get(s.id)?.firstDay === start)
    .map((s) => ({ s, cap: ds.plans.get(s.id)!.marketCapCr }))
    .sort((a, b) => b.cap - a.cap || a.s.id - b.s.id)
    .map((x) => x.s);
  return {
    current: ranked.slice(0, FNO_STOCK_COUNT),
    former: ranked.slice(FNO_STOCK_COUNT, FNO_STOCK_COUNT + FORMER_FNO_STOCK_COUNT),
  };
}
