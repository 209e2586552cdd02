import type {
  CorporateEventRow,
  DealRow,
  ForecastRow,
  NewsRow,
  PledgeEventRow,
  PriceTargetRow,
  ShareholdingRow,
} from '@mdp/market';
import type { FinancialsSource } from '../financials/store.ts';
import type { CorporateRows } from './generated.ts';

/** What the corporate routes answer from, per stock id, in serving order. */
export interface CorporateData {
  /** Oldest quarter first. */
  shareholding: Map<number, ShareholdingRow[]>;
  /** Newest first. */
  pledgeEvents: Map<number, PledgeEventRow[]>;
  /** Oldest period first. */
  forecasts: Map<number, ForecastRow[]>;
  targets: Map<number, PriceTargetRow>;
  /** Newest first. */
  deals: Map<number, DealRow[]>;
  events: Map<number, CorporateEventRow[]>;
  /** Newest first, all of them and per related stock. */
  news: NewsRow[];
  newsOf: Map<number, NewsRow[]>;
  /**
   * The companies' financial statements, read where the financials route reads them: the filings list
   * dates results by them, so both give a period the same results day.
   */
  financials: FinancialsSource;
}

function groupBy<T>(
  rows: readonly T[],
  key: (r: T) => number,
  order: (a: T, b: T) => number,
): Map<number, T[]> {
  const map = new Map<number, T[]>();
  for (const r of [...rows].sort(order)) {
    const k = key(r);
    const list = map.get(k);
    if (list) list.push(r);
    else map.set(k, [r]);
  }
  return map;
}

export function corporateData(rows: CorporateRows, financials: FinancialsSource): CorporateData {
  const news = [...rows.news].sort((a, b) => b.publishedAt - a.publishedAt || b.id - a.id);
  const newsOf = new Map<number, NewsRow[]>();
  for (const n of news)
    for (const id of n.stockIds) {
      const list = newsOf.get(id);
      if (list) list.push(n);
      else newsOf.set(id, [n]);
    }
  return {
    shareholding: groupBy(
      rows.shareholding,
      (r) => r.stockId,
      (a, b) => a.quarterEnd - b.quarterEnd,
    ),
    pledgeEvents: groupBy(
      rows.pledgeEvents,
      (r) => r.stockId,
      (a, b) => b.d - a.d,
    ),
    forecasts: groupBy(
      rows.forecasts,
      (r) => r.stockId,
      (a, b) => a.periodEnd - b.periodEnd,
    ),
    targets: new Map(rows.targets.map((t) => [t.stockId, t])),
    deals: groupBy(
      rows.deals,
      (r) => r.stockId,
      (a, b) => b.d - a.d || a.kind.localeCompare(b.kind) || a.client.localeCompare(b.client),
    ),
    events: groupBy(
      rows.events,
      (r) => r.stockId,
      () => 0,
    ),
    news,
    newsOf,
    financials,
  };
}
