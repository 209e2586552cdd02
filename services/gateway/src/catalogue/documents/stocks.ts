// The vocabulary subpath and not @mdp/market itself: the package is the data generator, which has no
// place in the gateway's bundle, while these closed sets are what the equities service serves. The
// contract test (test/platform/contract-stocks.int.test.ts) fails when a served value is not in them.
import {
  ACTION_KINDS,
  BOARDS,
  DEAL_KINDS,
  DEAL_SIDES,
  EVENT_KINDS,
  FILING_TYPES,
  LISTING_STATUSES,
  PLEDGE_EVENT_KINDS,
  RATING_ACTIONS,
  STATEMENT_BASES,
  STOCK_TYPES,
} from '@mdp/market/vocabulary';
import { type TProperties, type TSchema, Type } from '@sinclair/typebox';

/**
 * The `data` of the per-stock routes of the equities service, as its document builders write them
 * (services/equities-data/src/service/documents.ts and src/areas/{financials,corporate}). Prices are
 * rupees unless a field says otherwise; amounts of results are rupees crore.
 */

const closed = <T extends TProperties>(properties: T, options: { $id?: string; description?: string } = {}) =>
  Type.Object(properties, { additionalProperties: false, ...options });
const nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const date = (description?: string) =>
  Type.String({ format: 'date', ...(description ? { description } : {}) });
const rupees = (description = 'Rupees') => Type.Number({ description });
/** A price: always positive. */
const price = (description = 'Rupees') => Type.Number({ exclusiveMinimum: 0, description });
const pct = (description: string) => nullable(Type.Number({ description: `${description}, percent` }));
const count = (description?: string) => Type.Integer({ minimum: 0, ...(description ? { description } : {}) });
/** An object with the same nullable number under each key. */
const byKeys = (keys: readonly string[], description: string) =>
  closed(Object.fromEntries(keys.map((k) => [k, nullable(Type.Number())])) as TProperties, { description });

const enumOf = (values: readonly string[], description?: string) =>
  Type.Unsafe<string>({ type: 'string', enum: [...values], ...(description ? { description } : {}) });
const fiscalYear = (description: string) => Type.String({ pattern: '^FY\\d{4}$', description });

const quoteProperties = {
  symbol: Type.String(),
  name: Type.String(),
  exchange: enumOf(['NSE', 'BSE'], 'NSE when the stock trades there, else BSE'),
  is_active: Type.Boolean({ description: 'false for delisted and suspended stocks' }),
  as_of: nullable(date('Session of the last bar; null when the stock has no bars')),
  currency: Type.Literal('INR'),
  ltp: nullable(price('Last close, rupees')),
  open: nullable(price()),
  high: nullable(price()),
  low: nullable(price()),
  prev_close: nullable(price('Previous session close on the current share basis, rupees')),
  change: nullable(rupees('ltp − prev_close, rupees')),
  change_pct: pct('Change against prev_close'),
  volume: nullable(count('Shares traded in the last session')),
  delivery_pct: pct('Delivered share of the volume; null when the source had no delivery figures'),
  market_cap_cr: nullable(Type.Number({ description: 'Rupees crore at the last close' })),
  pe: nullable(Type.Number({ description: 'Price / trailing EPS; null when EPS is not positive' })),
  pb: nullable(
    Type.Number({ description: 'Price / book value per share; null when book value is not positive' }),
  ),
  week_52_high: nullable(price('Highest high of the last 52 weeks, rupees')),
  week_52_low: nullable(price('Lowest low of the last 52 weeks, rupees')),
};

const StockQuote = closed(quoteProperties, { $id: 'StockQuote' });

const BatchQuote = closed(
  { requested: Type.String({ description: 'The symbol as sent' }), ...quoteProperties },
  { $id: 'BatchQuote' },
);

const BatchQuoteNotFound = closed(
  {
    requested: Type.String({ description: 'The symbol as sent' }),
    symbol: Type.String(),
    error: closed({ code: Type.Literal('not_found'), message: Type.String() }),
  },
  { $id: 'BatchQuoteNotFound', description: 'A requested symbol that names no stock' },
);

const Range52 = closed(
  { high: price(), high_date: date(), low: price(), low_date: date() },
  {
    $id: 'Range52',
    description: 'Highest high and lowest low of the 52 weeks to the last bar (adjusted, rupees)',
  },
);

const RETURN_KEYS = ['1w', '1m', '3m', '6m', '1y', '3y', '5y'] as const;
const returnsPct = byKeys(
  RETURN_KEYS,
  'Price change over each calendar period to the last bar, percent; null without enough history',
);

