import { type BarRow, isConsistentBar } from '@mdp/market';
import { type DayNumber, formatDay, parseExchangeDate } from '@mdp/nse-calendar';
import type pg from 'pg';
import {
  type CsvRow,
  normalizeHeader,
  readCsv,
  readHeaderless,
  type SourceFile,
} from '../../../importers/csv.ts';
import { type Applied, defineKind, ParseResult, rejectionOf } from '../../../importers/kind.ts';
import { ImportFileError, type Sourced } from '../../../importers/report.ts';
import { resolveRows } from '../../../importers/symbol-resolver.ts';
import { copyRows } from '../../../store/copy.ts';
import { barsTable } from '../tables.ts';
import { cleanIsin } from './stock-book.ts';

/**
 * Importers of daily prices and delivery: NSE cash-market bhavcopies (legacy and UDiFF), security-wise
 * delivery (sec_bhavdata_full and MTO), and per-symbol daily histories.
 */

/** Series of the cash market whose rows are stock, fund or trust prices (not debt, not rights). */
const STOCK_SERIES = new Set([
  'EQ',
  'BE',
  'BZ',
  'BT',
  'SM',
  'ST',
  'SZ',
  'SO',
  'RR',
  'IV',
  'MF',
  'DR',
  'IL',
  'E1',
]);
/** When two series of one symbol trade on a day, the first of these is the price kept. */
const SERIES_PREFERENCE = ['EQ', 'BE', 'BZ', 'SM', 'ST', 'SZ', 'RR', 'IV', 'MF'];

interface RawBar {
  symbol: string;
  isin: string | null;
  series: string;
  d: DayNumber;
  /** Prices in paise; undefined for delivery-only rows (MTO). */
  open?: number;
  high?: number;
  low?: number;
  close?: number;
  volume?: number;
  deliveryQty: number | null;
}

const paise = (rupees: number) => Math.round(rupees * 100);

function priceRow(
  r: CsvRow,
  cols: {
    symbol: string;
    series?: string;
    isin?: string;
    date: string;
    o: string;
    h: string;
    l: string;
    c: string;
    v: string;
    dq?: string;
  },
): RawBar {
  return {
    symbol: r.text(cols.symbol).toUpperCase(),
    isin: cols.isin ? cleanIsin(r.text(cols.isin)) : null,
    series: cols.series ? r.text(cols.series).toUpperCase() : 'EQ',
    d: r.date(cols.date),
    open: paise(r.number(cols.o)),
    high: paise(r.number(cols.h)),
    low: paise(r.number(cols.l)),
    close: paise(r.number(cols.c)),
    volume: r.number(cols.v),
    deliveryQty: cols.dq && r.has(cols.dq) && r.text(cols.dq) !== '-' ? r.number(cols.dq) : null,
  };
}

/** Checks shared by every price row; returns a rejection reason or undefined. */
function priceProblem(b: RawBar): string | undefined {
  if (!STOCK_SERIES.has(b.series)) return 'not a stock series (debt, rights or other)';
  if (b.open === undefined) return undefined;
  if (!b.volume || b.volume <= 0) return 'no trades that day';
  if (!isConsistentBar({ open: b.open, high: b.high!, low: b.low!, close: b.close! }))
    return 'prices are inconsistent (low above open/close, high below, or not positive)';
  if (b.high! > 2_147_483_647) return 'price out of range';
  if (b.deliveryQty !== null && b.deliveryQty > b.volume) return 'delivered quantity exceeds traded quantity';
  return undefined;
}

function collect(
  file: SourceFile,
  rows: CsvRow[],
  map: (r: CsvRow) => RawBar | undefined,
): ParseResult<RawBar> {
  const out = new ParseResult<RawBar>(file.path);
  for (const r of rows) {
    const bar = map(r);
    if (!bar) continue;
    const problem = priceProblem(bar);
    if (problem) out.reject(r.line, problem);
    else out.ok(r.line, bar);
  }
  return out;
}

