import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Pool } from 'pg';
import { dailyRowFromSnapshot } from '../domain/daily-row.ts';
import { OptionsStore } from '../store/options-store.ts';
import { parseUdiff } from './udiff.ts';

export interface FoImportSummary {
  file: string;
  tradeDates: string[];
  underlyings: number;
  options: number;
}

/** The files named, with each directory replaced by the .csv files directly in it (sorted). */
export async function expandPaths(paths: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const p of paths) {
    if ((await stat(p)).isDirectory()) {
      const names = (await readdir(p)).filter((n) => n.toLowerCase().endsWith('.csv')).sort();
      out.push(...names.map((n) => join(p, n)));
    } else out.push(p);
  }
  return out;
}

/**
 * Imports one UDiFF F&O bhavcopy: every underlying's snapshot for the day (replacing an earlier import
 * of the same day), its daily analytics row, and the underlying itself, in one transaction.
 */
export async function importFoFile(
  pool: Pool,
  file: string,
  opts: { r: number; symbols?: ReadonlySet<string> },
): Promise<FoImportSummary> {
  const snapshots = parseUdiff(await readFile(file, 'utf8'), opts.symbols);
  const rows = snapshots.map((s) => dailyRowFromSnapshot(s, opts.r, 'nse_udiff'));
  await OptionsStore.transaction(pool, async (store) => {
    await store.upsertUnderlyings(
      [...new Map(snapshots.map((s) => [s.underlying, s])).values()].map((s) => ({
        symbol: s.underlying,
        name: null,
        kind: s.kind,
        derivativesUntil: null,
        source: 'nse_udiff',
      })),
    );
    await store.saveSnapshots(snapshots, 'nse_udiff');
    await store.saveDailyRows(rows);
    await store.recordLoad('nse_udiff', {
      file,
      tradeDates: [...new Set(snapshots.map((s) => s.tradeDate))],
      underlyings: snapshots.length,
    });
  });
  return {
    file,
    tradeDates: [...new Set(snapshots.map((s) => s.tradeDate))].sort(),
    underlyings: new Set(snapshots.map((s) => s.underlying)).size,
    options: snapshots.reduce((n, s) => n + s.options.length, 0),
  };
}
