import { readFile } from 'node:fs/promises';
import type { Pool } from 'pg';
import { OptionsStore } from '../store/options-store.ts';
import { FileFormatError } from './format-error.ts';
import { loadedBefore, located, sha256, type TextFile } from './import-fo.ts';
import { parseLotSizes } from './lot-sizes.ts';

export interface LotImportSummary {
  indices: number;
  stocks: number;
  /** The file's exact content was imported before (only with `skipLoaded`). */
  unchanged: boolean;
}

/**
 * Imports NSE's market-lot file: the underlyings with derivatives, their names and lot sizes. A
 * malformed file throws OptionsFileError naming file and line, and nothing is written.
 */
export async function importLotText(
  pool: Pool,
  file: TextFile,
  opts: { skipLoaded?: boolean } = {},
): Promise<LotImportSummary> {
  const sha = sha256(file.text);
  if (opts.skipLoaded && (await loadedBefore(pool, 'nse_mktlots', [sha])).size > 0)
    return { indices: 0, stocks: 0, unchanged: true };
  let rows: ReturnType<typeof parseLotSizes>;
  try {
    rows = parseLotSizes(file.text);
  } catch (err) {
    if (err instanceof FileFormatError) throw located(file.path, err);
    throw err;
  }
  await OptionsStore.transaction(pool, async (store) => {
    await store.upsertUnderlyings(
      rows.map((r) => ({
        symbol: r.symbol,
        name: r.name,
        kind: r.kind,
        derivativesUntil: null,
        source: 'nse_mktlots',
      })),
    );
    await store.replaceLotSizes(rows.flatMap((r) => r.lots.map((l) => ({ symbol: r.symbol, ...l }))));
    await store.recordLoad('nse_mktlots', {
      file: file.path,
      sha256: sha,
      underlyings: rows.length,
    });
  });
  return {
    indices: rows.filter((r) => r.kind === 'index').length,
    stocks: rows.filter((r) => r.kind === 'stock').length,
    unchanged: false,
  };
}

/** Imports the market-lot file at `file`. */
export async function importLotFile(pool: Pool, file: string): Promise<{ indices: number; stocks: number }> {
  const { unchanged: _, ...counts } = await importLotText(pool, {
    path: file,
    text: await readFile(file, 'utf8'),
  });
  return counts;
}
