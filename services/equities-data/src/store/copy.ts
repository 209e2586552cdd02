import { once } from 'node:events';
import { type DayNumber, formatDay } from '@mdp/nse-calendar';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';

/** One value in COPY's text format: \N for null, backslash escapes for the separators. */
export function copyValue(v: string | number | boolean | null | undefined): string {
  if (v === null || v === undefined) return '\\N';
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return v.replace(/[\\\t\n\r]/g, (c) =>
    c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r',
  );
}

export const copyDay = (d: DayNumber | null): string => (d === null ? '\\N' : formatDay(d));

/** A table's column list and the COPY encoder of its rows. */
export interface TableSpec<R> {
  table: string;
  columns: readonly string[];
  encode: (row: R) => string[];
}

/**
 * Streams rows into `table (columns)` with COPY FROM STDIN, buffering lines into ~256 KB chunks and
 * honouring back-pressure. `produce` calls `write` once per row with its already-encoded values and
 * awaits `drained` now and then (say once per stock) when it produces a lot.
 */
export async function copyRows(
  client: pg.PoolClient | pg.Client,
  table: string,
  columns: readonly string[],
  produce: (write: (values: string[]) => void, drained: () => Promise<void>) => void | Promise<void>,
): Promise<number> {
  const stream = client.query(copyFrom(`COPY ${table} (${columns.join(', ')}) FROM STDIN`));
  const done = new Promise<void>((resolve, reject) => {
    stream.on('finish', resolve);
    stream.on('error', reject);
  });
  let buffer: string[] = [];
  let size = 0;
  let rows = 0;
  let pending: Promise<unknown> | undefined;
  const flush = () => {
    if (buffer.length === 0) return;
    const ok = stream.write(buffer.join(''));
    buffer = [];
    size = 0;
    if (!ok && !pending) pending = once(stream, 'drain');
  };
  const write = (values: string[]) => {
    const line = `${values.join('\t')}\n`;
    buffer.push(line);
    size += line.length;
    rows++;
    if (size >= 262_144) flush();
  };
  // Lets a long producer wait for Postgres to catch up instead of buffering everything in memory.
  const drained = async () => {
    flush();
    if (pending) {
      await pending;
      pending = undefined;
    }
  };
  await produce(write, drained);
  flush();
  if (pending) await pending;
  stream.end();
  await done;
  return rows;
}

/** Copies `rows` into the table `spec` describes; resolves to how many. */
export function copyTable<R>(
  client: pg.PoolClient | pg.Client,
  spec: TableSpec<R>,
  rows: readonly R[],
): Promise<number> {
  return copyRows(client, spec.table, spec.columns, (write) => {
    for (const r of rows) write(spec.encode(r));
  });
}
