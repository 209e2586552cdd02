import { RpcError } from '@mdp/grpc';
import type { common } from '@mdp/proto';
import { describe, expect, it } from 'vitest';
import { catalogue, type Upstreams } from '../src/catalogue/index.ts';
import { LIST_RULE } from '../src/catalogue/route.ts';
import { toApiError } from '../src/upstreams.ts';

// SPEC 4 and 7 for the lists of a stock: a stock with nothing to list is a 200 with an empty list, a
// symbol that names no stock a 404. filings-reader holds filings, not the list of stocks, so the
// catalogue's filings lists ask equities-data (the owner of the stocks) whenever a list is empty.

const doc = (data: unknown, meta: Record<string, unknown> = {}): common.Document => ({
  data_json: Buffer.from(JSON.stringify(data)),
  meta_json: Buffer.from(JSON.stringify(meta)),
});
const read = (d: common.Document) => JSON.parse(Buffer.from(d.data_json).toString('utf8'));

/** The stocks equities-data knows: each key a symbol or another name (a BSE code) of a stock. */
const STOCKS: Record<string, string> = { INFY: 'INFY', '500209': 'INFY', NOFILE: 'NOFILE' };
/** What filings-reader holds, by symbol. */
const FILINGS: Record<string, unknown[]> = { INFY: [{ doc_id: 1, doc_type: 'concall' }] };

function fakeUpstreams() {
  const calls: string[] = [];
  const filingsList = async (req: { symbol: string }) => {
    calls.push(`filings ${req.symbol}`);
    const symbol = req.symbol.toUpperCase();
    const items = FILINGS[symbol] ?? [];
    return doc(items, { symbol, count: items.length });
  };
  const up = {
    filings: { listDocuments: filingsList, getEarningsCalls: filingsList },
    equities: {
      getStockQuote: async ({ symbol }: { symbol: string }) => {
        calls.push(`equities ${symbol}`);
        const named = STOCKS[symbol.toUpperCase()];
        // As the gRPC client raises it.
        if (!named) throw RpcError.notFound(`no stock with symbol "${symbol}"`).toServiceError();
        return doc({ symbol: named, ltp: 1 });
      },
    },
  } as unknown as Upstreams;
  return { up, calls };
}

const listRoutes = catalogue.filter(
  (r) => r.upstream === 'filings' && ['listDocuments', 'getEarningsCalls'].includes(r.operationId),
);

describe('the filings lists of a stock', () => {
  it('are the two list routes filings-reader answers', () => {
    expect(listRoutes.map((r) => r.operationId).sort()).toEqual(['getEarningsCalls', 'listDocuments']);
  });

  for (const route of listRoutes) {
    const call = (up: Upstreams, symbol: string) =>
      route.dispatch!(up, {
        params: { symbol },
        query: { limit: 2, doc_types: undefined },
        caller: null,
      } as never);

    it(`${route.operationId}: filings held are answered with one call`, async () => {
      const { up, calls } = fakeUpstreams();
      expect(read(await call(up, 'INFY'))).toEqual([{ doc_id: 1, doc_type: 'concall' }]);
      expect(calls).toEqual(['filings INFY']);
    });

    it(`${route.operationId}: a stock with nothing filed is an empty list`, async () => {
      const { up, calls } = fakeUpstreams();
      expect(read(await call(up, 'NOFILE'))).toEqual([]);
      expect(calls).toEqual(['filings NOFILE', 'equities NOFILE']);
    });

    it(`${route.operationId}: a symbol that names no stock is equities-data's 404 not_found`, async () => {
      const { up } = fakeUpstreams();
      const err = toApiError(await call(up, 'NOSUCH').catch((e: unknown) => e));
      expect(err.status).toBe(404);
      expect(err.code).toBe('not_found');
      expect(err.message).toBe('no stock with symbol "NOSUCH"');
    });

    it(`${route.operationId}: a stock named another way (a BSE code) is asked for by its symbol`, async () => {
      const { up, calls } = fakeUpstreams();
      expect(read(await call(up, '500209'))).toEqual([{ doc_id: 1, doc_type: 'concall' }]);
      expect(calls).toEqual(['filings 500209', 'equities 500209', 'filings INFY']);
    });
  }
});

describe('every list of a stock says the rule in its description', () => {
  it('each per-stock route whose data is a list', () => {
    const lists = catalogue.filter(
      (r) => r.path.includes('{symbol}') && (r.data as { type?: string } | undefined)?.type === 'array',
    );
    expect(lists.map((r) => r.operationId).sort()).toEqual([
      'getDeals',
      'getEarningsCalls',
      'getPriceHistory',
      'getRatings',
      'getStockEvents',
      'listDocuments',
    ]);
    for (const r of lists) expect(r.description, r.operationId).toContain(LIST_RULE);
  });

  it('and each company document whose lists may be empty', () => {
    for (const id of ['getShareholding', 'getPledge', 'getForecasts'])
      expect(catalogue.find((r) => r.operationId === id)!.description, id).toMatch(
        /A company with no \w+ held is a 200 with empty lists .* a symbol that names no stock/,
      );
  });
});
