import { ApiError } from '@mdp/errors';
import { DEAL_KINDS, type StatementSection } from '@mdp/market/vocabulary';
import type { common } from '@mdp/proto';
import { type TSchema, Type } from '@sinclair/typebox';
import { csv, date, integer, oneOf, symbol, text } from './params.ts';
import { defineRoute, LIST_RULE, noParams, type Upstreams } from './route.ts';

const symbolPath = Type.Object({ symbol: symbol() });

/** The rule of a company's document whose lists may be empty (shareholding, pledge, forecasts). */
const COMPANY_RULE = (none: string) =>
  `A company with ${none} held is a 200 with empty lists (one unit); a fund, bond or other stock that is not a company has none of this and is a 404 \`not_found\`, as is a symbol that names no stock (both free).`;

/** SPEC 2.2: one stock search result. */
export const SearchItem = Type.Object(
  {
    symbol: Type.String({ description: 'Use it in per-stock paths' }),
    name: Type.String(),
    bse_code: Type.String(),
    nse_symbol: Type.String(),
    sector: Type.String(),
    industry: Type.String(),
    macro_sector: Type.String(),
    is_active: Type.Boolean({ description: 'false for delisted companies' }),
    stock_type: Type.String({ description: 'An equity kind value' }),
  },
  { $id: 'SearchItem' },
);

export type FinancialSection = StatementSection | 'ratios';

/** Every accepted spelling of `section` and the canonical section it names. */
const SECTION_SPELLINGS: Record<string, FinancialSection> = {
  quarterly: 'quarterly',
  quarters: 'quarterly',
  quarterly_results: 'quarterly',
  profit_loss: 'profit_loss',
  income_statement: 'profit_loss',
  pnl: 'profit_loss',
  balance_sheet: 'balance_sheet',
  bs: 'balance_sheet',
  cash_flow: 'cash_flow',
  cf: 'cash_flow',
  ratios: 'ratios',
};

/** A per-stock route of the equities service with no query parameters. */
function bareStockRoute(
  operationId: string,
  leaf: string,
  summary: string,
  description: string,
  data: TSchema,
  dispatch: (up: Upstreams, params: { symbol: string }) => Promise<common.Document>,
) {
  return defineRoute({
    operationId,
    path: `/v1/stocks/{symbol}/${leaf}`,
    summary,
    description,
    tag: 'Stocks',
    metered: true,
    authenticated: true,
    params: symbolPath,
    query: noParams,
    data,
    upstream: 'equities',
    dispatch: (up, { params }) => dispatch(up, params),
  });
}