const unknownSymbol = () => 'symbol not in the stock master (import the securities lists first)';

/**
 * Resolves symbols, keeps one bar per stock and day (preferred series first), and upserts them. Bars
 * are written through a temporary table and one INSERT … ON CONFLICT that only touches rows whose
 * values differ, so a re-run changes nothing. Delivery figures already held are kept when a file
 * without them (a bhavcopy) is imported again.
 */
async function applyBars(client: pg.PoolClient, rows: Sourced<RawBar>[]): Promise<Applied<RawBar>> {
  const { resolved, rejections } = await resolveRows(client, rows, (b) => b.d, unknownSymbol);
  const chosen = new Map<string, { row: Sourced<RawBar>; stockId: number }>();
  for (const { row, stockId } of resolved) {
    const b = row.value;
    const key = `${stockId}:${b.d}`;
    const held = chosen.get(key);
    if (!held) {
      chosen.set(key, { row, stockId });
      continue;
    }
    const rank = (s: string) => (SERIES_PREFERENCE.indexOf(s) + 100) % 100;
    const [keep, drop] =
      rank(b.series) < rank(held.row.value.series) ? [{ row, stockId }, held] : [held, { row, stockId }];
    chosen.set(key, keep);
    rejections.push(
      rejectionOf(
        drop.row,
        `another row (series ${keep.row.value.series}) gives this stock's price that day`,
      ),
    );
  }
  const picked = [...chosen.values()];
  await client.query(`CREATE TEMP TABLE incoming_bars (LIKE daily_bars) ON COMMIT DROP`);
  await copyRows(client, 'incoming_bars', barsTable.columns, (write) => {
    for (const { row, stockId } of picked) {
      const b = row.value;
      const bar: BarRow = {
        stockId,
        d: b.d,
        open: b.open!,
        high: b.high!,
        low: b.low!,
        close: b.close!,
        volume: b.volume!,
        deliveryQty: b.deliveryQty,
      };
      write(barsTable.encode(bar));
    }
  });
  const { rowCount } = await client.query(
    `INSERT INTO daily_bars AS t SELECT * FROM incoming_bars
     ON CONFLICT (stock_id, d) DO UPDATE SET
       open = EXCLUDED.open, high = EXCLUDED.high, low = EXCLUDED.low, close = EXCLUDED.close,
       volume = EXCLUDED.volume, delivery_qty = COALESCE(EXCLUDED.delivery_qty, t.delivery_qty)
     WHERE (t.open, t.high, t.low, t.close, t.volume, t.delivery_qty)
       IS DISTINCT FROM (EXCLUDED.open, EXCLUDED.high, EXCLUDED.low, EXCLUDED.close, EXCLUDED.volume,
                         COALESCE(EXCLUDED.delivery_qty, t.delivery_qty))`,
  );
  return { loaded: picked.map((p) => p.row), rejections, changed: rowCount ?? 0 };
}

/**
 * NSE cash-market bhavcopy, either format: the legacy 13-column file (SYMBOL, SERIES, OPEN, …,
 * TIMESTAMP, TOTALTRADES, ISIN; also as written by R's `nser` with a leading row number) or the
 * current UDiFF BhavCopy_NSE_CM_* (TradDt, TckrSymb, SctySrs, OpnPric, …, TtlTradgVol).
 */