const Technicals = closed(
  {
    as_of: nullable(date()),
    close: nullable(price('Last adjusted close, rupees')),
    sma: byKeys(['20', '50', '100', '200'], 'Simple moving averages of the close over N sessions, rupees'),
    ema: byKeys(['20', '50'], 'Exponential moving averages of the close over N sessions, rupees'),
    rsi_14: nullable(Type.Number({ minimum: 0, maximum: 100, description: "Wilder's RSI over 14 sessions" })),
    macd: byKeys(['macd', 'signal', 'histogram'], 'MACD (12, 26, 9) of the close'),
    atr_14: nullable(rupees('Average true range over 14 sessions, rupees')),
    week_52: nullable(Type.Ref('Range52')),
    returns_pct: returnsPct,
    volatility_pct: byKeys(['1m', '1y'], 'Annualised volatility of daily log returns, percent'),
    trend: closed({
      above_sma_50: nullable(Type.Boolean()),
      above_sma_200: nullable(Type.Boolean()),
      golden_cross: nullable(Type.Boolean({ description: 'SMA 50 above SMA 200' })),
    }),
  },
  { $id: 'Technicals', description: 'Indicators of adjusted daily bars as of the last bar' },
);

const CreditRating = closed(
  {
    date: date('Day of the rating action'),
    agency: Type.String(),
    instrument: Type.String({ description: 'The rated instrument, e.g. long-term bank facilities' }),
    rating: Type.String({ description: "The agency's rating symbol, e.g. CRISIL AA+" }),
    action: enumOf(RATING_ACTIONS),
    outlook: nullable(Type.String()),
  },
  { $id: 'CreditRating' },
);

const Peer = closed(
  {
    symbol: Type.String(),
    name: Type.String(),
    industry: nullable(Type.String()),
    market_cap_cr: nullable(Type.Number({ description: 'Rupees crore' })),
    ltp: nullable(price()),
    change_pct: pct('Change against the previous close'),
    pe: nullable(Type.Number()),
    pb: nullable(Type.Number()),
  },
  { $id: 'Peer', description: 'A listed stock of the same industry and kind, larger first' },
);

const Fundamentals = closed({
  market_cap_cr: nullable(Type.Number({ description: 'Rupees crore at the last close' })),
  pe: nullable(Type.Number()),
  pb: nullable(Type.Number()),
  roe_pct: pct('Net profit / equity of the latest fiscal year'),
  roce_pct: pct('EBIT / (equity + borrowings) of the latest fiscal year'),
  debt_to_equity: nullable(Type.Number()),
  eps_ttm: nullable(rupees('Trailing earnings per share, rupees')),
  book_value_per_share: nullable(rupees()),
  dividend_yield_pct: pct('Latest fiscal year dividend per share / last close'),
  face_value: nullable(rupees('Face value per share, rupees')),
  shares_outstanding: nullable(count()),
  fiscal_year: nullable(fiscalYear('The fiscal year the ratios come from')),
});

const PriceMetrics = closed({
  as_of: nullable(date()),
  ltp: nullable(price('Last adjusted close, rupees')),
  first_bar: nullable(date('First session held')),
  week_52: nullable(Type.Ref('Range52')),
  pct_from_52w_high: pct('Last close against the 52-week high'),
  pct_from_52w_low: pct('Last close against the 52-week low'),
  high_in_history: nullable(
    closed(
      { price: price(), date: date() },
      { description: 'Highest adjusted high of the last five years held' },
    ),
  ),
  returns_pct: returnsPct,
  avg_volume_20d: nullable(count('Mean volume of the last 20 sessions')),
  avg_delivery_pct_20d: pct('Delivered share of the last 20 sessions; null unless every one has delivery'),
});

const Growth = closed({
  latest_fiscal_year: nullable(fiscalYear('Latest fiscal year of annual results')),
  compounded_sales_growth_pct: byKeys(['10y', '5y', '3y', '1y'], 'Sales CAGR to the latest year, percent'),
  compounded_profit_growth_pct: byKeys(['10y', '5y', '3y', '1y'], 'Net profit CAGR, percent'),
  stock_price_cagr_pct: byKeys(['10y', '5y', '3y', '1y'], 'Adjusted close CAGR to the last bar, percent'),
  return_on_equity_pct: byKeys(
    ['10y', '5y', '3y', 'last_year'],
    'Average ROE over the last N years, percent',
  ),
  growth_rates: Type.Array(
    closed({
      fiscal_year: fiscalYear('Fiscal year'),
      sales_cr: Type.Number({ description: 'Rupees crore' }),
      net_profit_cr: Type.Number({ description: 'Rupees crore' }),
      sales_growth_pct: pct('Against the previous year'),
      profit_growth_pct: pct('Against the previous year'),
      roe_pct: pct('Net profit / equity'),
    }),
    { description: 'Annual results, oldest first' },
  ),
});

