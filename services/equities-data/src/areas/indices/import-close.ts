import { type DayNumber, parseDay } from '@mdp/nse-calendar';
import type pg from 'pg';
import { type CsvRow, readCsv, type SourceFile } from '../../importers/csv.ts';
import { type Applied, defineKind, ParseResult } from '../../importers/kind.ts';
import type { Sourced } from '../../importers/report.ts';
import { isEquityIndex } from './families.ts';
import { upsertIndexDays, upsertIndices } from './import-store.ts';

export interface IndexCloseRow {
  name: string;
  d: DayNumber;
  open: number | null;
  high: number | null;
  low: number | null;
  close: number;
  pe: number | null;
  pb: number | null;
  divYield: number | null;
}

const COLUMNS = [
  'INDEX NAME',
  'INDEX DATE',
  'OPEN INDEX VALUE',
  'HIGH INDEX VALUE',
  'LOW INDEX VALUE',
  'CLOSING INDEX VALUE',
  'P/E',
  'P/B',
  'DIV YIELD',
];

/** Index dates are DD-MM-YYYY in this file. */
function indexDate(r: CsvRow): DayNumber {
  const raw = r.text('INDEX DATE');
  const m = /^(\d{2})-(\d{2})-(\d{4})$/.exec(raw);
  const d = m ? parseDay(`${m[3]}-${m[2]}-${m[1]}`) : undefined;
  if (d === undefined) r.fail(`INDEX DATE "${raw}" is not a DD-MM-YYYY date`);
  return d;
}

const optional = (r: CsvRow, column: string) => {
  const v = r.number(column, true);
  return Number.isNaN(v) ? null : v;
};

function levelsConsistent(r: Pick<IndexCloseRow, 'open' | 'high' | 'low' | 'close'>): boolean {
  const { open, high, low, close } = r;
  if (!(close > 0) || [open, high, low].some((v) => v !== null && !(v > 0))) return false;
  if (high !== null && (high < close || (open !== null && high < open))) return false;
  return !(low !== null && (low > close || (open !== null && low > open)));
}

/**
 * NSE's daily index file ind_close_all_DDMMYYYY.csv: one row per index with open, high, low and close,
 * P/E, P/B and dividend yield (`-` where NSE publishes none). Bond, money-market and volatility rows
 * are rejected as not equity indices. Indices new to the database are created, with a family read
 * from their name; a re-import of the same day replaces its values.
 */
export const indexClose = defineKind<IndexCloseRow>({
  describe: 'NSE daily index closing file ind_close_all_DDMMYYYY.csv (levels, P/E, P/B, dividend yield)',
  needsFiles: true,
  parse(file: SourceFile) {
    const out = new ParseResult<IndexCloseRow>(file.path);
    for (const r of readCsv(file, COLUMNS).rows) {
      const name = r.text('INDEX NAME').replace(/\s+/g, ' ');
      if (!isEquityIndex(name)) {
        out.reject(r.line, 'not an equity index (bond, rate or volatility)');
        continue;
      }
      if (name.length > 64) {
        out.reject(r.line, 'index name longer than 64 characters');
        continue;
      }
      const row: IndexCloseRow = {
        name,
        d: indexDate(r),
        open: optional(r, 'OPEN INDEX VALUE'),
        high: optional(r, 'HIGH INDEX VALUE'),
        low: optional(r, 'LOW INDEX VALUE'),
        close: r.number('CLOSING INDEX VALUE'),
        pe: optional(r, 'P/E'),
        pb: optional(r, 'P/B'),
        divYield: optional(r, 'DIV YIELD'),
      };
      if (!levelsConsistent(row))
        out.reject(r.line, 'levels not consistent (high/low do not bound open and close)');
      else out.ok(r.line, row);
    }
    return out;
  },
  async apply(client: pg.PoolClient, rows: Sourced<IndexCloseRow>[]): Promise<Applied<IndexCloseRow>> {
    const ids = await upsertIndices(
      client,
      rows.map((r) => r.value.name),
    );
    const changed = await upsertIndexDays(
      client,
      rows.map((r) => ({ ...r.value, indexId: ids.get(r.value.name)! })),
      'all',
    );
    return { loaded: rows, rejections: [], changed };
  },
});
