import { platform } from './client.ts';

const { stock, etf, filer } = platform.symbols;

/**
 * One valid call of every data route (names of the generated default data) as JSON arguments (lists as
 * arrays) and the REST path that asks the same, by operation id: for the MCP tools and the typed client.
 * `docId` is a document of the filer (list its documents first).
 */
export const validCalls = (
  docId: number,
): Record<string, { args: Record<string, unknown>; path: string }> => ({
  searchStocks: { args: { q: stock, limit: 5 }, path: `/v1/stocks?q=${stock}&limit=5` },
  getStockProfile: {
    args: { symbol: stock, include: ['peers'] },
    path: `/v1/stocks/${stock}?include=peers`,
  },
  getStockQuote: { args: { symbol: stock }, path: `/v1/stocks/${stock}/quote` },
  getQuotes: { args: { symbols: [stock, etf] }, path: `/v1/quotes?symbols=${stock},${etf}` },
  getPriceHistory: { args: { symbol: stock, days: 30 }, path: `/v1/stocks/${stock}/price?days=30` },
  getFinancials: { args: { symbol: stock }, path: `/v1/stocks/${stock}/financials` },
  getStockEvents: { args: { symbol: stock }, path: `/v1/stocks/${stock}/events` },
  getDeals: { args: { symbol: stock }, path: `/v1/stocks/${stock}/deals` },
  getShareholding: { args: { symbol: stock }, path: `/v1/stocks/${stock}/shareholding` },
  getForecasts: { args: { symbol: stock }, path: `/v1/stocks/${stock}/forecasts` },
  getPledge: { args: { symbol: stock }, path: `/v1/stocks/${stock}/pledge` },
  getRatings: { args: { symbol: stock }, path: `/v1/stocks/${stock}/ratings` },
  getEarningsCalls: { args: { symbol: filer }, path: `/v1/stocks/${filer}/earnings-calls` },
  listDocuments: { args: { symbol: filer, limit: 5 }, path: `/v1/stocks/${filer}/documents?limit=5` },
  readDocument: {
    args: { symbol: filer, doc_id: docId, pages: '1-2' },
    path: `/v1/stocks/${filer}/documents/read?doc_id=${docId}&pages=1-2`,
  },
  getDocumentSummary: {
    args: { symbol: filer, doc_id: docId },
    path: `/v1/stocks/${filer}/documents/summary?doc_id=${docId}`,
  },
  getStockOptions: { args: { symbol: 'NIFTY' }, path: '/v1/stocks/NIFTY/options' },
  getOptionChain: { args: { symbol: 'NIFTY', strikes: 10 }, path: '/v1/options/NIFTY/chain?strikes=10' },
  getIvHistory: { args: { symbol: 'NIFTY', range: '3m' }, path: '/v1/options/NIFTY/iv-history?range=3m' },
  listIndices: { args: { category: 'sectoral' }, path: '/v1/indices?category=sectoral' },
  getIndexHistory: {
    args: { name: 'NIFTY 50' },
    path: `/v1/indices/${encodeURIComponent('NIFTY 50')}/history`,
  },
  getFiiDii: { args: {}, path: '/v1/market/fii-dii' },
  getValuations: { args: { years: 3 }, path: '/v1/market/valuations?years=3' },
  getMarketNews: { args: { limit: 5 }, path: '/v1/market/news?limit=5' },
  getFpiSectors: { args: {}, path: '/v1/market/fpi-sectors' },
  getMyUsage: { args: {}, path: '/v1/me/usage' },
});
