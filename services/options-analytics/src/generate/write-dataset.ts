import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Pool } from 'pg';
import { LOAD_LOCK_SQL, OptionsStore } from '../store/options-store.ts';
import { type DatasetOptions, generateDataset, type UnderlyingBundle } from './dataset.ts';

/** Serialises every loader of this database, so two `load-default --if-empty` never both load. */
const FLUSH_ROWS = 20_000;

export interface WriteResult {
  written: boolean;
  underlyings: number;
  snapshots: number;
  dailyRows: number;
}

/**
 * Writes the generated dataset in one transaction: readers see all of it or none of it. With
 * `ifEmpty`, nothing is written when any underlying or snapshot is already there; otherwise whatever
 * was loaded before is replaced.
 *
 * Underlyings are written in batches of about FLUSH_ROWS daily rows, a few statements a batch (one
 * round trip per underlying and per snapshot kept Postgres waiting), and each batch is written while
 * the next is generated.
 */
export async function writeGeneratedDataset(
  pool: Pool,
  opts: DatasetOptions,
  mode: { ifEmpty: boolean; only?: readonly string[] },
): Promise<WriteResult> {
  return OptionsStore.transaction(pool, async (store, client) => {
    await client.query(LOAD_LOCK_SQL);
    const result: WriteResult = { written: false, underlyings: 0, snapshots: 0, dailyRows: 0 };
    if (mode.ifEmpty && !(await store.isEmpty())) return result;
    await store.clear();
    let writing: Promise<void> = Promise.resolve();
    let batch: UnderlyingBundle[] = [];
    let batchRows = 0;
    const flush = async () => {
      // One batch in flight at a time; a failed write fails the load at the next flush.
      await writing;
      const bundles = batch;
      batch = [];
      batchRows = 0;
      writing = writeBatch(store, bundles);
      writing.catch(() => {});
    };
    for (const bundle of generateDataset(opts, mode.only)) {
      batch.push(bundle);
      batchRows += bundle.rows.length;
      result.underlyings++;
      result.snapshots += bundle.snapshot ? 1 : 0;
      result.dailyRows += bundle.rows.length;
      if (batchRows >= FLUSH_ROWS) await flush();
      // Lets the connection send the next statement and read replies between underlyings.
      else await nextTurn();
    }
    await flush();
    await writing;
    await store.recordLoad('generated', { ...opts, ...result });
    result.written = true;
    return result;
  });
}

async function writeBatch(store: OptionsStore, bundles: readonly UnderlyingBundle[]): Promise<void> {
  if (bundles.length === 0) return;
  await store.upsertUnderlyings(bundles.map((b) => b.underlying));
  const lotSizes = bundles.flatMap((b) => b.lotSizes);
  if (lotSizes.length > 0) await store.replaceLotSizes(lotSizes);
  await store.saveSnapshots(
    bundles.flatMap((b) => (b.snapshot ? [b.snapshot] : [])),
    'generated',
  );
  await store.saveDailyRows(bundles.flatMap((b) => b.rows));
}
