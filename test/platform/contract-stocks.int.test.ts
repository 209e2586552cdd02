import { generateDataset, type StockRow } from '@mdp/market';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { beforeAll, describe, expect, it } from 'vitest';
import { get, platform } from './client.ts';

// The per-stock documents the real equities service serves, read through the gateway, against the
// `data` schemas the gateway publishes in its OpenAPI document: every route, every document branch
// (include sections, intervals, sections, event types, deal types, found and unknown symbols) and
// stocks of every kind the market holds (listed, delisted, SME, funds, bonds, renamed, split).

let openapi: any;
/** One stock of each kind, status and board the market holds, plus a few with history to show. */
let sample: StockRow[];
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
const validators = new Map<string, ValidateFunction>();

beforeAll(async () => {
  openapi = await (await fetch(`${platform.baseUrl}/v1/openapi.json`)).json();
  const market = generateDataset(platform.market);
  const kinds = new Map<string, StockRow>();
  for (const s of market.stocks) {
    const key = `${s.stockType}/${s.status}/${s.board}`;
    if (!kinds.has(key)) kinds.set(key, s);
  }
  const withId = (id: number | undefined) => market.stocks.find((s) => s.id === id)!;
  const listedEquities = market.stocks.filter((s) => s.stockType === 'equity' && s.status === 'listed');
  const main = market.stocks.find((s) => s.nseSymbol === platform.symbols.stock);
  expect(main?.symbol).toBe(platform.symbols.stock);
  sample = [
    main!,
    ...kinds.values(),
    listedEquities.at(-1)!,
    withId(market.actions.find((a) => a.kind === 'split')?.stockId),
    withId(market.actions.find((a) => a.kind === 'bonus')?.stockId),
    ...(['brand', 'former_name', 'former_symbol'] as const).map((k) =>
      withId(market.aliases.find((a) => a.kind === k)?.stockId),
    ),
  ].filter((s, i, all) => s !== undefined && all.indexOf(s) === i);
  expect(sample.length).toBeGreaterThan(8);
}, 180_000);
function compiled(key: string, schema: unknown): ValidateFunction {
  let v = validators.get(key);
  if (!v) {
    // Refs are `#/components/schemas/<Id>`: compile each schema with the document's components beside it.
    v = ajv.compile({ ...(schema as object), components: openapi.components });
    validators.set(key, v);
  }
  return v;
}

/** The published schema of `data` in a 200 of the route at `template`. */
function routeData(template: string): ValidateFunction {
  const op = openapi.paths[template]?.get;
  expect(op, template).toBeDefined();
  return compiled(template, op.responses['200'].content['application/json'].schema.properties.data);
}

/** A named component schema, to check each item against the branch its variant must produce. */
const component = (id: string) => compiled(id, { $ref: `#/components/schemas/${id}` });

function expectValid(validate: ValidateFunction, value: unknown, where: string): void {
  const ok = validate(value);
  expect(ok, `${where}: ${ajv.errorsText(validate.errors, { separator: '\n' })}`).toBe(true);
}

const enc = (s: StockRow) => encodeURIComponent(s.symbol);
/**
 * Calls `paths` of each sampled stock and validates each 200's `data` against the route's schema. A
 * 404 (`not_found`) is accepted only where `may404` says the route has nothing for that kind of
 * stock; the main stock (the largest company) must always answer 200. Returns the 200s.
 */
async function conforms(
  template: string,
  paths: (s: StockRow) => string[],
  may404: (s: StockRow) => boolean = () => false,
): Promise<{ stock: StockRow; path: string; body: any }[]> {
  const validate = routeData(template);
  const served: { stock: StockRow; path: string; body: any }[] = [];
  for (const s of sample)
    for (const path of paths(s)) {
      const r = await get(path);
      if (r.status === 404 && s !== sample[0] && may404(s)) {
        expect(r.body.error.code, path).toBe('not_found');
        continue;
      }
      expect(r.status, `${path}: ${JSON.stringify(r.body).slice(0, 300)}`).toBe(200);
      expectValid(validate, r.body.data, path);
      served.push({ stock: s, path, body: r.body });
    }
  return served;
}

const notCompany = (s: StockRow) => s.stockType !== 'equity';
/** Financial statements exist for companies only, and a company may have none held. */
const noStatements = (s: StockRow) => notCompany(s) || s.status !== 'listed';

