import { once } from 'node:events';
import type { BarRow } from '@mdp/market';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { barsTable } from './tables.ts';

/**
 * Daily bars in COPY's binary format: the default dataset's ten million bars are numbers only, and
 * writing them as bytes saves both sides the text (no number formatting here, no parsing in Postgres),
 * which was about a third of the equities load. The columns are barsTable's; the text encoder stays
 * for the importers, whose rows come from files.
 */

const HEADER = Buffer.concat([Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1'), Buffer.alloc(8)]);
const CHUNK = 256 * 1024;
/** Field count, then per field its length and value: six int4, two int8 (or a null's length alone). */
const MAX_ROW = 2 + 6 * 8 + 2 * 12;
/** Days from 1970-01-01 (a DayNumber) to 2000-01-01, the epoch of Postgres' binary dates. */
const PG_EPOCH_DAY = 10_957;
const TWO_32 = 2 ** 32;

function int4(view: DataView, at: number, value: number): number {
  if (!Number.isInteger(value) || value < -(2 ** 31) || value >= 2 ** 31)
    throw new RangeError(`daily bar value ${value} is not a 32-bit integer`);
  view.setInt32(at, 4);
  view.setInt32(at + 4, value);
  return at + 8;
}

function int8OrNull(view: DataView, at: number, value: number | null): number {
  if (value === null) {
    view.setInt32(at, -1);
    return at + 4;
  }
  if (!Number.isSafeInteger(value) || value < 0)
    throw new RangeError(`daily bar quantity ${value} is not a whole number`);
  view.setInt32(at, 8);
  view.setUint32(at + 4, Math.floor(value / TWO_32));
  view.setUint32(at + 8, value % TWO_32);
  return at + 12;
}

/**
 * Streams bars into daily_bars with COPY … (FORMAT binary), honouring back-pressure: `produce` calls
 * `write` once per bar and awaits `drained` now and then when it produces a lot. Resolves to the rows.
 */
export async function copyBars(
  client: pg.PoolClient | pg.Client,
  produce: (write: (bar: BarRow) => void, drained: () => Promise<void>) => void | Promise<void>,
): Promise<number> {
  const stream = client.query(
    copyFrom(`COPY ${barsTable.table} (${barsTable.columns.join(', ')}) FROM STDIN (FORMAT binary)`),
  );
  const done = new Promise<void>((resolve, reject) => {
    stream.on('finish', resolve);
    stream.on('error', reject);
  });
  let chunk = Buffer.allocUnsafe(CHUNK);
  let view = new DataView(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  HEADER.copy(chunk);
  let at = HEADER.length;
  let rows = 0;
  let pending: Promise<unknown> | undefined;
  const flush = () => {
    if (at === 0) return;
    const ok = stream.write(chunk.subarray(0, at));
    chunk = Buffer.allocUnsafe(CHUNK);
    view = new DataView(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    at = 0;
    if (!ok && !pending) pending = once(stream, 'drain');
  };
  const write = (b: BarRow) => {
    if (at + MAX_ROW > CHUNK) flush();
    view.setInt16(at, 8);
    at = int4(view, at + 2, b.stockId);
    at = int4(view, at, b.d - PG_EPOCH_DAY);
    at = int4(view, at, b.open);
    at = int4(view, at, b.high);
    at = int4(view, at, b.low);
    at = int4(view, at, b.close);
    at = int8OrNull(view, at, b.volume);
    at = int8OrNull(view, at, b.deliveryQty);
    rows++;
  };
  const drained = async () => {
    flush();
    if (pending) {
      await pending;
      pending = undefined;
    }
  };
  try {
    await produce(write, drained);
  } catch (err) {
    // Aborts the COPY (CopyFail): nothing of it is stored and the connection stays usable.
    stream.destroy(err as Error);
    await done.catch(() => {});
    throw err;
  }
  if (at + 2 > CHUNK) flush();
  view.setInt16(at, -1);
  at += 2;
  flush();
  if (pending) await pending;
  stream.end();
  await done;
  return rows;
}