export const bhavcopy = defineKind<RawBar>({
  describe: 'NSE cash-market bhavcopy: legacy cmDDMONYYYYbhav.csv, or UDiFF BhavCopy_NSE_CM_*.csv',
  needsFiles: true,
  parse(file) {
    const first = normalizeHeader(file.text.slice(0, file.text.indexOf('\n')));
    if (first.includes('TCKRSYMB')) {
      const { rows } = readCsv(file, [
        'TRADDT',
        'SGMT',
        'TCKRSYMB',
        'SCTYSRS',
        'OPNPRIC',
        'HGHPRIC',
        'LWPRIC',
        'CLSPRIC',
        'TTLTRADGVOL',
      ]);
      return collect(file, rows, (r) =>
        r.text('SGMT') !== 'CM'
          ? undefined
          : priceRow(r, {
              symbol: 'TCKRSYMB',
              series: 'SCTYSRS',
              isin: 'ISIN',
              date: 'TRADDT',
              o: 'OPNPRIC',
              h: 'HGHPRIC',
              l: 'LWPRIC',
              c: 'CLSPRIC',
              v: 'TTLTRADGVOL',
            }),
      );
    }
    const { rows } = readCsv(file, [
      'SYMBOL',
      'SERIES',
      'OPEN',
      'HIGH',
      'LOW',
      'CLOSE',
      'TOTTRDQTY',
      'TIMESTAMP',
    ]);
    return collect(file, rows, (r) =>
      priceRow(r, {
        symbol: 'SYMBOL',
        series: 'SERIES',
        isin: 'ISIN',
        date: 'TIMESTAMP',
        o: 'OPEN',
        h: 'HIGH',
        l: 'LOW',
        c: 'CLOSE',
        v: 'TOTTRDQTY',
      }),
    );
  },
  apply: applyBars,
});

/** The trading day a delivery file is for, from its name (MTO_20181115.csv, MTO_15112018.DAT). */
export function dayFromFileName(file: SourceFile): DayNumber {
  for (const m of file.name.matchAll(/(\d{8}|\d{6})/g)) {
    const d = parseExchangeDate(m[1]!.length === 6 ? `${m[1]!.slice(0, 4)}20${m[1]!.slice(4)}` : m[1]!);
    if (d !== undefined) return d;
  }
  throw new ImportFileError(
    file.path,
    0,
    'cannot tell the trading day from the file name (expected DDMMYYYY or YYYYMMDD in it)',
  );
}

/**
 * Security-wise delivery: sec_bhavdata_full (full OHLC with DELIV_QTY; loaded as bars) or the MTO
 * file (delivered quantity only; sets delivery on bars already held, rejects days without a bar).
 */
