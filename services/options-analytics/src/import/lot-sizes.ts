import type { UnderlyingKind } from '../domain/snapshot.ts';
import { FileFormatError } from './format-error.ts';

/**
 * NSE's market-lot file (`fo_mktlots.csv`): fixed-width-padded CSV, one row per underlying with its lot
 * size for each listed expiry month. The index rows come first; a sub-header row
 * ("Derivatives on Individual Securities,Symbol,…") separates them from the stocks. Blank cells are
 * months without contracts.
 */
export interface LotSizeRow {
  symbol: string;
  name: string;
  kind: UnderlyingKind;
  /** Lot size by expiry month, YYYY-MM → units per contract, in the file's month order. */
  lots: { month: string; lotSize: number }[];
}

export class LotFileFormatError extends FileFormatError {}

const MONTHS: Record<string, string> = {
  JAN: '01',
  FEB: '02',
  MAR: '03',
  APR: '04',
  MAY: '05',
  JUN: '06',
  JUL: '07',
  AUG: '08',
  SEP: '09',
  OCT: '10',
  NOV: '11',
  DEC: '12',
};

/** `AUG-26` → `2026-08`. */
function month(label: string, line: number): string {
  const m = /^([A-Z]{3})-(\d{2})$/.exec(label.trim().toUpperCase());
  const mm = m ? MONTHS[m[1]!] : undefined;
  if (!m || !mm) throw new LotFileFormatError(line, `not a month column "${label.trim()}"`);
  return `20${m[2]}-${mm}`;
}

export function parseLotSizes(text: string): LotSizeRow[] {
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== '');
  const header = (lines[0] ?? '').replace(/^\uFEFF/, '').split(',');
  if (
    (header[0] ?? '').trim().toUpperCase() !== 'UNDERLYING' ||
    (header[1] ?? '').trim().toUpperCase() !== 'SYMBOL'
  )
    throw new LotFileFormatError(1, 'not an NSE market-lot file: the header must start UNDERLYING,SYMBOL');
  const months = header.slice(2).map((h) => (h.trim() === '' ? null : month(h, 1)));
  const rows: LotSizeRow[] = [];
  let kind: UnderlyingKind = 'index';
  for (let n = 1; n < lines.length; n++) {
    const cells = lines[n]!.split(',').map((c) => c.trim());
    if ((cells[1] ?? '').toUpperCase() === 'SYMBOL') {
      kind = 'stock';
      continue;
    }
    const symbol = cells[1] ?? '';
    if (symbol === '') continue;
    const lots: { month: string; lotSize: number }[] = [];
    cells.slice(2).forEach((cell, i) => {
      const m = months[i];
      if (cell === '' || !m) return;
      const lotSize = Number(cell);
      if (!Number.isInteger(lotSize) || lotSize <= 0)
        throw new LotFileFormatError(
          n + 1,
          `lot size for ${symbol} ${m} is not a positive whole number: "${cell}"`,
        );
      lots.push({ month: m, lotSize });
    });
    rows.push({ symbol, name: cells[0] ?? symbol, kind, lots });
  }
  return rows;
}
