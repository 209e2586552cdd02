import { readdirSync } from 'node:fs';
import type { GeneratedIndex } from '@mdp/market';
import { type IndexDay, type IndexSeries, IndicesData, nameKey } from '../../src/areas/indices/data.ts';
import { familyOf } from '../../src/areas/indices/families.ts';
import { indexClose } from '../../src/areas/indices/import-close.ts';
import { indexValuations } from '../../src/areas/indices/import-valuations.ts';
import { readSource } from '../../src/importers/csv.ts';
import { REALDATA } from '../support.ts';

export const CLOSE_DIR = `${REALDATA}nse_ind_close_all_2025/`;
export const CLOSE_FILES = readdirSync(CLOSE_DIR)
  .filter((f) => f.startsWith('ind_close_all_'))
  .map((f) => CLOSE_DIR + f);
export const NIFTY_PE_FILE = `${REALDATA}nifty50_pe_pb_divyield_1999-2026.csv`;

export function fromGenerated(indices: readonly GeneratedIndex[]): IndicesData {
  return new IndicesData(
    indices.map((x, i) => ({
      id: i + 1,
      name: x.name,
      family: x.family,
      constituents: x.constituents.length,
      days: x.bars.map((b) => ({ ...b })),
    })),
  );
}

/**
 * What the database would hold after importing the real files: both importers' parsed rows merged by
 * index and day the way the store merges them (levels from the close file, ratios from either).
 */
export function fromRealFiles(files = CLOSE_FILES, valuationFiles = [NIFTY_PE_FILE]): IndicesData {
  const series = new Map<string, IndexSeries>();
  const dayOf = (name: string, d: number): IndexDay => {
    const key = nameKey(name);
    let s = series.get(key);
    if (!s) {
      s = { id: series.size + 1, name, family: familyOf(name), constituents: 0, days: [] };
      series.set(key, s);
    }
    let b = s.days.find((x) => x.d === d);
    if (!b) {
      b = { d, open: null, high: null, low: null, close: null, pe: null, pb: null, divYield: null };
      s.days.push(b);
    }
    return b;
  };
  for (const f of files)
    for (const { value } of indexClose.parse(readSource(f)).rows as {
      value: IndexDay & { name: string };
    }[]) {
      const { name, ...levels } = value;
      Object.assign(dayOf(name, levels.d), levels);
    }
  for (const f of valuationFiles)
    for (const { value: r } of indexValuations.parse(readSource(f)).rows as {
      value: { name: string; d: number; pe: number | null; pb: number | null; divYield: number | null };
    }[])
      Object.assign(dayOf(r.name, r.d), { pe: r.pe, pb: r.pb, divYield: r.divYield });
  for (const s of series.values()) s.days.sort((a, b) => a.d - b.d);
  return new IndicesData([...series.values()]);
}
