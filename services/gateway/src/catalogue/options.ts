import { Type } from '@sinclair/typebox';
import { date, integer, oneOf, symbol } from './params.ts';
import { defineRoute } from './route.ts';

export const CHAIN_UNDERLYINGS = ['NIFTY', 'BANKNIFTY', 'FINNIFTY', 'MIDCPNIFTY'] as const;

export const optionRoutes = [
  defineRoute({
    operationId: 'getStockOptions',
    path: '/v1/stocks/{symbol}/options',
    summary: 'Per-expiry derivatives analytics: ATM IV, IV rank, realised vol, PCR, max pain, skew, OI',
    description:
      'Also answers for the index underlyings (`kind` is `index`). IV fields are percents; open interest in contracts. `meta` states `snapshot_ts` and `source`.',
    tag: 'Options',
    metered: true,
    authenticated: true,
    params: Type.Object({ symbol: symbol() }),
    query: Type.Object({}),
    data: Type.Ref('StockOptionsDocument'),
    upstream: 'options',
    dispatch: (up, { params }) => up.options.getStockOptions(params),
  }),
  defineRoute({
    operationId: 'getOptionChain',
    path: '/v1/options/{symbol}/chain',
    summary: 'End-of-day option chain of an index with IV, Greeks, bid/ask and OI by strike',
    description:
      'IV fields are percents; open interest in contracts; prices in rupees. `meta` states `snapshot_ts` and `source`.',
    tag: 'Options',
    metered: true,
    authenticated: true,
    params: Type.Object({ symbol: oneOf(CHAIN_UNDERLYINGS, { description: 'Index underlying' }) }),
    query: Type.Object({
      expiry: Type.Optional(date({ description: 'Default the nearest expiry in the snapshot' })),
      strikes: Type.Optional(
        integer(1, 25, { description: 'Strikes each side of ATM; default every strike' }),
      ),
    }),
    data: Type.Ref('OptionChainDocument'),
    upstream: 'options',
    dispatch: (up, { params, query }) => up.options.getOptionChain({ ...params, ...query }),
  }),
  defineRoute({
    operationId: 'getIvHistory',
    path: '/v1/options/{symbol}/iv-history',
    summary: 'Daily ATM IV, IV rank/percentile, realised vol, PCR, max pain and skew',
    description: 'Ranges of 2y and longer are weekly bars; `bar_interval` states the bar size.',
    tag: 'Options',
    metered: true,
    authenticated: true,
    params: Type.Object({ symbol: symbol('Underlying symbol (an index or a stock with derivatives)') }),
    query: Type.Object({
      range: oneOf(['1m', '3m', '6m', '1y', '2y', '5y', 'max'], { default: '1y' }),
    }),
    data: Type.Ref('IvHistoryDocument'),
    upstream: 'options',
    dispatch: (up, { params, query }) => up.options.getIvHistory({ ...params, ...query }),
  }),
];
