import type { Pool } from '@mdp/db';
import type { GeneratedDataset } from '@mdp/market';
import { AREAS } from '../areas/index.ts';
import { copyRows } from './copy.ts';
import { copyBars } from './copy-bars.ts';
import { announceDatasetChange } from './dataset-change.ts';
import {
  actionsTable,
  aliasesTable,
  annualTable,
  ratingsTable,
  stocksTable,
  type TableSpec,
} from './tables.ts';

/** Serialises loaders of one schema (and waits for a loader already running). */
export const LOAD_LOCK_SQL = "SELECT pg_advisory_xact_lock(hashtext(current_schema() || ':equities-load'))";

/**
 * Fresh statistics for this schema's tables after a load, and for no other schema's: the database is
 * shared, and a database-wide ANALYZE also analysed other services' tables at whatever size they had
 * (it once gave the ledger's kept batch plan the statistics of an empty event log).
 */
const ANALYZE_OWN_TABLES = `DO $$
DECLARE t text;
BEGIN
  FOR t IN SELECT format('%I.%I', schemaname, tablename) FROM pg_tables WHERE schemaname = current_schema() LOOP
    EXECUTE 'ANALYZE ' || t;
  END LOOP;
END $$`;

export interface LoadSummary {
  stocks: number;
  aliases: number;
  bars: number;
  actions: number;
  annualResults: number;
  ratings: number;
  /** Each area's own summary of what it loaded. */
  areas: string[];
}

/** True when the schema holds no stock at all (what `load-default --if-empty` checks). */
export async function isEmpty(pool: Pool): Promise<boolean> {
  const { rows } = await pool.query<{ any: boolean }>('SELECT EXISTS (SELECT 1 FROM stocks) AS any');
  return !rows[0]!.any;
}

/**
 * Replaces the whole dataset with a generated one in a single transaction: readers see the old
 * dataset or the new one, never half of it. The primary key and foreign key of daily_bars are dropped
 * for the bulk COPY and rebuilt once at the end (about four times faster than maintaining them per
 * row); they are the same constraints the migration created.
 */
export async function loadGenerated(
  pool: Pool,
  ds: GeneratedDataset,
  opts: { onlyIfEmpty?: boolean; log?: (msg: string) => void } = {},
): Promise<LoadSummary | undefined> {
  const log = opts.log ?? (() => {});
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query(LOAD_LOCK_SQL);
    if (opts.onlyIfEmpty && ((await client.query('SELECT 1 FROM stocks LIMIT 1')).rowCount ?? 0) > 0) {
      await client.query('ROLLBACK');
      return undefined;
    }
    const tables = [
      'stocks',
      'aliases',
      'daily_bars',
      'corporate_actions',
      'market_reports',
      'annual_results',
      'credit_ratings',
    ];
    await client.query(`TRUNCATE ${[...tables, ...AREAS.flatMap((a) => a.tables)].join(', ')}`);
    const copy = <R>(spec: TableSpec<R>, rows: readonly R[]) =>
      copyRows(client, spec.table, spec.columns, (write) => {
        for (const r of rows) write(spec.encode(r));
      });
    const summary: LoadSummary = {
      stocks: await copy(stocksTable, ds.stocks),
      aliases: await copy(aliasesTable, ds.aliases),
      actions: await copy(actionsTable, ds.actions),
      annualResults: await copy(annualTable, ds.annual),
      ratings: await copy(ratingsTable, ds.ratings),
      bars: 0,
      areas: [],
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
    for (const area of AREAS) {
      log(`loading ${area.name}`);
      summary.areas.push(await area.writeGenerated(client, ds, log));
    }
    await announceDatasetChange(client);
    await client.query('COMMIT');
    await client.query(ANALYZE_OWN_TABLES);
    return summary;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}
