import { readFile } from 'node:fs/promises';
import type { Pool } from 'pg';
import { OptionsStore } from '../store/options-store.ts';
import { parseLotSizes } from './lot-sizes.ts';

/** Imports NSE's market-lot file: the underlyings with derivatives, their names and lot sizes. */
export async function importLotFile(pool: Pool, file: string): Promise<{ indices: number; stocks: number }> {
  const rows = parseLotSizes(await readFile(file, 'utf8'));
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
    await store.recordLoad('nse_mktlots', { file, underlyings: rows.length });
  });
  return {
    indices: rows.filter((r) => r.kind === 'index').length,
    stocks: rows.filter((r) => r.kind === 'stock').length,
  };
}
