import { type Pool, withTransaction } from '@mdp/db';
import type { GeneratedDataset } from '@mdp/market';
import { AREAS } from '../areas/index.ts';
import { STOCK_TABLES, type StockLoadSummary, writeGeneratedStocks } from '../areas/stocks/index.ts';
import { announceDatasetChange } from './dataset-change.ts';

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

export interface LoadSummary extends StockLoadSummary {
  /** Each area's own summary of what it loaded. */
  areas: string[];
}

/**
 * Replaces the whole dataset with a generated one in a single transaction: readers see the old
 * dataset or the new one, never half of it. The stocks first: the other areas refer to them.
 */
export async function loadGenerated(
  pool: Pool,
  ds: GeneratedDataset,
  opts: { onlyIfEmpty?: boolean; log?: (msg: string) => void } = {},
): Promise<LoadSummary | undefined> {
  const log = opts.log ?? (() => {});
  const summary = await withTransaction(pool, async (client) => {
    await client.query(LOAD_LOCK_SQL);
    if (opts.onlyIfEmpty && ((await client.query('SELECT 1 FROM stocks LIMIT 1')).rowCount ?? 0) > 0)
      return undefined;
    await client.query(`TRUNCATE ${[...STOCK_TABLES, ...AREAS.flatMap((a) => a.tables)].join(', ')}`);
    const summary: LoadSummary = { ...(await writeGeneratedStocks(client, ds, log)), areas: [] };
    for (const area of AREAS) {
      log(`loading ${area.name}`);
      summary.areas.push(await area.writeGenerated(client, ds, log));
    }
    await announceDatasetChange(client);
    return summary;
  });
  if (summary) await pool.query(ANALYZE_OWN_TABLES);
  return summary;
}
