import type {
  CorporateEventRow,
  DealRow,
  ForecastRow,
  NewsRow,
  PledgeEventRow,
  PriceTargetRow,
  ShareholdingRow,
} from '@mdp/market';
import type { TableSpec } from '../../store/copy.ts';
import { copyDay, copyValue as v } from '../../store/copy.ts';

/** Column lists and COPY encoders of the corporate tables (migration 0003). */
export const shareholdingTable: TableSpec<ShareholdingRow> = {
  table: 'shareholding',
  columns: [
    'stock_id',
    'quarter_end',
    'promoter',
    'fii',
    'dii',
    'government',
    'public',
    'pledged_of_promoter',
  ],
  encode: (r) => [
    v(r.stockId),
    copyDay(r.quarterEnd),
    v(r.promoter),
    v(r.fii),
    v(r.dii),
    v(r.government),
    v(r.public),
    v(r.pledgedOfPromoter),
  ],
};

export const pledgeEventsTable: TableSpec<PledgeEventRow> = {
  table: 'pledge_events',
  columns: ['stock_id', 'd', 'kind', 'shares', 'pledgee'],
  encode: (r) => [v(r.stockId), copyDay(r.d), v(r.kind), v(r.shares), v(r.pledgee)],
};

export const forecastsTable: TableSpec<ForecastRow> = {
  table: 'forecasts',
  columns: [
    'stock_id',
    'period_type',
    'period',
    'period_end',
    'analysts',
    'revenue_est',
    'revenue_act',
    'ebitda_est',
    'ebitda_act',
    'net_income_est',
    'net_income_act',
    'eps_est',
    'eps_act',
    'roa_est',
    'roa_act',
    'roe_est',
    'roe_act',
  ],
  encode: (r) => [
    v(r.stockId),
    v(r.periodType),
    v(r.period),
    copyDay(r.periodEnd),
    v(r.analysts),
    v(r.revenueEst),
    v(r.revenueAct),
    v(r.ebitdaEst),
    v(r.ebitdaAct),
    v(r.netIncomeEst),
    v(r.netIncomeAct),
    v(r.epsEst),
    v(r.epsAct),
    v(r.roaEst),
    v(r.roaAct),
    v(r.roeEst),
    v(r.roeAct),
  ],
};

export const priceTargetsTable: TableSpec<PriceTargetRow> = {
  table: 'price_targets',
  columns: ['stock_id', 'd', 'analysts', 'mean', 'high', 'low', 'buy', 'hold', 'sell'],
  encode: (r) => [
    v(r.stockId),
    copyDay(r.d),
    v(r.analysts),
    v(r.mean),
    v(r.high),
    v(r.low),
    v(r.buy),
    v(r.hold),
    v(r.sell),
  ],
};

export const dealsTable: TableSpec<DealRow> = {
  table: 'deals',
  columns: ['stock_id', 'd', 'kind', 'client', 'side', 'quantity', 'price', 'remarks'],
  encode: (r) => [
    v(r.stockId),
    copyDay(r.d),
    v(r.kind),
    v(r.client),
    v(r.side),
    v(r.quantity),
    v(r.price),
    v(r.remarks),
  ],
};

export const eventsTable: TableSpec<CorporateEventRow> = {
  table: 'corporate_events',
  columns: ['stock_id', 'kind', 'ex_date', 'record_date', 'event_date', 'amount', 'description'],
  encode: (r) => [
    v(r.stockId),
    v(r.kind),
    copyDay(r.exDate),
    copyDay(r.recordDate),
    copyDay(r.eventDate),
    v(r.amount),
    v(r.description),
  ],
};

export const newsTable: TableSpec<NewsRow> = {
  table: 'news',
  columns: ['id', 'published_at', 'category', 'sentiment', 'headline', 'summary', 'source', 'stock_ids'],
  encode: (r) => [
    v(r.id),
    new Date(r.publishedAt).toISOString(),
    v(r.category),
    v(r.sentiment),
    v(r.headline),
    v(r.summary),
    v(r.source),
    `{${r.stockIds.join(',')}}`,
  ],
};

export const CORPORATE_TABLES = [
  shareholdingTable,
  pledgeEventsTable,
  forecastsTable,
  priceTargetsTable,
  dealsTable,
  eventsTable,
  newsTable,
].map((t) => t.table);
