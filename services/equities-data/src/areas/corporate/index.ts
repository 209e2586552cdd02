import type { BarRow } from '@mdp/market';
import type { DayNumber } from '@mdp/nse-calendar';
import type pg from 'pg';
import { copyTable } from '../../store/copy.ts';
import { defineArea } from '../area.ts';
import type { CorporateData } from './data.ts';
import { generateCorporate } from './generated.ts';
import { corporateActionsKind } from './importers/corporate-actions.ts';
import { nseDeals } from './importers/deals.ts';
import { readCorporate } from './read.ts';
import { corporateRpcs } from './rpcs.ts';
import {
  CORPORATE_TABLES,
  dealsTable,
  eventsTable,
  forecastsTable,
  newsTable,
  pledgeEventsTable,
  priceTargetsTable,
  shareholdingTable,
} from './tables.ts';

/** The day range of the loaded bars that deals are priced in, read with one query. */
async function loadedBars(
  client: pg.PoolClient,
  wanted: { stockId: number; d: DayNumber }[],
): Promise<Map<string, Pick<BarRow, 'low' | 'high'>>> {
  const { rows } = await client.query<{ stock_id: number; d: number; low: number; high: number }>(
    `SELECT b.stock_id, b.d - DATE '1970-01-01' AS d, b.low, b.high
       FROM unnest($1::int[], $2::int[]) AS w (stock_id, dn)
       JOIN daily_bars b ON b.stock_id = w.stock_id AND b.d = DATE '1970-01-01' + w.dn`,
    [wanted.map((w) => w.stockId), wanted.map((w) => w.d)],
  );
  return new Map(rows.map((r) => [`${r.stock_id}:${r.d}`, { low: r.low, high: r.high }]));
}

/** Shareholding, forecasts, pledge, ratings, deals, events and news. */
export const corporateArea = defineArea<CorporateData>({
  name: 'corporate',
  tables: CORPORATE_TABLES,
  importKinds: { 'nse-deals': nseDeals, 'nse-corporate-actions': corporateActionsKind },
  async writeGenerated(client, market, log) {
    log('  generating shareholding, forecasts, deals, events and news');
    const rows = await generateCorporate(market, (wanted) => loadedBars(client, wanted));
    const counts = [
      await copyTable(client, shareholdingTable, rows.shareholding),
      await copyTable(client, pledgeEventsTable, rows.pledgeEvents),
      await copyTable(client, forecastsTable, rows.forecasts),
      await copyTable(client, priceTargetsTable, rows.targets),
      await copyTable(client, dealsTable, rows.deals),
      await copyTable(client, eventsTable, rows.events),
      await copyTable(client, newsTable, rows.news),
    ];
    const [holdings, pledges, forecasts, , deals, events, news] = counts;
    return `corporate: shareholding ${holdings}, pledge events ${pledges}, forecasts ${forecasts}, deals ${deals}, corporate events ${events}, news ${news}`;
  },
  read: readCorporate,
  rpcs: (deps) => corporateRpcs(deps),
});
