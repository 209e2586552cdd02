import {
  type BarRow,
  type CorporateEventRow,
  type DealRow,
  type ForecastRow,
  type GeneratedDataset,
  generateCorporateEvents,
  generateForecasts,
  generateNews,
  generateShareholding,
  type NewsRow,
  type PledgeEventRow,
  type PriceTargetRow,
  planDeals,
  pledgeEvents,
  priceDeals,
  type ShareholdingRow,
} from '@mdp/market';
import type { DayNumber } from '@mdp/nse-calendar';

/** Everything the corporate area generates for a dataset. */
export interface CorporateRows {
  shareholding: ShareholdingRow[];
  pledgeEvents: PledgeEventRow[];
  forecasts: ForecastRow[];
  targets: PriceTargetRow[];
  deals: DealRow[];
  events: CorporateEventRow[];
  news: NewsRow[];
}

/**
 * The generated corporate data of a dataset. Deals are priced inside the day's traded range, so the
 * caller says where bars come from (the loaded table in the service, memory in tests).
 */
export async function generateCorporate(
  ds: GeneratedDataset,
  barsOn: (wanted: { stockId: number; d: DayNumber }[]) => Promise<Map<string, Pick<BarRow, 'low' | 'high'>>>,
): Promise<CorporateRows> {
  const shareholding = generateShareholding(ds);
  const plans = planDeals(ds);
  const bars = await barsOn(plans.map((p) => ({ stockId: p.stockId, d: p.d })));
  const events = generateCorporateEvents(ds);
  const { forecasts, targets } = generateForecasts(ds);
  return {
    shareholding,
    pledgeEvents: pledgeEvents(ds, shareholding),
    forecasts,
    targets,
    deals: priceDeals(ds, plans, (id, d) => bars.get(`${id}:${d}`)),
    events,
    news: generateNews(ds, events),
  };
}
