import type { GeneratedDataset } from '@mdp/market';
import type pg from 'pg';
import type { ImportKind } from '../../importers/kind.ts';
import { copyTable } from '../../store/copy.ts';
import { copyBars } from './copy-bars.ts';
import { brands, nseNameChanges, nseSymbolChanges } from './importers/aliases.ts';
import {
  bseAllStatus,
  bseScrips,
  nseDelisted,
  nseEtfs,
  nseIndexList,
  nseSecurities,
} from './importers/listings.ts';
import { marketReport } from './importers/market-report.ts';
import { bhavcopy, dailyHistory, delivery } from './importers/prices.ts';
import { actionsTable, aliasesTable, annualTable, ratingsTable, stocksTable } from './tables.ts';

/*
 * The stock master and prices, with what quotes and profiles need beside them. Not one of AREAS: it is
 * loaded before them (they refer to stocks by id and read its bars), and its dataset is what every
 * area's RPCs resolve symbols with (ServiceDeps.dataset).
 */

export const STOCK_TABLES = [
  'stocks',
  'aliases',
  'daily_bars',
  'corporate_actions',
  'market_reports',
  'annual_results',
  'credit_ratings',
] as const;

/**
 * The stock import kinds, in the order a full import runs them: the stock master first (NSE lists, then
 * BSE, then the delisted lists), then aliases, then prices, the delivery on them and the market report.
 */
export const stockImportKinds: Record<string, ImportKind> = {
  'nse-securities': nseSecurities,
  'nse-etfs': nseEtfs,
  'nse-index': nseIndexList,
  'bse-scrips': bseScrips,
  'nse-delisted': nseDelisted,
  'bse-all-status': bseAllStatus,
  'nse-symbol-changes': nseSymbolChanges,
  'nse-name-changes': nseNameChanges,
  brands,
  bhavcopy,
  // Delivery figures land on price bars, so every source of bars comes before it.
  'daily-history': dailyHistory,
  delivery,
  'market-report': marketReport,
};

export interface StockLoadSummary {
  stocks: number;
  aliases: number;
  bars: number;
  actions: number;
  annualResults: number;
  ratings: number;
}

/**
 * Fills the (emptied) stock tables from the generated market, inside the load transaction. The primary
 * key and foreign key of daily_bars are dropped for the bulk COPY and rebuilt once at the end (about
 * four times faster than maintaining them per row); they are the same constraints the migration created.
 */
export async function writeGeneratedStocks(
  client: pg.PoolClient,
  ds: GeneratedDataset,
  log: (line: string) => void,
): Promise<StockLoadSummary> {
  const summary: StockLoadSummary = {
    stocks: await copyTable(client, stocksTable, ds.stocks),
    aliases: await copyTable(client, aliasesTable, ds.aliases),
    actions: await copyTable(client, actionsTable, ds.actions),
    annualResults: await copyTable(client, annualTable, ds.annual),
    ratings: await copyTable(client, ratingsTable, ds.ratings),
    bars: 0,
  };
  await client.query("SELECT setval(pg_get_serial_sequence('stocks', 'id'), (SELECT max(id) FROM stocks))");
  log(
    `stocks ${summary.stocks}, aliases ${summary.aliases}; generating and copying ${ds.barCount} daily bars`,
  );
  await client.query(
    'ALTER TABLE daily_bars DROP CONSTRAINT daily_bars_pkey, DROP CONSTRAINT daily_bars_stock_id_fkey',
  );
  let done = 0;
  summary.bars = await copyBars(client, async (write, drained) => {
    for (const id of ds.stocksWithBars) {
      ds.emitBars(id, write);
      if (++done % 500 === 0) {
        await drained();
        log(`  bars of ${done}/${ds.stocksWithBars.length} stocks copied`);
      }
    }
  });
  log('rebuilding the daily_bars primary key');
  // Ten million keys sort in memory with this (the server's default, 64 MB, spills them to disk).
  await client.query("SET LOCAL maintenance_work_mem = '512MB'");
  await client.query(
    `ALTER TABLE daily_bars ADD CONSTRAINT daily_bars_pkey PRIMARY KEY (stock_id, d),
       ADD CONSTRAINT daily_bars_stock_id_fkey FOREIGN KEY (stock_id) REFERENCES stocks (id) ON DELETE CASCADE`,
  );
  return summary;
}
