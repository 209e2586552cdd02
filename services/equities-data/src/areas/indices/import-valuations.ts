import type { DayNumber } from '@mdp/nse-calendar';
import type pg from 'pg';
import { readCsv, type SourceFile } from '../../importers/csv.ts';
import { type Applied, defineKind, ParseResult } from '../../importers/kind.ts';
import type { Sourced } from '../../importers/report.ts';
import { upsertIndexDays, upsertIndices } from './import-store.ts';

export interface ValuationRow {
  name: string;
  d: DayNumber;
  pe: number | null;
  pb: number | null;
  divYield: number | null;
}

const positive = (v: number) => (Number.isFinite(v) && v > 0 ? v : null);

/**
 * niftyindices.com's P/E, P/B and dividend-yield history (columns Date, Index Name, PE, PB, DivYield;
 * dates like "01 Jul 2026"). Fills only the ratios of each day, keeping any levels already stored.
 */
export const indexValuations = defineKind<ValuationRow>({
  describe: 'Index P/E, P/B and dividend-yield history (Date, Index Name, PE, PB, DivYield)',
  needsFiles: true,
  parse(file: SourceFile) {
    const out = new ParseResult<ValuationRow>(file.path);
    for (const r of readCsv(file, ['DATE', 'INDEX NAME', 'PE', 'PB', 'DIVYIELD']).rows) {
      const row = {
        name: r.text('INDEX NAME').replace(/\s+/g, ' '),
        d: r.date('DATE'),
        pe: positive(r.number('PE', true)),
        pb: positive(r.number('PB', true)),
        divYield: positive(r.number('DIVYIELD', true)),
      };
      if (row.name === '') out.reject(r.line, 'no index name');
      else if (row.name.length > 64) out.reject(r.line, 'index name longer than 64 characters');
      else if (row.pe === null && row.pb === null && row.divYield === null) out.reject(r.line, 'no ratio');
      else out.ok(r.line, row);
    }
    return out;
  },
  async apply(client: pg.PoolClient, rows: Sourced<ValuationRow>[]): Promise<Applied<ValuationRow>> {
    const ids = await upsertIndices(
      client,
      rows.map((r) => r.value.name),
    );
    const changed = await upsertIndexDays(
      client,
      rows.map((r) => ({
        ...r.value,
        open: null,
        high: null,
        low: null,
        close: null,
        indexId: ids.get(r.value.name)!,
      })),
      'ratios',
    );
    return { loaded: rows, rejections: [], changed };
  },
});
