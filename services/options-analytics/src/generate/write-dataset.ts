import type { Pool } from 'pg';
import type { DailyRow } from '../domain/daily-row.ts';
import { OptionsStore } from '../store/options-store.ts';
import { type DatasetOptions, generateDataset } from './dataset.ts';

/** Serialises every loader of this database, so two `load-default --if-empty` never both load. */
const LOAD_LOCK = 0x0b7a_1d11;
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
 */
export async function writeGeneratedDataset(
  pool: Pool,
  opts: DatasetOptions,
  mode: { ifEmpty: boolean; only?: readonly string[] },
): Promise<WriteResult> {
  return OptionsStore.transaction(pool, async (store, client) => {
    await client.query('SELECT pg_advisory_xact_lock($1)', [LOAD_LOCK]);
    const result: WriteResult = { written: false, underlyings: 0, snapshots: 0, dailyRows: 0 };
    if (mode.ifEmpty && !(await store.isEmpty())) return result;
    await store.clear();
    let pending: DailyRow[] = [];
    for (const bundle of generateDataset(opts, mode.only)) {
      await store.upsertUnderlyings([bundle.underlying]);
      if (bundle.lotSizes.length > 0) await store.replaceLotSizes(bundle.lotSizes);
      if (bundle.snapshot) await store.saveSnapshots([bundle.snapshot], 'generated');
      pending = pending.concat(bundle.rows);
      if (pending.length >= FLUSH_ROWS) {
        await store.saveDailyRows(pending);
        pending = [];
      }
      result.underlyings++;
      result.snapshots += bundle.snapshot ? 1 : 0;
      result.dailyRows += bundle.rows.length;
    }
    await store.saveDailyRows(pending);
    await store.recordLoad('generated', { ...opts, ...result });
    result.written = true;
    return result;
  });
}
