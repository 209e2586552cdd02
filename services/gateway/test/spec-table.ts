/**
 * SPEC section 4, transcribed by hand and kept independent of the gateway's catalogue: tests check the
 * gateway and its OpenAPI document against this table, so a wrong bound in the catalogue fails a test.
 */
export type ParamSpec =
  | { name: string; in: 'query'; kind: 'int'; min: number; max: number; default?: number; required?: boolean }
  | {
      name: string;
      in: 'query' | 'path';
      kind: 'enum';
      values: string[];
      default?: string;
      required?: boolean;
    }
  | { name: string; in: 'query'; kind: 'text'; maxLength: number; required?: boolean }
  | { name: string; in: 'query'; kind: 'date' }
  | { name: string; in: 'query'; kind: 'csv'; values?: string[]; maxItems: number; required?: boolean }
  | { name: string; in: 'query'; kind: 'pages'; default: string }
  | { name: string; in: 'path'; kind: 'symbol' | 'name'; maxLength: 64 };

export interface RouteSpec {
  path: string;
  operationId: string;
  /** A valid request with only required parameters. */
  example: string;
  /** The owning service and gRPC method that must receive it. */
  upstream: 'equities' | 'filings' | 'options' | 'ledger' | null;
  method: string | null;
  params: ParamSpec[];
}

const symbol: ParamSpec = { name: 'symbol', in: 'path', kind: 'symbol', maxLength: 64 };
const DOC_TYPES = ['concall', 'annual_report', 'presentation', 'drhp', 'rhp'];
export const SECTION_SPELLINGS = [
  'quarterly',
  'profit_loss',
  'balance_sheet',
  'cash_flow',
  'ratios',
  'quarters',
  'quarterly_results',
  'income_statement',
  'pnl',
  'bs',
  'cf',
];