const formerOf = (key: 'name' | 'symbol') =>
  Type.Array(closed({ [key]: Type.String(), until: nullable(date('Last day it was in use')) }));

const StockProfile = closed(
  {
    symbol: Type.String(),
    name: Type.String(),
    isin: nullable(Type.String()),
    nse_symbol: nullable(Type.String()),
    bse_code: nullable(Type.String()),
    bse_symbol: nullable(Type.String()),
    series: nullable(Type.String({ description: 'NSE series, e.g. EQ' })),
    stock_type: enumOf(STOCK_TYPES),
    board: enumOf(BOARDS),
    is_active: Type.Boolean({ description: 'true when status is listed' }),
    status: enumOf(LISTING_STATUSES),
    listed_on: nullable(date()),
    delisted_on: nullable(date()),
    delisting_reason: nullable(Type.String()),
    macro_sector: nullable(Type.String()),
    sector: nullable(Type.String()),
    industry: nullable(Type.String()),
    basic_industry: nullable(Type.String()),
    about: Type.String(),
    brand_names: Type.Array(Type.String()),
    former_names: formerOf('name'),
    former_symbols: formerOf('symbol'),
    fundamentals: Fundamentals,
    price_metrics: PriceMetrics,
    growth: Growth,
    quote: Type.Ref('StockQuote'),
    corporate_actions: Type.Array(
      closed({
        ex_date: date(),
        kind: enumOf(ACTION_KINDS),
        description: Type.String(),
        price_factor: Type.Number({
          exclusiveMinimum: 0,
          description: 'Prices before ex_date are multiplied by this in every served series',
        }),
      }),
      { description: 'Splits and bonuses that adjust prices' },
    ),
    technicals: Type.Optional(Type.Ref('Technicals')),
    ratings: Type.Optional(
      closed(
        { credit_ratings: Type.Array(Type.Ref('CreditRating')) },
        { description: 'The rating in force per agency and instrument' },
      ),
    ),
    peers: Type.Optional(Type.Array(Type.Ref('Peer'), { maxItems: 10 })),
  },
  {
    $id: 'StockProfile',
    description: '`technicals`, `ratings` and `peers` are present only when named in `include`',
  },
);

const barProperties = {
  open: price('Adjusted for later splits and bonuses, rupees'),
  high: price(),
  low: price(),
  close: price(),
  volume: count('Shares, adjusted like prices'),
  delivery_pct: pct('Delivered share of the volume; null when the source had no delivery figures'),
};

const PriceBar = closed(
  { date: date('Session'), ...barProperties },
  { $id: 'PriceBar', description: 'One daily session' },
);

const WeeklyPriceBar = closed(
  {
    date: date('Monday of the ISO week'),
    last_session: date('Last session of the week'),
    sessions: Type.Integer({ minimum: 1, maximum: 7 }),
    ...barProperties,
  },
  { $id: 'WeeklyPriceBar', description: 'First open, highest high, lowest low, last close, summed volume' },
);

const periodMap = (description: string) =>
  Type.Record(Type.String(), Type.Record(Type.String(), nullable(Type.Number())), { description });

const FinancialSection = closed(
  {
    basis: nullable(enumOf(STATEMENT_BASES, 'Null when nothing of the section is known yet')),
    periods: Type.Array(Type.String(), {
      description: 'Period labels oldest first: `Q1 FY2026` for quarterly, `FY2026` otherwise',
    }),
    data: periodMap('{row: {period: value}}, rupees crore (EPS rupees, ratios as named)'),
    pct_changes: periodMap('{row: {period: change against the same period a year earlier, percent}}'),
    row_order: Type.Array(Type.String(), { description: 'Display order of the rows of `data`' }),
    availability: Type.Array(
      closed({
        period: Type.String(),
        period_end: date(),
        available_from: date('First day the figures were public'),
      }),
    ),
  },
  { $id: 'FinancialSection' },
);

const sectionRef = Type.Optional(Type.Ref('FinancialSection'));

const FinancialsDocument = closed(
  {
    symbol: Type.String(),
    name: Type.String(),
    unit: Type.Literal('INR crore (EPS in INR)'),
    source: enumOf(['generated', 'nse-xbrl']),
    quarterly: sectionRef,
    profit_loss: sectionRef,
    balance_sheet: sectionRef,
    cash_flow: sectionRef,
    ratios: sectionRef,
  },
  { $id: 'FinancialsDocument', description: 'Every section, or only the one named by `section`' },
);

