import { INDEX_FAMILIES, NEWS_CATEGORIES, SENTIMENTS } from '@mdp/market/vocabulary';
import { Type } from '@sinclair/typebox';
import { csv, integer, oneOf, text } from './params.ts';
import { defineRoute, noParams } from './route.ts';

export const VALUATION_INDICES = [
  'nifty-50',
  'nifty-500',
  'nifty-bank',
  'nifty-midcap-50',
  'nifty-it',
  'nifty-next-50',
] as const;

const indexName = (description: string) => text(64, { description });

export const marketRoutes = [
  defineRoute({
    operationId: 'listIndices',
    path: '/v1/indices',
    summary: 'About 140 indices ranked by return over completed weeks or months',
    description:
      'Returns run from the close of the base period to the close of the last completed one. `meta` states `base_period`, `window`, `total` ranked and `not_ranked` (indices without a close in either period).',
    tag: 'Indices',
    metered: true,
    authenticated: true,
    params: noParams,
    query: Type.Object({
      periods: integer(1, 12, { default: 3, description: 'Completed periods to measure the return over' }),
      granularity: oneOf(['week', 'month'], { default: 'week' }),
      category: Type.Optional(oneOf(INDEX_FAMILIES, { description: 'Index family' })),
      names: Type.Optional(
        csv(indexName('Index display name'), 50, {
          description: 'Comma-separated index names; overrides category',
        }),
      ),
      limit: integer(1, 50, { default: 10 }),
      order: oneOf(['gainers', 'losers'], { default: 'gainers' }),
    }),
    data: Type.Array(Type.Ref('IndexRanking')),
    upstream: 'equities',
    dispatch: (up, { query }) => up.equities.listIndices({ ...query, names: query.names ?? [] }),
  }),
  defineRoute({
    operationId: 'getIndexHistory',
    path: '/v1/indices/{name}/history',
    summary: 'Index OHLC with PE, PB and dividend-yield series',
    description:
      '1m to 1y are daily bars; 2y and max are weekly bars (ISO weeks). `meta` states `bar_interval` (`1d` or `1w`), the served `window` and the number of `bars`.',
    tag: 'Indices',
    metered: true,
    authenticated: true,
    params: Type.Object({ name: indexName('Index display name, matched case-insensitively') }),
    query: Type.Object({
      interval: oneOf(['1m', '3m', '6m', '1y', '2y', 'max'], { default: '3m' }),
    }),
    data: Type.Ref('IndexHistoryDocument'),
    upstream: 'equities',
    dispatch: (up, { params, query }) => up.equities.getIndexHistory({ ...params, ...query }),
  }),
  defineRoute({
    operationId: 'getFiiDii',
    path: '/v1/market/fii-dii',
    summary: 'FII/DII cash flows, F&O participant positioning, aggregates, streaks',
    description:
      'Amounts in crore of rupees, positions in contracts. Tables are newest first, the chart oldest first. `meta` states `unit`, `sessions` and `chart_interval`.',
    tag: 'Market',
    metered: true,
    authenticated: true,
    params: noParams,
    query: Type.Object({
      chart_interval: Type.Optional(
        oneOf(['1m', '3m', '6m', '1y', '5y'], {
          description: 'Adds the cumulative-flow series over this span',
        }),
      ),
    }),
    data: Type.Ref('FiiDiiDocument'),
    upstream: 'equities',
    dispatch: (up, { query }) => up.equities.getFiiDii(query),
  }),
  defineRoute({
    operationId: 'getValuations',
    path: '/v1/market/valuations',
    summary: 'Index PE, PB and dividend yield over time',
    description:
      'Statistics over every daily observation of the window; the series is daily up to 5 years and weekly beyond. `meta.points` counts the series.',
    tag: 'Market',
    metered: true,
    authenticated: true,
    params: noParams,
    query: Type.Object({
      index: oneOf(VALUATION_INDICES, { default: 'nifty-50' }),
      years: integer(1, 20, { default: 5 }),
    }),
    data: Type.Ref('ValuationsDocument'),
    upstream: 'equities',
    dispatch: (up, { query }) => up.equities.getValuations(query),
  }),
  defineRoute({
    operationId: 'getMarketNews',
    path: '/v1/market/news',
    summary: 'Latest sentiment-tagged market news with category and related symbols',
    description:
      'Newest first. `meta` states `total` matching the filters, `limit`, `category` and `sentiment`.',
    tag: 'Market',
    metered: true,
    authenticated: true,
    params: noParams,
    query: Type.Object({
      limit: integer(1, 50, { default: 20 }),
      category: Type.Optional(
        Type.String({
          minLength: 1,
          maxLength: 40,
          pattern: '^[A-Za-z][A-Za-z0-9_-]*$',
          description: `News category, in any case: one of ${NEWS_CATEGORIES.join(', ')} (another is a 400 naming \`category\`)`,
        }),
      ),
      sentiment: Type.Optional(oneOf(SENTIMENTS)),
    }),
    data: Type.Array(Type.Ref('NewsItem')),
    upstream: 'equities',
    dispatch: (up, { query }) => up.equities.getMarketNews(query),
  }),
  defineRoute({
    operationId: 'getFpiSectors',
    path: '/v1/market/fpi-sectors',
    summary: 'Foreign portfolio investor sector-wise AUM share, fortnight change, 1-year flow',
    description:
      'Latest fortnight held, largest holding first; amounts in crore of rupees, shares in percent adding up to 100.',
    tag: 'Market',
    metered: true,
    authenticated: true,
    params: noParams,
    query: noParams,
    data: Type.Ref('FpiSectorsDocument'),
    upstream: 'equities',
    dispatch: (up) => up.equities.getFpiSectors({}),
  }),
];