export const SPEC_ROUTES: RouteSpec[] = [
  {
    path: '/v1/stocks',
    operationId: 'searchStocks',
    example: '/v1/stocks?q=tata',
    upstream: 'equities',
    method: 'searchStocks',
    params: [
      { name: 'q', in: 'query', kind: 'text', maxLength: 100, required: true },
      { name: 'sector', in: 'query', kind: 'text', maxLength: 100 },
      { name: 'industry', in: 'query', kind: 'text', maxLength: 100 },
      { name: 'limit', in: 'query', kind: 'int', min: 1, max: 50, default: 10 },
    ],
  },
  {
    path: '/v1/stocks/{symbol}',
    operationId: 'getStockProfile',
    example: '/v1/stocks/TCS',
    upstream: 'equities',
    method: 'getStockProfile',
    params: [
      symbol,
      { name: 'include', in: 'query', kind: 'csv', values: ['technicals', 'ratings', 'peers'], maxItems: 3 },
    ],
  },
  {
    path: '/v1/stocks/{symbol}/quote',
    operationId: 'getStockQuote',
    example: '/v1/stocks/TCS/quote',
    upstream: 'equities',
    method: 'getStockQuote',
    params: [symbol],
  },
  {
    path: '/v1/quotes',
    operationId: 'getQuotes',
    example: '/v1/quotes?symbols=TCS,INFY',
    upstream: 'equities',
    method: 'getQuotes',
    params: [{ name: 'symbols', in: 'query', kind: 'csv', maxItems: 20, required: true }],
  },
  {
    path: '/v1/stocks/{symbol}/price',
    operationId: 'getPriceHistory',
    example: '/v1/stocks/TCS/price',
    upstream: 'equities',
    method: 'getPriceHistory',
    params: [
      symbol,
      { name: 'days', in: 'query', kind: 'int', min: 1, max: 2000, default: 365 },
      { name: 'interval', in: 'query', kind: 'enum', values: ['daily', 'weekly'], default: 'daily' },
      { name: 'end_date', in: 'query', kind: 'date' },
    ],
  },
  {
    path: '/v1/stocks/{symbol}/financials',
    operationId: 'getFinancials',
    example: '/v1/stocks/TCS/financials',
    upstream: 'equities',
    method: 'getFinancials',
    params: [
      symbol,
      { name: 'section', in: 'query', kind: 'enum', values: SECTION_SPELLINGS },
      { name: 'periods', in: 'query', kind: 'int', min: 1, max: 40 },
      { name: 'quarters', in: 'query', kind: 'int', min: 1, max: 40 },
    ],
  },
  {
    path: '/v1/stocks/{symbol}/earnings-calls',
    operationId: 'getEarningsCalls',
    example: '/v1/stocks/TCS/earnings-calls',
    upstream: 'filings',
    method: 'getEarningsCalls',
    params: [symbol, { name: 'limit', in: 'query', kind: 'int', min: 1, max: 5, default: 2 }],
  },
  {
    path: '/v1/stocks/{symbol}/documents',
    operationId: 'listDocuments',
    example: '/v1/stocks/TCS/documents',
    upstream: 'filings',
    method: 'listDocuments',
    params: [
      symbol,
      { name: 'doc_types', in: 'query', kind: 'csv', values: DOC_TYPES, maxItems: 5 },
      { name: 'since', in: 'query', kind: 'date' },
      { name: 'limit', in: 'query', kind: 'int', min: 1, max: 50, default: 20 },
    ],
  },
  {
    path: '/v1/stocks/{symbol}/documents/read',
    operationId: 'readDocument',
    example: '/v1/stocks/TCS/documents/read?doc_id=7',
    upstream: 'filings',
    method: 'readDocument',
    params: [
      symbol,
      { name: 'doc_id', in: 'query', kind: 'int', min: 1, max: 2_147_483_647, required: true },
      { name: 'pages', in: 'query', kind: 'pages', default: '1-12' },
      { name: 'max_chars', in: 'query', kind: 'int', min: 2000, max: 60000, default: 24000 },
    ],
  },
  {
    path: '/v1/stocks/{symbol}/documents/summary',
    operationId: 'getDocumentSummary',
    example: '/v1/stocks/TCS/documents/summary?doc_id=7',
    upstream: 'filings',
    method: 'getDocumentSummary',
    params: [
      symbol,
      { name: 'doc_id', in: 'query', kind: 'int', min: 1, max: 2_147_483_647 },
      { name: 'doc_type', in: 'query', kind: 'enum', values: DOC_TYPES },
    ],
  },
  {
    path: '/v1/stocks/{symbol}/events',
    operationId: 'getStockEvents',
    example: '/v1/stocks/TCS/events',
    upstream: 'equities',
    method: 'getStockEvents',
    params: [
      symbol,
      {
        name: 'type',
        in: 'query',
        kind: 'enum',
        values: ['news', 'corporate_actions', 'filings'],
        default: 'news',
      },
      { name: 'limit', in: 'query', kind: 'int', min: 1, max: 50, default: 20 },
    ],
  },
  {
    path: '/v1/stocks/{symbol}/deals',
    operationId: 'getDeals',
    example: '/v1/stocks/TCS/deals',
    upstream: 'equities',
    method: 'getDeals',
    params: [
      symbol,
      { name: 'type', in: 'query', kind: 'enum', values: ['bulk', 'block', 'insider', 'sast'] },
      { name: 'limit', in: 'query', kind: 'int', min: 1, max: 100, default: 25 },
    ],
  },
  ...(['shareholding', 'forecasts', 'pledge', 'ratings'] as const).map(
    (leaf): RouteSpec => ({
      path: `/v1/stocks/{symbol}/${leaf}`,
      operationId: `get${leaf[0]!.toUpperCase()}${leaf.slice(1)}`,
      example: `/v1/stocks/TCS/${leaf}`,
      upstream: 'equities',
      method: `get${leaf[0]!.toUpperCase()}${leaf.slice(1)}`,
      params: [symbol],
    }),
  ),
  {
    path: '/v1/stocks/{symbol}/options',
    operationId: 'getStockOptions',
    example: '/v1/stocks/TCS/options',
    upstream: 'options',
    method: 'getStockOptions',
    params: [symbol],
  },
  {
    path: '/v1/options/{symbol}/chain',
    operationId: 'getOptionChain',
    example: '/v1/options/NIFTY/chain',
    upstream: 'options',
    method: 'getOptionChain',
    params: [
      { name: 'symbol', in: 'path', kind: 'enum', values: ['NIFTY', 'BANKNIFTY', 'FINNIFTY', 'MIDCPNIFTY'] },
      { name: 'expiry', in: 'query', kind: 'date' },
      { name: 'strikes', in: 'query', kind: 'int', min: 1, max: 25 },
    ],
  },
  {
    path: '/v1/options/{symbol}/iv-history',
    operationId: 'getIvHistory',
    example: '/v1/options/RELIANCE/iv-history',
    upstream: 'options',
    method: 'getIvHistory',
    params: [
      symbol,
      {
        name: 'range',
        in: 'query',
        kind: 'enum',
        values: ['1m', '3m', '6m', '1y', '2y', '5y', 'max'],
        default: '1y',
      },
    ],
  },
  {
    path: '/v1/indices',
    operationId: 'listIndices',
    example: '/v1/indices',
    upstream: 'equities',
    method: 'listIndices',
    params: [
      { name: 'periods', in: 'query', kind: 'int', min: 1, max: 12, default: 3 },
      { name: 'granularity', in: 'query', kind: 'enum', values: ['week', 'month'], default: 'week' },
      { name: 'category', in: 'query', kind: 'enum', values: ['broad', 'sectoral', 'thematic', 'strategy'] },
      { name: 'names', in: 'query', kind: 'csv', maxItems: 50 },
      { name: 'limit', in: 'query', kind: 'int', min: 1, max: 50, default: 10 },
      { name: 'order', in: 'query', kind: 'enum', values: ['gainers', 'losers'], default: 'gainers' },
    ],
  },
  {
    path: '/v1/indices/{name}/history',
    operationId: 'getIndexHistory',
    example: '/v1/indices/NIFTY%2050/history',
    upstream: 'equities',
    method: 'getIndexHistory',
    params: [
      { name: 'name', in: 'path', kind: 'name', maxLength: 64 },
      {
        name: 'interval',
        in: 'query',
        kind: 'enum',
        values: ['1m', '3m', '6m', '1y', '2y', 'max'],
        default: '3m',
      },
    ],
  },
  {
    path: '/v1/market/fii-dii',
    operationId: 'getFiiDii',
    example: '/v1/market/fii-dii',
    upstream: 'equities',
    method: 'getFiiDii',
    params: [{ name: 'chart_interval', in: 'query', kind: 'enum', values: ['1m', '3m', '6m', '1y', '5y'] }],
  },
  {
    path: '/v1/market/valuations',
    operationId: 'getValuations',
    example: '/v1/market/valuations',
    upstream: 'equities',
    method: 'getValuations',
    params: [
      {
        name: 'index',
        in: 'query',
        kind: 'enum',
        values: ['nifty-50', 'nifty-500', 'nifty-bank', 'nifty-midcap-50', 'nifty-it', 'nifty-next-50'],
        default: 'nifty-50',
      },
      { name: 'years', in: 'query', kind: 'int', min: 1, max: 20, default: 5 },
    ],
  },
  {
    path: '/v1/market/news',
    operationId: 'getMarketNews',
    example: '/v1/market/news',
    upstream: 'equities',
    method: 'getMarketNews',
    params: [
      { name: 'limit', in: 'query', kind: 'int', min: 1, max: 50, default: 20 },
      { name: 'category', in: 'query', kind: 'text', maxLength: 40 },
      { name: 'sentiment', in: 'query', kind: 'enum', values: ['positive', 'negative', 'neutral'] },
    ],
  },
  {
    path: '/v1/market/fpi-sectors',
    operationId: 'getFpiSectors',
    example: '/v1/market/fpi-sectors',
    upstream: 'equities',
    method: 'getFpiSectors',
    params: [],
  },
  {
    path: '/v1/me/usage',
    operationId: 'getMyUsage',
    example: '/v1/me/usage',
    upstream: 'ledger',
    method: 'getUsage',
    params: [],
  },
  {
    path: '/v1/openapi.json',
    operationId: 'getOpenApi',
    example: '/v1/openapi.json',
    upstream: null,
    method: null,
    params: [],
  },
];

/** The example URL with one more query parameter set (or replaced). */
export function withParam(example: string, name: string, value: string): string {
  const url = new URL(example, 'http://x');
  url.searchParams.set(name, value);
  return `${url.pathname}?${url.searchParams.toString().replace(/%2C/g, ',')}`;
}

/** The example URL with a path parameter replaced (value already encoded). */
export function withPathParam(spec: RouteSpec, name: string, encoded: string): string {
  const exampleUrl = new URL(spec.example, 'http://x');
  const templateParts = spec.path.split('/');
  const parts = exampleUrl.pathname.split('/');
  const index = templateParts.indexOf(`{${name}}`);
  parts[index] = encoded;
  return `${parts.join('/')}${exampleUrl.search}`;
}