const CorporateActionEvent = closed(
  {
    type: enumOf([...ACTION_KINDS, ...EVENT_KINDS]),
    ex_date: nullable(date()),
    record_date: nullable(date()),
    date: date('Key date: ex-date, else meeting or record date; the list is newest first by it'),
    ratio: nullable(
      closed(
        { new: Type.Number(), old: Type.Number() },
        { description: 'Splits and bonuses: `new` shares for `old`' },
      ),
    ),
    amount: nullable(rupees('Dividends: rupees per share as declared')),
    description: Type.String(),
  },
  { $id: 'CorporateActionEvent', description: 'type=corporate_actions' },
);

const StockFiling = closed(
  {
    date: date(),
    type: enumOf(FILING_TYPES),
    title: Type.String(),
  },
  { $id: 'StockFiling', description: 'type=filings' },
);

const Deal = closed(
  {
    date: date(),
    type: enumOf(DEAL_KINDS),
    counterparty: Type.String(),
    side: enumOf(DEAL_SIDES),
    quantity: count('Shares'),
    price: price('Rupees per share as traded'),
    value: rupees('price × quantity, rupees'),
    remarks: nullable(Type.String()),
  },
  { $id: 'Deal' },
);

const holding = (description: string) => Type.Number({ minimum: 0, maximum: 100, description });

const ShareholdingDocument = closed(
  {
    symbol: Type.String(),
    name: Type.String(),
    quarters: Type.Array(
      closed({
        quarter_end: date(),
        promoter: holding('Percent of shares'),
        fii: holding('Percent of shares'),
        dii: holding('Percent of shares'),
        government: holding('Percent of shares'),
        public: holding('Percent of shares'),
      }),
      { description: 'Every quarter held, oldest first' },
    ),
  },
  { $id: 'ShareholdingDocument' },
);

const PledgeDocument = closed(
  {
    symbol: Type.String(),
    name: Type.String(),
    quarters: Type.Array(
      closed({
        quarter_end: date(),
        promoter_holding_pct: holding('Promoter holding, percent of shares'),
        pledged_pct_of_promoter: holding('Pledged, percent of the promoter holding'),
        pledged_pct_of_total: holding('Pledged, percent of all shares'),
      }),
      { description: 'Oldest first' },
    ),
    events: Type.Array(
      closed({
        date: date(),
        kind: enumOf(PLEDGE_EVENT_KINDS),
        shares: count(),
        pledgee: Type.String(),
      }),
      { description: 'Newest first' },
    ),
  },
  { $id: 'PledgeDocument' },
);

const estimate = (unit: string) =>
  closed({
    estimate: Type.Number({ description: `Consensus, ${unit}` }),
    actual: nullable(Type.Number({ description: `${unit}; null until reported` })),
    surprise_pct: pct('(actual − estimate) / |estimate|'),
  });

const ForecastPeriod = closed(
  {
    period: Type.String({ description: '`FY2026` (annual) or `Q2FY2027` (quarterly)' }),
    period_end: date(),
    reported: Type.Boolean({ description: 'Actuals are known' }),
    analysts: Type.Integer({ minimum: 1 }),
    revenue: estimate('rupees crore'),
    ebitda: estimate('rupees crore'),
    net_income: estimate('rupees crore'),
    eps: estimate('rupees'),
    roa: estimate('percent'),
    roe: estimate('percent'),
  },
  { $id: 'ForecastPeriod' },
);

const ForecastsDocument = closed(
  {
    symbol: Type.String(),
    units: closed({
      revenue: Type.Literal('INR crore'),
      ebitda: Type.Literal('INR crore'),
      net_income: Type.Literal('INR crore'),
      eps: Type.Literal('INR'),
      roa: Type.Literal('percent'),
      roe: Type.Literal('percent'),
    }),
    price_target: nullable(
      closed(
        {
          as_of: date(),
          analysts: count(),
          mean: price(),
          high: price(),
          low: price(),
          upside_pct: pct('mean against the last close'),
          recommendations: closed({ buy: count(), hold: count(), sell: count() }),
        },
        { description: 'Null when no analyst covers the company' },
      ),
    ),
    annual: Type.Array(Type.Ref('ForecastPeriod'), { description: 'Oldest first' }),
    quarterly: Type.Array(Type.Ref('ForecastPeriod'), { description: 'Oldest first' }),
  },
  { $id: 'ForecastsDocument' },
);

export const STOCK_DOCUMENTS: readonly TSchema[] = [
  StockQuote,
  BatchQuote,
  BatchQuoteNotFound,
  Range52,
  Technicals,
  CreditRating,
  Peer,
  StockProfile,
  PriceBar,
  WeeklyPriceBar,
  FinancialSection,
  FinancialsDocument,
  CorporateActionEvent,
  StockFiling,
  Deal,
  ShareholdingDocument,
  PledgeDocument,
  ForecastPeriod,
  ForecastsDocument,
];
