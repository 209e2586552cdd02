import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { beforeAll, describe, expect, it } from 'vitest';
import { generateCompanies } from '../../services/filings-reader/src/generate/companies.ts';
import { get, platform } from './client.ts';

// Contract of the index, market, options and filings routes: the real services' documents, read
// through the gateway, match the `data` schema the gateway publishes in its OpenAPI document, for
// parameter variants that reach every branch of each document.

const OWNED = [
  'listIndices',
  'getIndexHistory',
  'getFiiDii',
  'getValuations',
  'getMarketNews',
  'getFpiSectors',
  'getOptionChain',
  'getIvHistory',
  'getStockOptions',
  'listDocuments',
  'readDocument',
  'getDocumentSummary',
  'getEarningsCalls',
] as const;
type Operation = (typeof OWNED)[number];

let openapi: any;
const ajv = new Ajv2020({ allErrors: true, strict: false, validateSchema: false });
addFormats.default(ajv);
const validators = new Map<Operation, ValidateFunction>();

/** A JSON pointer as a URI fragment. */
const pointer = (segments: string[]) =>
  segments.map((s) => `/${encodeURIComponent(s.replace(/~/g, '~0').replace(/\//g, '~1'))}`).join('');

const dataSchemaPath = (path: string) => [
  'paths',
  path,
  'get',
  'responses',
  '200',
  'content',
  'application/json',
  'schema',
  'properties',
  'data',
];

beforeAll(async () => {
  openapi = await (await fetch(`${platform.baseUrl}/v1/openapi.json`)).json();
  ajv.addSchema(openapi, 'openapi.json');
  for (const [path, item] of Object.entries<{ get: { operationId: string } }>(openapi.paths)) {
    const op = item.get.operationId as Operation;
    if (OWNED.includes(op))
      validators.set(op, ajv.compile({ $ref: `openapi.json#${pointer(dataSchemaPath(path))}` }));
  }
}, 180_000);
/** A 200 of `op` whose `data` matches the published schema; returns `data`. */
async function conforming(op: Operation, path: string): Promise<any> {
  const { status, body } = await get(path);
  expect(status, `${path}: ${JSON.stringify(body).slice(0, 300)}`).toBe(200);
  expect(body.meta.route, path).toBe(op);
  const validate = validators.get(op)!;
  const valid = validate(body.data);
  expect(valid, `${path}: ${ajv.errorsText(validate.errors, { separator: '\n' })}`).toBe(true);
  // The schema is closed: the same document with one undocumented field is refused.
  const item = Array.isArray(body.data) ? body.data[0] : body.data;
  if (item !== undefined) {
    const extended = { ...item, undocumented: 1 };
    expect(validate(Array.isArray(body.data) ? [extended] : extended), path).toBe(false);
  }
  return body.data;
}

const enc = encodeURIComponent;

