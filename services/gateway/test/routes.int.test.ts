import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServices, startGateway, startServices, type TestGateway } from './harness.ts';
import { SPEC_ROUTES } from './spec-table.ts';

let services: RunningServices;
let gw: TestGateway;
const NOW = Date.parse('2026-03-14T10:11:12.000Z');

beforeAll(async () => {
  services = await startServices({ ledgerClock: () => NOW });
  gw = await startGateway(services, { clock: () => NOW });
});
afterAll(async () => {
  await gw.close();
  await services.stop();
});

const get = (url: string) => gw.get(url);

describe('every SPEC route reaches its owning service over gRPC', () => {
  for (const spec of SPEC_ROUTES.filter((r) => r.upstream && r.upstream !== 'ledger')) {
    it(`${spec.operationId}: ${spec.example}`, async () => {
      const res = await get(spec.example);
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      const body = res.json();
      expect(Object.keys(body).sort()).toEqual(['data', 'meta']);
      expect(body.data.method).toBe(spec.method);
      expect(body.meta.route).toBe(spec.operationId);
      expect(body.meta.as_of).toBe('2026-03-14T10:11:12.000Z');
      expect(body.meta.echoed).toBe(true);
      // Defaults are filled in and typed before the service sees them.
      for (const p of spec.params) {
        if ('default' in p && p.default !== undefined && p.kind !== 'pages') {
          expect(body.data.request[p.name], p.name).toStrictEqual(p.default);
        }
      }
    });
  }
});

describe('the usage route reaches the ledger shard of the caller', () => {
  it("answers the SPEC 2.5 document for the token's own account and plan", async () => {
    const res = await get('/v1/me/usage');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.meta.route).toBe('getMyUsage');
    expect(body.data).toEqual({
      plan: 'test_unmetered',
      day: {
        period: '2026-03-14',
        used: expect.any(Number),
        limit: null,
        remaining: null,
        resets_at: '2026-03-14T18:30:00Z',
        by_interface: { rest: expect.any(Number), mcp: 0 },
      },
      month: {
        period: '2026-03',
        used: expect.any(Number),
        limit: null,
        remaining: null,
        resets_at: '2026-03-31T18:30:00Z',
        by_interface: { rest: expect.any(Number), mcp: 0 },
      },
    });
  });
});

describe('parameters arrive typed and normalised', () => {
  it('a percent-encoded & in a symbol arrives decoded', async () => {
    const res = await get('/v1/stocks/M%26M/quote');
    expect(res.json().data.request).toEqual({ symbol: 'M&M' });
  });

  it('comma-separated lists arrive as lists', async () => {
    expect((await get('/v1/quotes?symbols=TCS,INFY,M%26M')).json().data.request.symbols).toEqual([
      'TCS',
      'INFY',
      'M&M',
    ]);
    expect((await get('/v1/stocks/TCS?include=peers,ratings')).json().data.request.include).toEqual([
      'peers',
      'ratings',
    ]);
  });

  it('section spellings reach the service as the canonical section', async () => {
    const cases = {
      pnl: 'profit_loss',
      income_statement: 'profit_loss',
      bs: 'balance_sheet',
      cf: 'cash_flow',
      quarters: 'quarterly',
      quarterly_results: 'quarterly',
      ratios: 'ratios',
    };
    for (const [spelling, canonical] of Object.entries(cases)) {
      const res = await get(`/v1/stocks/TCS/financials?section=${spelling}`);
      expect(res.json().data.request.section, spelling).toBe(canonical);
    }
  });

  it('`quarters` is an alias of `periods`', async () => {
    expect((await get('/v1/stocks/TCS/financials?quarters=8')).json().data.request.periods).toBe(8);
    expect((await get('/v1/stocks/TCS/financials?periods=4')).json().data.request.periods).toBe(4);
  });

  it('page ranges arrive parsed', async () => {
    const read = async (pages?: string) =>
      (await get(`/v1/stocks/TCS/documents/read?doc_id=3${pages ? `&pages=${pages}` : ''}`)).json().data
        .request;
    expect((await read()).pages).toEqual({ first: 1, last: 12 });
    expect((await read('1-8')).pages).toEqual({ first: 1, last: 8 });
    expect((await read('12')).pages).toEqual({ first: 12, last: 12 });
    expect((await read('40-')).pages).toEqual({ first: 40 });
    expect((await read()).doc_id).toBe(3);
  });

  it('index names keep their spaces and case', async () => {
    expect((await get('/v1/indices/Nifty%20Bank/history')).json().data.request.name).toBe('Nifty Bank');
  });

  it('a + in the query string is a space, %2B a plus', async () => {
    expect((await get('/v1/stocks?q=tata+motors')).json().data.request.q).toBe('tata motors');
    expect((await get('/v1/stocks?q=c%2B%2B')).json().data.request.q).toBe('c++');
  });
});
