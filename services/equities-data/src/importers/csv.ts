import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { type DayNumber, parseExchangeDate } from '@mdp/nse-calendar';
import { CsvError, parse } from 'csv-parse/sync';
import { ImportFileError } from './report.ts';

export interface SourceFile {
  /** As given on the command line. */
  path: string;
  name: string;
  text: string;
}

export function readSource(path: string): SourceFile {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (err) {
    throw new ImportFileError(path, 0, `cannot read the file: ${(err as Error).message}`);
  }
  return sourceFromBytes(path, bytes);
}

/** A file's bytes as text; `path` is how messages name it (a zip member is `archive.zip/inner.csv`). */
export function sourceFromBytes(path: string, bytes: Uint8Array): SourceFile {
  let text = Buffer.from(bytes).toString('latin1');
  // Exchange files are ASCII or Windows-1252; UTF-8 files read as latin1 are re-decoded.
  if (/[\u00c2-\u00f4][\u0080-\u00bf]/.test(text)) text = Buffer.from(bytes).toString('utf8');
  return { path, name: basename(path), text: text.replace(/^\uFEFF/, '') };
}

/** A data row with cells addressed by normalised header name. */
export class CsvRow {
  constructor(
    readonly file: string,
    readonly line: number,
    readonly cells: string[],
    private readonly columns: Map<string, number>,
  ) {}

  has(column: string): boolean {
    const i = this.columns.get(column);
    return i !== undefined && (this.cells[i] ?? '').trim() !== '';
  }

  text(column: string): string {
    const i = this.columns.get(column);
    return i === undefined ? '' : (this.cells[i] ?? '').trim();
  }

  fail(detail: string): never {
    throw new ImportFileError(this.file, this.line, detail);
  }

  /** A number; the file is malformed when the cell is not one (or is empty, unless `optional`). */
  number(column: string, optional = false): number {
    const raw = this.text(column);
    if (raw === '' || raw === '-') {
      if (optional) return Number.NaN;
      this.fail(`${column} is empty`);
    }
    const n = Number(raw.replace(/,/g, ''));
    if (!Number.isFinite(n)) this.fail(`${column} "${raw}" is not a number`);
    return n;
  }

  /** A date, or undefined when the cell is empty (a listing date some rows leave out). */
  optionalDate(column: string): DayNumber | undefined {
    return this.text(column) === '' ? undefined : this.date(column);
  }

  date(column: string): DayNumber {
    const raw = this.text(column);
    const d = parseExchangeDate(raw);
    if (d === undefined) this.fail(`${column} "${raw}" is not a date`);
    return d;
  }
}

export const normalizeHeader = (h: string) =>
  h
    .replace(/^\uFEFF/, '')
    .trim()
    .toUpperCase()
    .replace(/[_\s]+/g, ' ');

function parseRecords(file: SourceFile, fromLine = 1): { record: string[]; line: number }[] {
  try {
    const out = parse(file.text, {
      info: true,
      relax_column_count: true,
      skip_empty_lines: true,
      from_line: fromLine,
    }) as unknown as { record: string[]; info: { lines: number } }[];
    return out.map((r) => ({ record: r.record, line: r.info.lines }));
  } catch (err) {
    if (err instanceof CsvError) {
      const line = (err as unknown as { lines?: number }).lines ?? 0;
      throw new ImportFileError(file.path, line, `not valid CSV: ${err.message}`);
    }
    throw err;
  }
}

/**
 * A CSV file with a header row. Every `required` column must be present (the file is malformed
 * otherwise, named with its line), and a row with more cells than the header is malformed too;
 * rows with fewer are read with the missing cells empty. Blank rows are skipped.
 */
export function readCsv(file: SourceFile, required: readonly string[]): { header: string[]; rows: CsvRow[] } {
  const records = parseRecords(file);
  const head = records[0];
  if (!head) throw new ImportFileError(file.path, 1, 'the file is empty');
  const header = head.record.map(normalizeHeader);
  const columns = new Map<string, number>();
  header.forEach((h, i) => {
    if (h && !columns.has(h)) columns.set(h, i);
  });
  const missing = required.filter((c) => !columns.has(c));
  if (missing.length > 0)
    throw new ImportFileError(file.path, head.line, `missing column(s) ${missing.join(', ')} in the header`);
  const width = header.length;
  const rows: CsvRow[] = [];
  for (const { record, line } of records.slice(1)) {
    if (record.every((c) => c.trim() === '')) continue;
    // A trailing empty cell beyond the header is tolerated (NSE lists end rows with a comma).
    const cells =
      record.length > width && record.slice(width).every((c) => c.trim() === '')
        ? record.slice(0, width)
        : record;
    if (cells.length > width)
      throw new ImportFileError(
        file.path,
        line,
        `${cells.length} cells in a row under a ${width}-column header`,
      );
    rows.push(new CsvRow(file.path, line, cells, columns));
  }
  return { header, rows };
}

/** A CSV file without a header: columns are given names in order, and every row must have them all. */
export function readHeaderless(file: SourceFile, names: readonly string[]): CsvRow[] {
  const columns = new Map(names.map((n, i) => [n, i]));
  const rows: CsvRow[] = [];
  for (const { record, line } of parseRecords(file)) {
    if (record.every((c) => c.trim() === '')) continue;
    if (record.length !== names.length)
      throw new ImportFileError(file.path, line, `${record.length} cells where ${names.length} are expected`);
    rows.push(new CsvRow(file.path, line, record, columns));
  }
  return rows;
}

const ENTITIES: Record<string, string> = { amp: '&', quot: '"', apos: "'", lt: '<', gt: '>', nbsp: ' ' };

/** Names from BSE files carry HTML entities (`&amp;`) and padding. */
export function cleanText(s: string): string {
  return s
    .replace(/&(#\d+|[a-z]+);/gi, (m, e: string) =>
      e.startsWith('#') ? String.fromCharCode(Number(e.slice(1))) : (ENTITIES[e.toLowerCase()] ?? m),
    )
    .replace(/\s+/g, ' ')
    .trim();
}