describe('the published document schemas', () => {
  it('give every route here a named `data` schema that refuses undocumented fields', async () => {
    for (const op of OWNED) {
      const path = Object.keys(openapi.paths).find((p) => openapi.paths[p].get.operationId === op)!;
      const data =
        openapi.paths[path].get.responses['200'].content['application/json'].schema.properties.data;
      expect(JSON.stringify(data), op).toMatch(/#\/components\/schemas\/\w+/);
    }
    const fpi = await conforming('getFpiSectors', '/v1/market/fpi-sectors');
    const validate = validators.get('getFpiSectors')!;
    expect(validate({ ...fpi, extra: 1 })).toBe(false);
    expect(validate({ ...fpi, sectors: [{ ...fpi.sectors[0], extra: 1 }] })).toBe(false);
    expect(validate({ ...fpi, fortnight_end: '2025-02-30' })).toBe(false);
    const { unit: _unit, ...withoutUnit } = fpi;
    expect(validate(withoutUnit)).toBe(false);
  });
});

describe('indices', () => {
  it('ranks by week and month, by family, by names and in both orders', async () => {
    const variants = [
      '/v1/indices',
      '/v1/indices?granularity=month&periods=12&limit=50',
      '/v1/indices?order=losers&periods=1',
      ...['broad', 'sectoral', 'thematic', 'strategy'].map((c) => `/v1/indices?category=${c}&limit=50`),
      '/v1/indices?names=NIFTY%2050,nifty%20bank,NIFTY%20IT&granularity=month',
    ];
    for (const path of variants)
      expect((await conforming('listIndices', path)).length, path).toBeGreaterThan(0);
  });

  it('serves daily bars up to a year and weekly bars beyond', async () => {
    for (const interval of ['1m', '3m', '6m', '1y', '2y', 'max']) {
      const doc = await conforming(
        'getIndexHistory',
        `/v1/indices/${enc('nifty 50')}/history?interval=${interval}`,
      );
      expect(doc.bars.length, interval).toBeGreaterThan(0);
      expect('week_start' in doc.bars[0], interval).toBe(interval === '2y' || interval === 'max');
    }
    await conforming('getIndexHistory', `/v1/indices/${enc('NIFTY IT')}/history?interval=max`);
  });
});

describe('market', () => {
  it('serves FII/DII flows without a chart and with each chart interval', async () => {
    const plain = await conforming('getFiiDii', '/v1/market/fii-dii');
    expect(plain.chart).toBeUndefined();
    expect(plain.fo_positioning).not.toBeNull();
    for (const interval of ['1m', '3m', '6m', '1y', '5y']) {
      const doc = await conforming('getFiiDii', `/v1/market/fii-dii?chart_interval=${interval}`);
      expect(doc.chart.points.length, interval).toBeGreaterThan(0);
    }
  });

  it('serves the valuations of each index, daily and weekly', async () => {
    for (const index of [
      'nifty-50',
      'nifty-500',
      'nifty-bank',
      'nifty-midcap-50',
      'nifty-it',
      'nifty-next-50',
    ]) {
      const doc = await conforming('getValuations', `/v1/market/valuations?index=${index}`);
      expect(doc.series.length, index).toBeGreaterThan(0);
    }
    expect((await conforming('getValuations', '/v1/market/valuations?years=1')).bar_interval).toBe('1d');
    expect(
      (await conforming('getValuations', '/v1/market/valuations?index=nifty-it&years=20')).bar_interval,
    ).toBe('1w');
  });

  it('serves market news by category and sentiment', async () => {
    const all = await conforming('getMarketNews', '/v1/market/news?limit=50');
    expect(all.length).toBeGreaterThan(0);
    for (const category of ['companies', 'results', 'markets', 'economy', 'global', 'ipo', 'commodities'])
      await conforming('getMarketNews', `/v1/market/news?category=${category}`);
    for (const sentiment of ['positive', 'negative', 'neutral'])
      await conforming('getMarketNews', `/v1/market/news?sentiment=${sentiment}&limit=5`);
    await conforming('getMarketNews', '/v1/market/news?category=MARKETS&sentiment=negative&limit=1');
  });

  it('serves FPI sectors', async () => {
    expect((await conforming('getFpiSectors', '/v1/market/fpi-sectors')).sectors.length).toBeGreaterThan(0);
  });
});

describe('options', () => {
  it('serves each index chain at the nearest expiry, an explicit expiry and a strike window', async () => {
    for (const symbol of ['NIFTY', 'BANKNIFTY', 'FINNIFTY', 'MIDCPNIFTY']) {
      const nearest = await conforming('getOptionChain', `/v1/options/${symbol}/chain`);
      const last = nearest.expiries.at(-1);
      const far = await conforming('getOptionChain', `/v1/options/${symbol}/chain?expiry=${last}&strikes=3`);
      expect(far.expiry).toBe(last);
      expect(far.strikes.length).toBeLessThanOrEqual(7);
    }
    await conforming('getOptionChain', '/v1/options/NIFTY/chain?strikes=25');
  });

  it('serves IV history of an index and a stock, daily and weekly', async () => {
    const stock = enc(platform.symbols.stock);
    for (const range of ['1m', '3m', '6m', '1y', '2y', '5y', 'max']) {
      const doc = await conforming('getIvHistory', `/v1/options/NIFTY/iv-history?range=${range}`);
      expect(doc.bars.length, range).toBeGreaterThan(0);
    }
    expect((await conforming('getIvHistory', `/v1/options/${stock}/iv-history?range=6m`)).bar_interval).toBe(
      '1d',
    );
    expect((await conforming('getIvHistory', `/v1/options/${stock}/iv-history?range=2y`)).bar_interval).toBe(
      '1w',
    );
  });

  it("serves a stock's and an index's derivatives analytics", async () => {
    expect(
      (await conforming('getStockOptions', `/v1/stocks/${enc(platform.symbols.stock)}/options`)).kind,
    ).toBe('stock');
    expect((await conforming('getStockOptions', '/v1/stocks/NIFTY/options')).kind).toBe('index');
  });
});

describe('filings', () => {
  // The three companies the loaded stack gives filings.
  const filers = () => generateCompanies(3).map((c) => c.symbol);

  it('lists filings by type, date and limit', async () => {
    for (const symbol of filers()) {
      const all = await conforming('listDocuments', `/v1/stocks/${enc(symbol)}/documents?limit=50`);
      expect(all.length, symbol).toBeGreaterThan(0);
      for (const type of ['concall', 'annual_report', 'presentation', 'drhp', 'rhp'])
        await conforming('listDocuments', `/v1/stocks/${enc(symbol)}/documents?doc_types=${type}`);
      await conforming(
        'listDocuments',
        `/v1/stocks/${enc(symbol)}/documents?doc_types=concall,presentation&since=${all.at(-1).date}&limit=1`,
      );
    }
  });

  it('reads page ranges: the first pages, a middle range, the end, and a page cut at max_chars', async () => {
    let cut = false;
    for (const symbol of filers()) {
      const base = `/v1/stocks/${enc(symbol)}/documents`;
      for (const d of await conforming('listDocuments', `${base}?limit=50`)) {
        const first = await conforming('readDocument', `${base}/read?doc_id=${d.doc_id}`);
        expect(first.pages_returned.startsWith('1'), d.title).toBe(true);
        const end = await conforming(
          'readDocument',
          `${base}/read?doc_id=${d.doc_id}&pages=${d.page_count}-`,
        );
        expect(end.next_pages, d.title).toBeNull();
        if (d.page_count >= 3)
          await conforming('readDocument', `${base}/read?doc_id=${d.doc_id}&pages=2-3&max_chars=60000`);
        // A page longer than the smallest character cap comes back cut, with its full length.
        const markdown = await (await fetch(d.links.markdown)).text();
        const pages = markdown.split(/(?=<!-- page \d+ -->)/).filter((p) => p.startsWith('<!--'));
        const long = pages.findIndex((p) => p.length > 2000);
        if (long >= 0) {
          const doc = await conforming(
            'readDocument',
            `${base}/read?doc_id=${d.doc_id}&pages=${long + 1}&max_chars=2000`,
          );
          expect(doc.page_cut, d.title).toBe(true);
          cut = true;
        }
      }
    }
    expect(cut, 'no filing has a page longer than 2,000 characters').toBe(true);
  });

  it('summarises by doc_id and the newest filing by doc_type', async () => {
    for (const symbol of filers()) {
      const base = `/v1/stocks/${enc(symbol)}/documents`;
      const docs = await conforming('listDocuments', `${base}?limit=50`);
      for (const d of docs) await conforming('getDocumentSummary', `${base}/summary?doc_id=${d.doc_id}`);
      for (const type of new Set<string>(docs.map((d: { doc_type: string }) => d.doc_type)))
        expect((await conforming('getDocumentSummary', `${base}/summary?doc_type=${type}`)).doc_type).toBe(
          type,
        );
    }
  });

  it('serves earnings-call digests', async () => {
    for (const symbol of filers()) {
      await conforming('getEarningsCalls', `/v1/stocks/${enc(symbol)}/earnings-calls`);
      const five = await conforming('getEarningsCalls', `/v1/stocks/${enc(symbol)}/earnings-calls?limit=5`);
      expect(five.length, symbol).toBeGreaterThan(0);
    }
  });
});
