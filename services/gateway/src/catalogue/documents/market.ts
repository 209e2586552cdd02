import {
  FII_DERIVATIVE_INSTRUMENTS,
  FO_INSTRUMENTS,
  INDEX_FAMILIES,
  NEWS_CATEGORIES,
  PARTICIPANTS,
  SENTIMENTS,
} from '@mdp/market/vocabulary';
import { type TSchema, Type } from '@sinclair/typebox';
import { VALUATION_INDICES } from '../market.ts';
import { oneOf } from '../params.ts';
import { closed, crore, isoDate, nullable, timestamp } from './parts.ts';

const family = oneOf(INDEX_FAMILIES, { description: 'Index family' });
const level = (description: string) => nullable(Type.Number(), { description });
const ratio = (description: string) => nullable(Type.Number(), { description });

const DatedClose = closed({
  date: isoDate('The session whose official close is used'),
  close: Type.Number({ description: 'Index level' }),
});

const IndexRanking = closed(
  {
    rank: Type.Integer({ minimum: 1 }),
    name: Type.String({ description: 'Index display name' }),
    family,
    return_pct: Type.Number({
      description: 'Percent return from the close of the base period to the close of the last completed one',
    }),
    start: DatedClose,
    end: DatedClose,
  },
  { $id: 'IndexRanking' },
);

const barFields = {
  date: isoDate('The session; for weekly bars the last session of the week'),
  open: level('Index level; null where only the close is held'),
  high: level('Index level; null where only the close is held'),
  low: level('Index level; null where only the close is held'),
  close: Type.Number({ description: 'Official closing level' }),
  pe: ratio('Price to earnings of the index'),
  pb: ratio('Price to book of the index'),
  div_yield: ratio('Dividend yield, percent'),
};

const IndexBar = closed(barFields, { $id: 'IndexBar', description: 'One session' });

const IndexWeekBar = closed(
  {
    ...barFields,
    week_start: isoDate('Monday of the ISO week'),
    sessions: Type.Integer({ minimum: 1, description: 'Sessions in the week' }),
  },
  {
    $id: 'IndexWeekBar',
    description:
      "An ISO week: first session's open, highest high, lowest low, last session's close and ratios",
  },
);

const IndexHistoryDocument = Type.Union(
  [
    closed({
      name: Type.String(),
      family,
      interval: oneOf(['1m', '3m', '6m', '1y'], { description: 'Daily bars' }),
      bar_interval: Type.Literal('1d'),
      bars: Type.Array(Type.Ref('IndexBar'), { description: 'Oldest first' }),
    }),
    closed({
      name: Type.String(),
      family,
      interval: oneOf(['2y', 'max'], { description: 'Weekly bars' }),
      bar_interval: Type.Literal('1w'),
      bars: Type.Array(Type.Ref('IndexWeekBar'), { description: 'Oldest first' }),
    }),
  ],
  { $id: 'IndexHistoryDocument', description: 'Daily bars for 1m to 1y, weekly bars for 2y and max' },
);

const FlowSide = closed(
  { buy: crore(), sell: crore(), net: crore('buy − sell, crore of rupees') },
  { $id: 'FlowSide', description: 'Cash-market buying and selling, crore of rupees' },
);

const sumFields = {
  from: isoDate(),
  to: isoDate(),
  sessions: nullable(Type.Integer({ minimum: 0 }), {
    description: 'Sessions summed; null when a month is held only as a monthly figure',
  }),
  fii: Type.Ref('FlowSide'),
  dii: Type.Ref('FlowSide'),
};

const Streak = closed({
  direction: nullable(oneOf(['buying', 'selling']), { description: 'null when the latest net is zero' }),
  length: Type.Integer({ minimum: 0 }),
  unit: oneOf(['session', 'month']),
  from: nullable(isoDate()),
  to: nullable(isoDate()),
  amount: crore('Net over the streak, crore of rupees'),
});

const NetFlow = closed({
  from: nullable(isoDate(), { description: 'First day covered; null when nothing is held in the span' }),
  to: isoDate(),
  fii_net: crore(),
  dii_net: crore(),
});

const Position = closed({
  long: Type.Integer({ minimum: 0 }),
  short: Type.Integer({ minimum: 0 }),
  net: Type.Integer(),
  net_change: nullable(Type.Integer(), { description: 'Change of net since the previous day held' }),
});

const Positions = closed(Object.fromEntries(FO_INSTRUMENTS.map((i) => [i, Position])), {
  description: 'Contracts per instrument',
});

const ParticipantTable = closed(
  Object.fromEntries([...PARTICIPANTS, 'total'].map((who) => [who, Type.Optional(Positions)])),
  { $id: 'ParticipantTable', description: 'Per participant (and the market total) as NSE reports them' },
);

const FiiDerivativeStat = closed({
  buy_contracts: Type.Integer({ minimum: 0 }),
  buy_amount: crore(),
  sell_contracts: Type.Integer({ minimum: 0 }),
  sell_amount: crore(),
  net_amount: crore(),
  oi_contracts: Type.Integer({ minimum: 0 }),
  oi_amount: crore(),
});

const FoPositioning = closed({
  date: isoDate('Latest day with open interest held'),
  previous_date: nullable(isoDate()),
  unit: Type.Literal('contracts'),
  open_interest: Type.Ref('ParticipantTable'),
  volume: nullable(Type.Ref('ParticipantTable'), { description: "The day's traded volume" }),
  fii_derivatives: nullable(
    closed(Object.fromEntries(FII_DERIVATIVE_INSTRUMENTS.map((i) => [i, Type.Optional(FiiDerivativeStat)]))),
    { description: "NSE's FII derivatives statistics of the day" },
  ),
});

