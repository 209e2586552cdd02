import type { Pool } from '@mdp/db';
import type { CorporateEventRow, DealRow, ForecastRow, NewsRow, PledgeEventRow } from '@mdp/market';
import { pgFinancialsSource } from '../financials/store.ts';
import { type CorporateData, corporateData } from './data.ts';
import type { CorporateRows } from './generated.ts';

type Row = Record<string, unknown>;
const DAY = (col: string) => `(${col} - DATE '1970-01-01') AS ${col}`;
const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

/**
 * Reads the corporate tables into memory (a few hundred thousand rows for the default dataset); the
 * financial statements that date the filings list stay in their table, read per request.
 */
export async function readCorporate(pool: Pool): Promise<CorporateData> {
  const q = async (sql: string) => (await pool.query<Row>(sql)).rows;
  const [holdings, pledges, forecasts, targets, deals, events, news] = await Promise.all([
    q(`SELECT stock_id, ${DAY('quarter_end')}, promoter::float8, fii::float8, dii::float8, government::float8,
              public::float8, pledged_of_promoter::float8 FROM shareholding`),
    q(`SELECT stock_id, ${DAY('d')}, kind, shares::float8, pledgee FROM pledge_events`),
    q(`SELECT *, ${DAY('period_end')} FROM forecasts`),
    q(`SELECT *, ${DAY('d')} FROM price_targets`),
    q(
      `SELECT stock_id, ${DAY('d')}, kind, client, side, quantity::float8, price::float8, remarks FROM deals`,
    ),
    q(`SELECT stock_id, kind, ${DAY('ex_date')}, ${DAY('record_date')}, ${DAY('event_date')}, amount::float8,
              description FROM corporate_events`),
    q(`SELECT id, (extract(epoch FROM published_at) * 1000)::float8 AS published_at, category, sentiment, headline,
              summary, source, stock_ids FROM news`),
  ]);
  const rows: CorporateRows = {
    shareholding: holdings.map((r) => ({
      stockId: Number(r.stock_id),
      quarterEnd: Number(r.quarter_end),
      promoter: Number(r.promoter),
      fii: Number(r.fii),
      dii: Number(r.dii),
      government: Number(r.government),
      public: Number(r.public),
      pledgedOfPromoter: Number(r.pledged_of_promoter),
    })),
    pledgeEvents: pledges.map((r) => ({
      stockId: Number(r.stock_id),
      d: Number(r.d),
      kind: r.kind as PledgeEventRow['kind'],
      shares: Number(r.shares),
      pledgee: String(r.pledgee),
    })),
    forecasts: forecasts.map(
      (r): ForecastRow => ({
        stockId: Number(r.stock_id),
        periodType: r.period_type as ForecastRow['periodType'],
        period: String(r.period),
        periodEnd: Number(r.period_end),
        analysts: Number(r.analysts),
        revenueEst: Number(r.revenue_est),
        revenueAct: num(r.revenue_act),
        ebitdaEst: Number(r.ebitda_est),
        ebitdaAct: num(r.ebitda_act),
        netIncomeEst: Number(r.net_income_est),
        netIncomeAct: num(r.net_income_act),
        epsEst: Number(r.eps_est),
        epsAct: num(r.eps_act),
        roaEst: Number(r.roa_est),
        roaAct: num(r.roa_act),
        roeEst: Number(r.roe_est),
        roeAct: num(r.roe_act),
      }),
    ),
    targets: targets.map((r) => ({
      stockId: Number(r.stock_id),
      d: Number(r.d),
      analysts: Number(r.analysts),
      mean: Number(r.mean),
      high: Number(r.high),
      low: Number(r.low),
      buy: Number(r.buy),
      hold: Number(r.hold),
      sell: Number(r.sell),
    })),
    deals: deals.map(
      (r): DealRow => ({
        stockId: Number(r.stock_id),
        d: Number(r.d),
        kind: r.kind as DealRow['kind'],
        client: String(r.client),
        side: r.side as DealRow['side'],
        quantity: Number(r.quantity),
        price: Number(r.price),
        remarks: (r.remarks as string | null) ?? null,
      }),
    ),
    events: events.map(
      (r): CorporateEventRow => ({
        stockId: Number(r.stock_id),
        kind: r.kind as CorporateEventRow['kind'],
        exDate: num(r.ex_date),
        recordDate: num(r.record_date),
        eventDate: num(r.event_date),
        amount: num(r.amount),
        description: String(r.description),
      }),
    ),
    news: news.map(
      (r): NewsRow => ({
        id: Number(r.id),
        publishedAt: Number(r.published_at),
        category: r.category as NewsRow['category'],
        sentiment: r.sentiment as NewsRow['sentiment'],
        headline: String(r.headline),
        summary: String(r.summary),
        source: String(r.source),
        stockIds: (r.stock_ids as number[]).map(Number),
      }),
    ),
  };
  return corporateData(rows, pgFinancialsSource(pool));
}