export const stockRoutes = [
  defineRoute({
    operationId: 'searchStocks',
    path: '/v1/stocks',
    summary: 'Search about 8,200 Indian stocks by name, symbol, BSE code or ISIN',
    description:
      'Listed companies first, then by match quality (exact symbol or code, prefix, word, contains), larger companies first within a tier, delisted after listed. Brand names and former names match; queries of 4 or more characters tolerate typos.',
    tag: 'Stocks',
    metered: true,
    authenticated: true,
    params: noParams,
    query: Type.Object({
      q: text(100, { description: 'Name, symbol, BSE code or ISIN' }),
      sector: Type.Optional(text(100, { description: 'Only stocks of this sector' })),
      industry: Type.Optional(text(100, { description: 'Only stocks of this industry' })),
      limit: integer(1, 50, { default: 10, description: 'Results to return' }),
    }),
    data: Type.Array(Type.Ref('SearchItem')),
    upstream: 'equities',
    dispatch: (up, { query }) => up.equities.searchStocks(query),
  }),
  defineRoute({
    operationId: 'getStockProfile',
    path: '/v1/stocks/{symbol}',
    summary: 'Company profile: identity, fundamentals, price metrics, growth and current quote',
    description:
      'Everything about one company in one document. `include` adds technical indicators, analyst ratings or sector peers to it; the call still costs one unit.',
    tag: 'Stocks',
    metered: true,
    authenticated: true,
    params: symbolPath,
    query: Type.Object({
      include: Type.Optional(
        csv(oneOf(['technicals', 'ratings', 'peers']), 3, { description: 'Extra sections to add' }),
      ),
    }),
    data: Type.Ref('StockProfile'),
    upstream: 'equities',
    dispatch: (up, { params, query }) =>
      up.equities.getStockProfile({ symbol: params.symbol, include: query.include ?? [] }),
  }),
  defineRoute({
    operationId: 'getStockQuote',
    path: '/v1/stocks/{symbol}/quote',
    summary: 'Latest quote: LTP, change, volume, market cap, PE, PB, 52-week range',
    description:
      'End-of-day data: the quote of the last trading session in the data served (`as_of` says which). For several symbols in one unit use `/v1/quotes`.',
    tag: 'Stocks',
    metered: true,
    authenticated: true,
    params: symbolPath,
    query: noParams,
    data: Type.Ref('StockQuote'),
    upstream: 'equities',
    dispatch: (up, { params }) => up.equities.getStockQuote(params),
  }),
  defineRoute({
    operationId: 'getQuotes',
    path: '/v1/quotes',
    summary: 'Latest quotes for up to 20 symbols, one unit in total',
    description:
      'One item per requested symbol, in request order: a quote with `requested`, or a `not_found` error item. More than 20 symbols is a 400. `meta` has `requested`, `found` and `not_found` (the symbols without a stock).',
    tag: 'Stocks',
    metered: true,
    authenticated: true,
    params: noParams,
    query: Type.Object({
      symbols: csv(symbol('A symbol'), 20, { description: 'Comma-separated symbols, at most 20' }),
    }),
    data: Type.Array(Type.Union([Type.Ref('BatchQuote'), Type.Ref('BatchQuoteNotFound')])),
    upstream: 'equities',
    dispatch: (up, { query }) => up.equities.getQuotes(query),
  }),
  defineRoute({
    operationId: 'getPriceHistory',
    path: '/v1/stocks/{symbol}/price',
    summary: 'Daily or weekly OHLCV with delivery %, paged backwards by end_date',
    description: `Prices in rupees adjusted for later splits and bonuses, oldest first; weekly bars are ISO weeks (\`date\` is the Monday). Page by setting \`end_date\` to the previous page's \`meta.next_cursor\` until \`meta.has_more\` is false. A cursor the service could not have issued is a 400. \`meta\` also has \`window\` (from, to, days, interval) and \`bars\`. ${LIST_RULE}`,
    tag: 'Stocks',
    metered: true,
    authenticated: true,
    params: symbolPath,
    query: Type.Object({
      days: integer(1, 2000, { default: 365, description: 'Calendar days in the window' }),
      interval: oneOf(['daily', 'weekly'], { default: 'daily' }),
      end_date: Type.Optional(date({ description: 'Inclusive upper bound (YYYY-MM-DD); the paging cursor' })),
    }),
    data: Type.Array(Type.Union([Type.Ref('PriceBar'), Type.Ref('WeeklyPriceBar')]), {
      description: 'PriceBar items for daily, WeeklyPriceBar items for weekly',
    }),
    upstream: 'equities',
    dispatch: (up, { params, query }) => up.equities.getPriceHistory({ ...params, ...query }),
  }),
  defineRoute({
    operationId: 'getFinancials',
    path: '/v1/stocks/{symbol}/financials',
    summary: 'Financial statements: quarterly, profit & loss, balance sheet, cash flow, ratios',
    description:
      'Point in time: only periods public by today. ETFs, index funds and bonds have no financials (404).',
    tag: 'Stocks',
    metered: true,
    authenticated: true,
    params: symbolPath,
    query: Type.Object({
      section: Type.Optional(
        oneOf(Object.keys(SECTION_SPELLINGS), {
          description: 'One section (accepted spellings listed); omit for all',
        }),
      ),
      periods: Type.Optional(
        integer(1, 40, { description: 'Latest N periods per section; default all held' }),
      ),
      quarters: Type.Optional(integer(1, 40, { description: 'Alias of `periods`' })),
    }),
    check: ({ query }) => {
      if (query.periods !== undefined && query.quarters !== undefined) {
        throw ApiError.invalidParam('quarters', '`quarters` is an alias of `periods`; send only one of them');
      }
    },
    data: Type.Ref('FinancialsDocument'),
    upstream: 'equities',
    dispatch: (up, { params, query }) =>
      up.equities.getFinancials({
        symbol: params.symbol,
        section: query.section === undefined ? undefined : SECTION_SPELLINGS[query.section],
        periods: query.periods ?? query.quarters,
      }),
  }),
  defineRoute({
    operationId: 'getStockEvents',
    path: '/v1/stocks/{symbol}/events',
    summary: 'News with sentiment, corporate actions, or filings',
    description: `Newest first: NewsItem items for \`news\`, CorporateActionEvent for \`corporate_actions\`, StockFiling for \`filings\`. \`meta\` has \`type\`, \`limit\` and \`total\`. ${LIST_RULE}`,
    tag: 'Stocks',
    metered: true,
    authenticated: true,
    params: symbolPath,
    query: Type.Object({
      type: oneOf(['news', 'corporate_actions', 'filings'], { default: 'news' }),
      limit: integer(1, 50, { default: 20 }),
    }),
    data: Type.Array(
      Type.Union([Type.Ref('NewsItem'), Type.Ref('CorporateActionEvent'), Type.Ref('StockFiling')]),
    ),
    upstream: 'equities',
    dispatch: (up, { params, query }) => up.equities.getStockEvents({ ...params, ...query }),
  }),
  defineRoute({
    operationId: 'getDeals',
    path: '/v1/stocks/{symbol}/deals',
    summary: 'Bulk, block, insider and SAST deals, newest first',
    description: `\`meta\` has \`type\`, \`limit\`, \`total\` and \`has_more\`. ${LIST_RULE}`,
    tag: 'Stocks',
    metered: true,
    authenticated: true,
    params: symbolPath,
    query: Type.Object({
      type: Type.Optional(oneOf(DEAL_KINDS, { description: 'Omit for all kinds' })),
      limit: integer(1, 100, { default: 25 }),
    }),
    data: Type.Array(Type.Ref('Deal')),
    upstream: 'equities',
    dispatch: (up, { params, query }) => up.equities.getDeals({ ...params, ...query }),
  }),
  bareStockRoute(
    'getShareholding',
    'shareholding',
    'Promoter, FII, DII, government and public holdings for every period held',
    `Holdings as percent of shares, one row per quarter held, oldest first. ${COMPANY_RULE('no holdings')}`,
    Type.Ref('ShareholdingDocument'),
    (up, p) => up.equities.getShareholding(p),
  ),
  bareStockRoute(
    'getForecasts',
    'forecasts',
    'Analyst estimates against actuals, quarterly and annual',
    `Estimates and the number of analysts behind them for each period, beside the actuals once reported; oldest first. ${COMPANY_RULE('no estimates')}`,
    Type.Ref('ForecastsDocument'),
    (up, p) => up.equities.getForecasts(p),
  ),
  bareStockRoute(
    'getPledge',
    'pledge',
    'Promoter pledge % by quarter and recent pledge creation/release events',
    `The share of promoter holdings pledged at each quarter end, and the pledge events disclosed since. ${COMPANY_RULE('no pledge')}`,
    Type.Ref('PledgeDocument'),
    (up, p) => up.equities.getPledge(p),
  ),
  bareStockRoute(
    'getRatings',
    'ratings',
    'Credit-rating actions, newest first',
    `Rating agencies' actions on the company's instruments: the agency, the instrument, the rating and the action. An unrated stock's list is empty. ${LIST_RULE}`,
    Type.Array(Type.Ref('CreditRating')),
    (up, p) => up.equities.getRatings(p),
  ),
];
