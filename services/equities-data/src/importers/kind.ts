import type pg from 'pg';
import type { SourceFile } from './csv.ts';
import type { Rejection, Sourced } from './report.ts';

/** What parsing one file gave: loadable rows, rows rejected already, and how many rows were read. */
interface Parsed<R> {
  rows: Sourced<R>[];
  rejections: Rejection[];
  read: number;
}

export interface Applied<R> {
  loaded: Sourced<R>[];
  rejections: Rejection[];
  /** Database rows inserted or changed. */
  changed: number;
}

/**
 * One kind of exchange file. `parse` is pure and throws ImportFileError for a malformed file;
 * `apply` runs inside the import's transaction and may reject more rows (unknown symbols, conflicts).
 */
export interface ImportKind<R = unknown> {
  describe: string;
  needsFiles: boolean;
  parse(file: SourceFile): Parsed<R>;
  apply(client: pg.PoolClient, rows: Sourced<R>[]): Promise<Applied<R>>;
}

export function defineKind<R>(kind: ImportKind<R>): ImportKind<unknown> {
  return kind as unknown as ImportKind<unknown>;
}

/** Helpers for building Parsed results row by row. */
export class ParseResult<R> implements Parsed<R> {
  rows: Sourced<R>[] = [];
  rejections: Rejection[] = [];
  read = 0;
  constructor(readonly file: string) {}
  ok(line: number, value: R): void {
    this.read++;
    this.rows.push({ file: this.file, line, value });
  }
  reject(line: number, reason: string): void {
    this.read++;
    this.rejections.push({ file: this.file, line, reason });
  }
}

export function rejectionOf(row: Sourced<unknown>, reason: string): Rejection {
  return { file: row.file, line: row.line, reason };
}