export const delivery = defineKind<RawBar>({
  describe: 'NSE sec_bhavdata_full_DDMMYYYY.csv, or MTO_DDMMYYYY delivery files (day from the name)',
  needsFiles: true,
  parse(file) {
    const first = normalizeHeader(file.text.slice(0, file.text.indexOf('\n')));
    if (first.includes('DELIV QTY')) {
      const { rows } = readCsv(file, [
        'SYMBOL',
        'SERIES',
        'DATE1',
        'OPEN PRICE',
        'HIGH PRICE',
        'LOW PRICE',
        'CLOSE PRICE',
        'TTL TRD QNTY',
        'DELIV QTY',
      ]);
      return collect(file, rows, (r) =>
        priceRow(r, {
          symbol: 'SYMBOL',
          series: 'SERIES',
          date: 'DATE1',
          o: 'OPEN PRICE',
          h: 'HIGH PRICE',
          l: 'LOW PRICE',
          c: 'CLOSE PRICE',
          v: 'TTL TRD QNTY',
          dq: 'DELIV QTY',
        }),
      );
    }
    const d = dayFromFileName(file);
    const { rows } = readCsv(file, [
      'RECORD TYPE',
      'NAME OF SECURITY',
      'TYPE OF SECURITY',
      'QUANTITY TRADED',
    ]);
    const out = new ParseResult<RawBar>(file.path);
    for (const r of rows) {
      if (r.text('RECORD TYPE') !== '20') {
        out.reject(r.line, `record type ${r.text('RECORD TYPE')} is not a security-wise row`);
        continue;
      }
      const dqCol = r.has('DELIVERABLE QUANTITY(GROSS ACROSS CLIENT LEVEL)')
        ? 'DELIVERABLE QUANTITY(GROSS ACROSS CLIENT LEVEL)'
        : 'DELIVERABLE QUANTITY';
      const bar: RawBar = {
        symbol: r.text('NAME OF SECURITY').toUpperCase(),
        isin: null,
        series: r.text('TYPE OF SECURITY').toUpperCase(),
        d,
        volume: r.number('QUANTITY TRADED'),
        deliveryQty: r.number(dqCol),
      };
      const problem =
        priceProblem(bar) ??
        (bar.deliveryQty! > bar.volume! ? 'delivered quantity exceeds traded quantity' : undefined);
      if (problem) out.reject(r.line, problem);
      else out.ok(r.line, bar);
    }
    return out;
  },
  async apply(client, rows) {
    const priced = rows.filter((r) => r.value.open !== undefined);
    const mto = rows.filter((r) => r.value.open === undefined);
    const result: Applied<RawBar> =
      priced.length > 0 ? await applyBars(client, priced) : { loaded: [], rejections: [], changed: 0 };
    if (mto.length === 0) return result;
    const { resolved: targets, rejections } = await resolveRows(client, mto, (b) => b.d, unknownSymbol);
    result.rejections.push(...rejections);
    const { rows: updated } = await client.query<{ i: number; changed: boolean }>(
      `WITH incoming AS (
         SELECT * FROM unnest($1::int[], $2::int[], $3::bigint[], $4::int[]) AS x(stock_id, dn, qty, i)
       ), matched AS (
         SELECT incoming.i, b.stock_id, b.d, incoming.qty, b.delivery_qty IS DISTINCT FROM incoming.qty AS changed
           FROM incoming JOIN daily_bars b ON b.stock_id = incoming.stock_id AND b.d = DATE '1970-01-01' + incoming.dn
       ), done AS (
         UPDATE daily_bars b SET delivery_qty = m.qty FROM matched m
          WHERE b.stock_id = m.stock_id AND b.d = m.d AND m.changed
       )
       SELECT i, changed FROM matched`,
      [
        targets.map((t) => t.stockId),
        targets.map((t) => t.row.value.d),
        targets.map((t) => t.row.value.deliveryQty),
        targets.map((_, i) => i),
      ],
    );
    const matched = new Set(updated.map((u) => u.i));
    targets.forEach((t, i) => {
      if (matched.has(i)) result.loaded.push(t.row);
      else
        result.rejections.push(
          rejectionOf(
            t.row,
            `no price bar held for this stock on ${formatDay(t.row.value.d)} (import that day's bhavcopy first)`,
          ),
        );
    });
    result.changed += updated.filter((u) => u.changed).length;
    return result;
  },
});

/**
 * Per-symbol daily history without a header (DDMMYY, open, high, low, close, traded value, quantity,
 * trades), one file per symbol named SYMBOL.csv.
 */
export const dailyHistory = defineKind<RawBar>({
  describe: 'per-symbol daily history SYMBOL.csv (headerless: DDMMYY, O, H, L, C, value, qty, trades)',
  needsFiles: true,
  parse(file) {
    const symbol = file.name.replace(/\.csv$/i, '').toUpperCase();
    if (!/^[A-Z0-9&._-]+$/.test(symbol))
      throw new ImportFileError(file.path, 0, 'the file name must be the symbol, e.g. INFY.csv');
    const rows = readHeaderless(file, ['DATE', 'OPEN', 'HIGH', 'LOW', 'CLOSE', 'VALUE', 'QTY', 'TRADES']);
    return collect(file, rows, (r) => {
      const m = /^(\d{2})(\d{2})(\d{2})$/.exec(r.text('DATE'));
      const d =
        (m ? parseExchangeDate(`${m[1]}${m[2]}20${m[3]}`) : undefined) ??
        r.fail(`DATE "${r.text('DATE')}" is not a DDMMYY date`);
      return {
        symbol,
        isin: null,
        series: 'EQ',
        d,
        open: paise(r.number('OPEN')),
        high: paise(r.number('HIGH')),
        low: paise(r.number('LOW')),
        close: paise(r.number('CLOSE')),
        volume: r.number('QTY'),
        deliveryQty: null,
      };
    });
  },
  apply: applyBars,
});
