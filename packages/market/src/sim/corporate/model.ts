import type { DayNumber } from '@mdp/nse-calendar';
import type {
  CorporateEventKind,
  DealKind,
  DealSide,
  NewsCategory,
  PledgeEventKind,
  Sentiment,
} from '../../vocabulary.ts';

/**
 * Rows of the corporate area (shareholding, pledges, forecasts, deals, dividends and AGMs, news) as
 * the generator, the store and the service see them. Percentages are percent (0..100), amounts of
 * results rupees crore, prices integer paise as traded on the day.
 */
export interface ShareholdingRow {
  stockId: number;
  quarterEnd: DayNumber;
  promoter: number;
  fii: number;
  dii: number;
  government: number;
  public: number;
  /** Percent of the promoter holding that is pledged (0 when the promoters hold nothing). */
  pledgedOfPromoter: number;
}

export interface PledgeEventRow {
  stockId: number;
  d: DayNumber;
  kind: PledgeEventKind;
  shares: number;
  pledgee: string;
}

export type ForecastPeriodType = 'annual' | 'quarterly';

/** One period's consensus and, once reported, the actual figure (null when not reported or not known). */
export interface ForecastRow {
  stockId: number;
  periodType: ForecastPeriodType;
  /** FY2026 or Q2FY2027. */
  period: string;
  periodEnd: DayNumber;
  analysts: number;
  revenueEst: number;
  revenueAct: number | null;
  ebitdaEst: number;
  ebitdaAct: number | null;
  netIncomeEst: number;
  netIncomeAct: number | null;
  epsEst: number;
  epsAct: number | null;
  roaEst: number;
  roaAct: number | null;
  roeEst: number;
  roeAct: number | null;
}

export interface PriceTargetRow {
  stockId: number;
  d: DayNumber;
  analysts: number;
  /** Rupees. */
  mean: number;
  high: number;
  low: number;
  buy: number;
  hold: number;
  sell: number;
}

export interface DealRow {
  stockId: number;
  d: DayNumber;
  kind: DealKind;
  client: string;
  side: DealSide;
  quantity: number;
  price: number;
  remarks: string | null;
}

/** Corporate actions other than the splits and bonuses that adjust prices (those stay in CorporateActionRow). */
export interface CorporateEventRow {
  stockId: number;
  kind: CorporateEventKind;
  exDate: DayNumber | null;
  recordDate: DayNumber | null;
  /** The meeting day for AGMs. */
  eventDate: DayNumber | null;
  /** Rupees per share as declared, for dividends. */
  amount: number | null;
  description: string;
}

export interface NewsRow {
  id: number;
  /** Epoch milliseconds. */
  publishedAt: number;
  category: NewsCategory;
  sentiment: Sentiment;
  headline: string;
  summary: string;
  source: string;
  stockIds: number[];
}