const ChartPoint = closed({
  date: isoDate('Last day of the point'),
  period: oneOf(['session', 'week', 'month']),
  fii_net: crore(),
  dii_net: crore(),
  fii_cumulative: crore('Running total from the start of the span'),
  dii_cumulative: crore('Running total from the start of the span'),
});

const FiiDiiDocument = closed(
  {
    as_of: isoDate('Latest figure held'),
    sessions: Type.Array(closed({ date: isoDate(), fii: Type.Ref('FlowSide'), dii: Type.Ref('FlowSide') }), {
      maxItems: 30,
      description: 'Last 30 sessions, newest first',
    }),
    weekly: Type.Array(closed({ week_start: isoDate(), ...sumFields }), {
      maxItems: 12,
      description: 'Last 12 ISO weeks of sessions, newest first',
    }),
    monthly: Type.Array(closed({ month: Type.String({ pattern: '^\\d{4}-\\d{2}$' }), ...sumFields }), {
      maxItems: 12,
      description: 'Last 12 months, newest first',
    }),
    yearly: Type.Array(closed({ year: Type.Integer(), ...sumFields }), { description: 'Newest first' }),
    streaks: closed({ fii: Streak, dii: Streak }),
    cumulative: closed({
      month_to_date: NetFlow,
      year_to_date: NetFlow,
      last_30_sessions: nullable(NetFlow),
      one_year: NetFlow,
      all_held: NetFlow,
    }),
    fo_positioning: nullable(FoPositioning, { description: 'null when no F&O open interest is held' }),
    chart: Type.Optional(
      closed(
        {
          interval: oneOf(['1m', '3m', '6m', '1y', '5y']),
          from: isoDate(),
          to: isoDate(),
          points: Type.Array(ChartPoint, { description: 'Oldest first' }),
        },
        { description: 'Only with `chart_interval`; weekly points for 5y' },
      ),
    ),
  },
  { $id: 'FiiDiiDocument' },
);

const Summary = closed({
  observations: Type.Integer({ minimum: 1 }),
  current: Type.Number(),
  mean: Type.Number(),
  sd: Type.Number({ description: 'Sample standard deviation' }),
  minus_1sd: Type.Number(),
  plus_1sd: Type.Number(),
  min: Type.Number(),
  max: Type.Number(),
  current_percentile: Type.Number({
    minimum: 0,
    maximum: 100,
    description: "Percent of the window's observations at or below the current value",
  }),
});

const ValuationsDocument = closed(
  {
    index: oneOf(VALUATION_INDICES),
    name: Type.String({ description: 'Index display name' }),
    years: Type.Integer({ minimum: 1, maximum: 20 }),
    from: isoDate(),
    to: isoDate(),
    bar_interval: oneOf(['1d', '1w'], { description: 'Weekly points beyond 5 years' }),
    summary: closed(
      { pe: nullable(Summary), pb: nullable(Summary), div_yield: nullable(Summary) },
      { description: 'Over every daily observation of the window' },
    ),
    series: Type.Array(
      closed({
        date: isoDate(),
        pe: ratio('Price to earnings'),
        pb: ratio('Price to book'),
        div_yield: ratio('Dividend yield, percent'),
      }),
      { description: 'Oldest first' },
    ),
  },
  { $id: 'ValuationsDocument' },
);

/** One news item, on the market feed and (filtered to the stock) on a stock's `events?type=news`. */
const NewsItem = closed(
  {
    id: Type.Integer({ minimum: 1 }),
    published_at: timestamp(),
    category: oneOf(NEWS_CATEGORIES),
    sentiment: oneOf(SENTIMENTS),
    headline: Type.String(),
    summary: Type.String(),
    source: Type.String(),
    related_symbols: Type.Array(Type.String(), { description: 'Symbols for the per-stock paths' }),
  },
  { $id: 'NewsItem' },
);

const FpiSectorsDocument = closed(
  {
    fortnight_end: isoDate(),
    previous_fortnight_end: nullable(isoDate()),
    one_year_from: isoDate(),
    unit: Type.Literal('crore'),
    total: closed({ aum: crore(), fortnight_flow: crore(), one_year_flow: crore() }),
    sectors: Type.Array(
      closed({
        sector: Type.String({ description: 'NSE sector of the stock master' }),
        aum: crore('Assets held, crore of rupees'),
        aum_share_pct: Type.Number({ description: 'Percent of the total; the sectors add up to 100' }),
        share_change_pp: nullable(Type.Number(), {
          description: 'Change of the share since the previous fortnight, percentage points',
        }),
        fortnight_flow: crore('Net investment in the fortnight, crore of rupees'),
        one_year_flow: crore('Net investment over the year to the fortnight, crore of rupees'),
      }),
      { description: 'Largest holding first' },
    ),
  },
  { $id: 'FpiSectorsDocument' },
);

export const MARKET_DOCUMENTS: readonly TSchema[] = [
  IndexRanking,
  IndexBar,
  IndexWeekBar,
  IndexHistoryDocument,
  FlowSide,
  ParticipantTable,
  FiiDiiDocument,
  ValuationsDocument,
  NewsItem,
  FpiSectorsDocument,
];
