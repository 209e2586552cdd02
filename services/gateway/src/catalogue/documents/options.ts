import { type TSchema, Type } from '@sinclair/typebox';
import { CHAIN_UNDERLYINGS } from '../options.ts';
import { oneOf } from '../params.ts';
import { closed, isoDate, nullable, timestamp } from './parts.ts';

const num = (description?: string) => nullable(Type.Number(), description ? { description } : {});
const percent = (description: string) => num(`${description}, percent`);
const contracts = (description: string) =>
  nullable(Type.Integer(), { description: `${description}, contracts; null without a lot size` });

const forwardSource = oneOf(['put_call_parity', 'future', 'implied_carry', 'spot_carry'], {
  description: 'Where the forward comes from',
});

const PutCallRatios = closed(
  {
    oi: num('Put over call open interest; null without call open interest'),
    volume: num('Put over call volume; null without call volume'),
  },
  { $id: 'PutCallRatios' },
);

const OptionQuoteAnalytics = closed(
  {
    ltp: num('Last traded price, rupees; null when it did not trade'),
    close: num('Closing price, rupees; null when it did not trade'),
    bid: num('Rupees'),
    ask: num('Rupees'),
    iv: percent('Implied volatility from the close'),
    delta: num(),
    gamma: num('Per 1 unit of the underlying'),
    theta: num('Rupees per calendar day'),
    vega: num('Rupees per volatility point'),
    rho: num('Rupees per percentage point of the rate'),
    oi: contracts('Open interest'),
    oi_change: contracts("The day's change of open interest"),
    volume: Type.Integer({ minimum: 0, description: 'Contracts traded' }),
  },
  { $id: 'OptionQuoteAnalytics', description: 'One option of a strike; Greeks null without an IV' },
);

const expiryFields = {
  forward: Type.Number({ description: 'Forward price of the expiry' }),
  forward_source: forwardSource,
  atm_strike: Type.Number({ description: 'Listed strike nearest the forward' }),
  atm_iv: percent('At-the-money implied volatility'),
  skew_25d: percent('25-delta put IV minus 25-delta call IV'),
  max_pain: num('Strike of least payout to option holders'),
  pcr: Type.Ref('PutCallRatios'),
};

const OptionChainDocument = closed(
  {
    symbol: oneOf(CHAIN_UNDERLYINGS),
    expiry: isoDate('The expiry served'),
    expiries: Type.Array(isoDate(), { description: 'Every unexpired expiry of the snapshot, nearest first' }),
    snapshot_ts: timestamp('Instant of the end-of-day snapshot (UTC)'),
    trade_date: isoDate(),
    underlying_price: Type.Number(),
    days_to_expiry: Type.Integer({ minimum: 0 }),
    time_to_expiry_years: Type.Number({ minimum: 0 }),
    risk_free_rate: Type.Number({ description: 'Percent' }),
    lot_size: nullable(Type.Integer({ minimum: 1 })),
    ...expiryFields,
    strikes_each_side: nullable(Type.Integer({ minimum: 1, maximum: 25 }), {
      description: 'The `strikes` asked for; null for every strike',
    }),
    strikes: Type.Array(
      closed({
        strike: Type.Number(),
        call: nullable(Type.Ref('OptionQuoteAnalytics')),
        put: nullable(Type.Ref('OptionQuoteAnalytics')),
      }),
      { description: 'By strike; max pain, PCR and ATM are over every strike of the expiry' },
    ),
  },
  { $id: 'OptionChainDocument' },
);

const IvHistoryBar = closed(
  {
    date: isoDate('The session; for weekly bars the last session of the week'),
    close: Type.Number({ description: 'Underlying close' }),
    atm_iv: percent('30-day constant-maturity ATM implied volatility'),
    iv_rank: num('(IV − min) / (max − min) over the trailing year, percent'),
    iv_percentile: num("Percent of the trailing year's earlier days with a lower ATM IV"),
    realised_vol: percent('20-session realised volatility'),
    pcr_oi: num('Put-call ratio of open interest'),
    pcr_volume: num('Put-call ratio of volume'),
    max_pain: num('Max pain strike of the front monthly expiry'),
    skew_25d: percent('30-day 25-delta skew'),
  },
  { $id: 'IvHistoryBar' },
);

const IvHistoryDocument = closed(
  {
    symbol: Type.String(),
    range: oneOf(['1m', '3m', '6m', '1y', '2y', '5y', 'max']),
    bar_interval: oneOf(['1d', '1w'], { description: 'Weekly for 2y and longer' }),
    from: nullable(isoDate(), { description: 'First bar; null without bars' }),
    to: isoDate('Last day held'),
    derivatives_until: nullable(isoDate(), { description: 'Last day of derivatives when discontinued' }),
    bars: Type.Array(Type.Ref('IvHistoryBar'), { description: 'Oldest first' }),
  },
  { $id: 'IvHistoryDocument' },
);

const StrikeOi = closed({
  strike: Type.Number(),
  call_oi: contracts('Call open interest'),
  put_oi: contracts('Put open interest'),
  call_oi_change: contracts('Change of call open interest'),
  put_oi_change: contracts('Change of put open interest'),
});

const StockOptionsDocument = closed(
  {
    symbol: Type.String(),
    kind: oneOf(['index', 'stock']),
    snapshot_ts: timestamp('Instant of the end-of-day snapshot (UTC)'),
    trade_date: isoDate(),
    underlying_price: Type.Number(),
    lot_size: nullable(Type.Integer({ minimum: 1 })),
    risk_free_rate: Type.Number({ description: 'Percent' }),
    atm_iv_30d: percent('30-day constant-maturity ATM implied volatility'),
    skew_25d_30d: percent('30-day 25-delta skew'),
    iv_rank: num('(IV − min) / (max − min) of the 30-day ATM IV over the trailing year, percent'),
    iv_percentile: num("Percent of the trailing year's earlier days with a lower ATM IV"),
    realised_vol: closed(
      { '10d': percent('10 sessions'), '20d': percent('20 sessions'), '60d': percent('60 sessions') },
      { description: 'Realised volatility, percent' },
    ),
    pcr: Type.Ref('PutCallRatios'),
    max_pain: num('Max pain strike of the front monthly expiry'),
    max_pain_expiry: nullable(isoDate()),
    expiries: Type.Array(
      closed({
        expiry: isoDate(),
        days_to_expiry: Type.Integer({ minimum: 0 }),
        ...expiryFields,
        call_oi: Type.Integer({ minimum: 0, description: 'Contracts' }),
        put_oi: Type.Integer({ minimum: 0, description: 'Contracts' }),
        call_volume: Type.Integer({ minimum: 0, description: 'Contracts' }),
        put_volume: Type.Integer({ minimum: 0, description: 'Contracts' }),
        oi_by_strike: Type.Array(StrikeOi),
      }),
      { description: 'Nearest first' },
    ),
  },
  { $id: 'StockOptionsDocument' },
);

export const OPTION_DOCUMENTS: readonly TSchema[] = [
  PutCallRatios,
  OptionQuoteAnalytics,
  OptionChainDocument,
  IvHistoryBar,
  IvHistoryDocument,
  StockOptionsDocument,
];