describe('the published schemas', () => {
  it('name a document for every stock route, and reject a field they do not document', async () => {
    const q = await get(`/v1/stocks/${encodeURIComponent(platform.symbols.stock)}/quote`);
    expect(q.status).toBe(200);
    const validate = routeData('/v1/stocks/{symbol}/quote');
    expectValid(validate, q.body.data, 'quote');
    expect(validate({ ...q.body.data, undocumented: 1 })).toBe(false);
    const { ltp: _, ...missing } = q.body.data;
    expect(validate(missing)).toBe(false);
    for (const path of [
      '/v1/stocks/{symbol}',
      '/v1/quotes',
      '/v1/stocks/{symbol}/price',
      '/v1/stocks/{symbol}/financials',
      '/v1/stocks/{symbol}/events',
      '/v1/stocks/{symbol}/deals',
      '/v1/stocks/{symbol}/shareholding',
      '/v1/stocks/{symbol}/forecasts',
      '/v1/stocks/{symbol}/pledge',
      '/v1/stocks/{symbol}/ratings',
    ]) {
      const data =
        openapi.paths[path].get.responses['200'].content['application/json'].schema.properties.data;
      expect(Object.keys(data), path).not.toEqual([]);
    }
  });
});

describe('per-stock documents match their schemas', () => {
  it('profile, bare and with each include and all of them', async () => {
    const includes = ['technicals', 'ratings', 'peers'];
    const served = await conforms('/v1/stocks/{symbol}', (s) => [
      `/v1/stocks/${enc(s)}`,
      ...includes.map((i) => `/v1/stocks/${enc(s)}?include=${i}`),
      `/v1/stocks/${enc(s)}?include=${includes.join(',')}`,
    ]);
    for (const { path, body } of served)
      for (const i of includes) expect(i in body.data, `${path} ${i}`).toBe(path.includes(i));
    const main = served.filter((x) => x.stock.symbol === platform.symbols.stock);
    const full = main.at(-1)!.body.data;
    expect(full.technicals.sma['50']).toEqual(expect.any(Number));
    expect(full.peers.length).toBeGreaterThan(0);
    expect(served.some((x) => x.body.data.ratings?.credit_ratings.length > 0)).toBe(true);
    expect(served.some((x) => x.body.data.corporate_actions.length > 0)).toBe(true);
    expect(served.some((x) => x.body.data.former_names.length > 0)).toBe(true);
    expect(served.some((x) => x.body.data.delisted_on !== null)).toBe(true);
  });

  it('quote of every kind of stock', async () => {
    const served = await conforms('/v1/stocks/{symbol}/quote', (s) => [`/v1/stocks/${enc(s)}/quote`]);
    expect(served.map((x) => x.body.data.symbol)).toEqual(served.map((x) => x.stock.symbol));
  });

  it('batch quotes with found and unknown symbols', async () => {
    const validate = routeData('/v1/quotes');
    const known = sample.slice(0, 19).map((s) => s.symbol);
    const symbols = [...known.slice(0, 3), 'NOSUCHSTOCK', ...known.slice(3)];
    const r = await get(`/v1/quotes?symbols=${symbols.map(encodeURIComponent).join(',')}`);
    expect(r.status, JSON.stringify(r.body).slice(0, 300)).toBe(200);
    expectValid(validate, r.body.data, 'quotes');
    expect(r.body.data.map((q: { requested: string }) => q.requested)).toEqual(symbols);
    const missing = r.body.data.filter((q: { error?: unknown }) => q.error);
    expect(missing.map((q: { requested: string }) => q.requested)).toEqual(['NOSUCHSTOCK']);
    for (const q of r.body.data)
      expectValid(component(q.error ? 'BatchQuoteNotFound' : 'BatchQuote'), q, q.requested);
  });

  it('price history, daily and weekly, over the longest window and a following page', async () => {
    const served = await conforms('/v1/stocks/{symbol}/price', (s) => [
      `/v1/stocks/${enc(s)}/price`,
      `/v1/stocks/${enc(s)}/price?interval=weekly`,
      `/v1/stocks/${enc(s)}/price?days=2000&interval=weekly`,
      `/v1/stocks/${enc(s)}/price?days=30`,
    ]);
    const main = served.filter((x) => x.stock.symbol === platform.symbols.stock);
    for (const { path, body } of served) {
      const bar = component(path.includes('weekly') ? 'WeeklyPriceBar' : 'PriceBar');
      for (const b of body.data) expectValid(bar, b, path);
    }
    expect(main.every((x) => x.body.data.length > 0)).toBe(true);
    const cursor = main[0]!.body.meta.next_cursor;
    expect(cursor).toEqual(expect.any(String));
    const [page] = await conforms('/v1/stocks/{symbol}/price', (s) =>
      s.symbol === platform.symbols.stock ? [`/v1/stocks/${enc(s)}/price?end_date=${cursor}&days=200`] : [],
    );
    expect(page!.body.data.length).toBeGreaterThan(0);
  });

  it('financials, all sections, each section by every spelling, and the latest periods', async () => {
    const spellings = [
      'quarterly',
      'quarters',
      'quarterly_results',
      'profit_loss',
      'income_statement',
      'pnl',
      'balance_sheet',
      'bs',
      'cash_flow',
      'cf',
      'ratios',
    ];
    const served = await conforms(
      '/v1/stocks/{symbol}/financials',
      (s) => [
        `/v1/stocks/${enc(s)}/financials`,
        `/v1/stocks/${enc(s)}/financials?periods=2`,
        ...(s.symbol === platform.symbols.stock
          ? spellings.map((x) => `/v1/stocks/${enc(s)}/financials?section=${x}&quarters=3`)
          : []),
      ],
      noStatements,
    );
    const main = served.filter((x) => x.stock.symbol === platform.symbols.stock);
    expect(main).toHaveLength(2 + spellings.length);
    for (const section of ['quarterly', 'profit_loss', 'balance_sheet', 'cash_flow', 'ratios']) {
      expect(main[0]!.body.data[section].periods.length, section).toBeGreaterThan(2);
      expect(main[0]!.body.data[section].row_order.length, section).toBeGreaterThan(0);
    }
    for (const { path, body } of main.slice(2))
      expect(
        Object.keys(body.data).filter((k) => typeof body.data[k] === 'object'),
        path,
      ).toHaveLength(1);
    expect(served.length).toBeGreaterThan(main.length);
    // SPEC 4.5: funds, bonds and other instruments that are not a company's shares have no financials.
    expect(served.filter((x) => notCompany(x.stock)).map((x) => x.path)).toEqual([]);
  });

  it('events of every type', async () => {
    const types = {
      news: 'NewsItem',
      corporate_actions: 'CorporateActionEvent',
      filings: 'StockFiling',
    };
    const served = await conforms('/v1/stocks/{symbol}/events', (s) =>
      Object.keys(types).map((t) => `/v1/stocks/${enc(s)}/events?type=${t}&limit=50`),
    );
    for (const [type, id] of Object.entries(types)) {
      const ofType = served.filter((x) => x.path.includes(`type=${type}`));
      for (const { path, body } of ofType)
        for (const item of body.data) expectValid(component(id), item, path);
      expect(
        ofType.some((x) => x.body.data.length > 0),
        type,
      ).toBe(true);
    }
    const actions = served.filter((x) => x.path.includes('corporate_actions')).flatMap((x) => x.body.data);
    expect(actions.some((a: { ratio: unknown }) => a.ratio !== null)).toBe(true);
    expect(actions.some((a: { amount: unknown }) => a.amount !== null)).toBe(true);
  });

  it('deals, all and of each type', async () => {
    const served = await conforms('/v1/stocks/{symbol}/deals', (s) =>
      ['', '&type=bulk', '&type=block', '&type=insider', '&type=sast'].map(
        (t) => `/v1/stocks/${enc(s)}/deals?limit=100${t}`,
      ),
    );
    expect(served.some((x) => x.body.data.length > 0)).toBe(true);
  });

  it('shareholding, pledge and forecasts of companies', async () => {
    for (const route of ['shareholding', 'pledge', 'forecasts']) {
      const served = await conforms(
        `/v1/stocks/{symbol}/${route}`,
        (s) => [`/v1/stocks/${enc(s)}/${route}`],
        notCompany,
      );
      expect(served.some((x) => x.stock.stockType !== 'equity')).toBe(false);
      const main = served.find((x) => x.stock.symbol === platform.symbols.stock)!.body.data;
      expect(
        Object.values(main).some((v) => Array.isArray(v) && v.length > 0),
        route,
      ).toBe(true);
    }
  });

  it('credit-rating actions', async () => {
    const served = await conforms('/v1/stocks/{symbol}/ratings', (s) => [`/v1/stocks/${enc(s)}/ratings`]);
    expect(served.some((x) => x.body.data.length > 0)).toBe(true);
  });
});
