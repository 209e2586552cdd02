import type {
  CreditRatingAction,
  DealRow,
  ForecastRow,
  NewsRow,
  PriceTargetRow,
  ShareholdingRow,
} from '@mdp/market';
import { formatDay } from '@mdp/nse-calendar';
import type { StockEntry } from '../stocks/dataset.ts';

const r2 = (x: number) => Math.round(x * 100) / 100;

export function shareholdingDoc(rows: readonly ShareholdingRow[]) {
  return rows.map((h) => ({
    quarter_end: formatDay(h.quarterEnd),
    promoter: h.promoter,
    fii: h.fii,
    dii: h.dii,
    government: h.government,
    public: h.public,
  }));
}

export function pledgeQuarters(rows: readonly ShareholdingRow[]) {
  return rows.map((h) => ({
    quarter_end: formatDay(h.quarterEnd),
    promoter_holding_pct: h.promoter,
    pledged_pct_of_promoter: h.pledgedOfPromoter,
    pledged_pct_of_total: r2((h.promoter * h.pledgedOfPromoter) / 100),
  }));
}

/** (actual − estimate) / |estimate| in percent; null without an actual or with a zero estimate. */
export function surprisePct(estimate: number, actual: number | null): number | null {
  if (actual === null || estimate === 0) return null;
  return r2(((actual - estimate) / Math.abs(estimate)) * 100);
}

const metric = (estimate: number, actual: number | null) => ({
  estimate,
  actual,
  surprise_pct: surprisePct(estimate, actual),
});

export function forecastRow(f: ForecastRow) {
  return {
    period: f.period,
    period_end: formatDay(f.periodEnd),
    reported: f.revenueAct !== null,
    analysts: f.analysts,
    revenue: metric(f.revenueEst, f.revenueAct),
    ebitda: metric(f.ebitdaEst, f.ebitdaAct),
    net_income: metric(f.netIncomeEst, f.netIncomeAct),
    eps: metric(f.epsEst, f.epsAct),
    roa: metric(f.roaEst, f.roaAct),
    roe: metric(f.roeEst, f.roeAct),
  };
}

export function priceTargetDoc(t: PriceTargetRow | undefined, e: StockEntry) {
  if (!t) return null;
  const ltp = e.lastBar ? e.lastBar.close / 100 : null;
  return {
    as_of: formatDay(t.d),
    analysts: t.analysts,
    mean: t.mean,
    high: t.high,
    low: t.low,
    upside_pct: ltp ? r2((t.mean / ltp - 1) * 100) : null,
    recommendations: { buy: t.buy, hold: t.hold, sell: t.sell },
  };
}

export function ratingDoc(r: CreditRatingAction) {
  return {
    date: formatDay(r.ratedOn),
    agency: r.agency,
    instrument: r.instrument,
    rating: r.rating,
    action: r.action,
    outlook: r.outlook,
  };
}

export function dealDoc(d: DealRow) {
  const price = d.price / 100;
  return {
    date: formatDay(d.d),
    type: d.kind,
    counterparty: d.client,
    side: d.side,
    quantity: d.quantity,
    price,
    value: r2(price * d.quantity),
    remarks: d.remarks,
  };
}

export function newsDoc(n: NewsRow, symbolOf: (id: number) => string | undefined) {
  return {
    id: n.id,
    published_at: new Date(n.publishedAt).toISOString(),
    category: n.category,
    sentiment: n.sentiment,
    headline: n.headline,
    summary: n.summary,
    source: n.source,
    related_symbols: n.stockIds.flatMap((id) => symbolOf(id) ?? []),
  };
}
