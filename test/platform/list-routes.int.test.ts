import { generateDataset, type StockRow } from '@mdp/market';
import { beforeAll, describe, expect, it } from 'vitest';
import { get, getAs, ok, platform } from './client.ts';

// SPEC 4 and 7 for every list of a stock, through the gateway on the loaded platform: a stock that
// exists with nothing to list is a 200 with an empty list and costs one unit; a symbol that names no
// stock is a 404 `not_found` and costs nothing. The filings lists (filings-reader) and the equities lists
// (equities-data) alike.

/** Stocks of each kind and status the generated market holds, the largest first. */
let candidates: StockRow[];
let market: ReturnType<typeof generateDataset>;

beforeAll(async () => {
  market = generateDataset(platform.market);
  const kinds = new Map<string, StockRow>();
  for (const s of market.stocks) {
    const key = `${s.stockType}/${s.status}/${s.board}`;
    if (!kinds.has(key)) kinds.set(key, s);
  }
  const listed = market.stocks.filter((s) => s.stockType === 'equity' && s.status === 'listed');
  candidates = [listed.at(-1)!, ...kinds.values(), ...listed.slice(-20)];
}, 180_000);

const enc = (s: string) => encodeURIComponent(s);

/** Each list route, with the calls that may find a stock with nothing to list. */
const LISTS: { route: string; paths: (symbol: string) => string[] }[] = [
  { route: 'listDocuments', paths: (s) => [`/v1/stocks/${enc(s)}/documents`] },
  { route: 'getEarningsCalls', paths: (s) => [`/v1/stocks/${enc(s)}/earnings-calls`] },
  {
    route: 'getStockEvents',
    paths: (s) =>
      ['news', 'corporate_actions', 'filings'].map((t) => `/v1/stocks/${enc(s)}/events?type=${t}`),
  },
  {
    route: 'getDeals',
    paths: (s) => ['sast', 'insider', 'block', 'bulk'].map((t) => `/v1/stocks/${enc(s)}/deals?type=${t}`),
  },
  { route: 'getRatings', paths: (s) => [`/v1/stocks/${enc(s)}/ratings`] },
  { route: 'getPriceHistory', paths: (s) => [`/v1/stocks/${enc(s)}/price?days=1`] },
];

/** A call of the route that answers 200 with an empty list for a stock that exists. */
async function emptyListCall(paths: (symbol: string) => string[]): Promise<string | undefined> {
  for (const s of candidates)
    for (const path of paths(s.symbol)) {
      const r = await get(path);
      if (r.status === 200 && Array.isArray(r.body.data) && r.body.data.length === 0) return path;
    }
  return undefined;
}

describe('the lists of a stock', () => {
  it('a stock with nothing to list: 200, an empty list, one unit; no such stock: 404 not_found, free', async () => {
    // A fresh account on the free plan (50 a day): its usage is this test's calls alone.
    const token = platform.spare.free[2]!;
    const used = async () => (await getAs(token, '/v1/me/usage')).body.data.day.used as number;
    expect(await used()).toBe(0);
    let units = 0;
    for (const { route, paths } of LISTS) {
      const path = await emptyListCall(paths);
      expect(path, `${route}: no stock of the market has an empty list`).toBeDefined();
      const empty = await getAs(token, path!);
      expect(empty.status, path).toBe(200);
      expect(empty.body.data, path).toEqual([]);
      expect(empty.body.meta.route, path).toBe(route);
      units++;
      expect(await used(), `${path} costs one unit`).toBe(units);

      const unknown = paths('NOSUCHCO')[0]!;
      const missing = await getAs(token, unknown);
      expect(missing.status, unknown).toBe(404);
      expect(missing.body.error.code, unknown).toBe('not_found');
      expect(missing.body.error.message, unknown).toMatch(/no stock with symbol "NOSUCHCO"/);
      expect(await used(), `${unknown} is free`).toBe(units);
    }
  }, 120_000);

  it('the filings lists accept any name of a stock equities-data accepts (its BSE code here)', async () => {
    const filer = market.stocks.find((s) => s.symbol === platform.symbols.filer && s.bseCode)!;
    expect(filer, 'the company with filings has a BSE code').toBeDefined();
    for (const leaf of ['documents', 'earnings-calls']) {
      const bySymbol = await ok(`/v1/stocks/${enc(filer.symbol)}/${leaf}`);
      const byCode = await ok(`/v1/stocks/${filer.bseCode}/${leaf}`);
      expect(bySymbol.data.length, leaf).toBeGreaterThan(0);
      expect(byCode.data.map((d: { doc_id: number }) => d.doc_id)).toEqual(
        bySymbol.data.map((d: { doc_id: number }) => d.doc_id),
      );
      expect(byCode.meta.symbol).toBe(filer.symbol);
    }
  });
});
