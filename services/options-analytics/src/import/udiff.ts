import { marketCloseMs } from '../analytics/time.ts';
import type { FutureQuote, OptionContractQuote, Snapshot, UnderlyingKind } from '../domain/snapshot.ts';
import { FileFormatError } from './format-error.ts';

/**
 * NSE's F&O bhavcopy in the UDiFF format (`BhavCopy_NSE_FO_0_0_0_YYYYMMDD_F_0000.csv`, from July 2024):
 * one row per contract with ISO dates. Columns are found by header name, so a reordering or an added
 * column does not break the import. What is used:
 *
 *   TradDt, FinInstrmTp (IDO/IDF index options/futures, STO/STF stock options/futures), TckrSymb,
 *   FininstrmActlXpryDt (the actual, holiday-adjusted expiry; XpryDt as fallback), StrkPric, OptnTp,
 *   ClsPric, LastPric, UndrlygPric, OpnIntrst and ChngInOpnIntrst (units of the underlying),
 *   TtlTradgVol (contracts), NewBrdLotQty (the contract's lot size).
 *
 * A contract that did not trade that day (TtlTradgVol 0) carries its previous close and a zero last
 * price; its price is dropped (close and last null) so it never yields a stale IV.
 */

const REQUIRED = [
  'TradDt',
  'FinInstrmTp',
  'TckrSymb',
  'XpryDt',
  'StrkPric',
  'OptnTp',
  'ClsPric',
  'LastPric',
  'UndrlygPric',
  'OpnIntrst',
  'ChngInOpnIntrst',
  'TtlTradgVol',
  'NewBrdLotQty',
] as const;

const KINDS: Record<string, { kind: UnderlyingKind; option: boolean }> = {
  IDO: { kind: 'index', option: true },
  IDF: { kind: 'index', option: false },
  STO: { kind: 'stock', option: true },
  STF: { kind: 'stock', option: false },
};

export class UdiffFormatError extends FileFormatError {}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

function num(value: string | undefined, what: string, line: number): number {
  const v = Number(value);
  if (value === undefined || value.trim() === '' || !Number.isFinite(v))
    throw new UdiffFormatError(line, `${what} is not a number: "${value ?? ''}"`);
  return v;
}

function date(value: string | undefined, what: string, line: number): string {
  const v = (value ?? '').trim();
  if (!ISO_DATE.test(v)) throw new UdiffFormatError(line, `${what} is not a YYYY-MM-DD date: "${v}"`);
  return v;
}

interface Builder {
  snapshot: Snapshot;
  prices: Map<number, number>;
}

/**
 * Parses one or more trading days of a UDiFF F&O bhavcopy into one snapshot per underlying and day.
 * `symbols`, when given, keeps only those underlyings.
 */
export function parseUdiff(text: string, symbols?: ReadonlySet<string>): Snapshot[] {
  const lines = text.split(/\r?\n/);
  const header = (lines[0] ?? '')
    .replace(/^\uFEFF/, '')
    .split(',')
    .map((h) => h.trim());
  const col = new Map(header.map((h, i) => [h, i]));
  const missing = REQUIRED.filter((c) => !col.has(c));
  if (missing.length > 0)
    throw new UdiffFormatError(1, `not a UDiFF F&O bhavcopy: missing column(s) ${missing.join(', ')}`);
  const idx = (name: string) => col.get(name)!;
  const iActual = col.get('FininstrmActlXpryDt');
  const builders = new Map<string, Builder>();

  for (let n = 1; n < lines.length; n++) {
    const line = lines[n]!;
    if (line.trim() === '') continue;
    const f = line.split(',');
    const type = KINDS[(f[idx('FinInstrmTp')] ?? '').trim()];
    if (!type) continue; // other segments or instrument types are not ours
    const symbol = (f[idx('TckrSymb')] ?? '').trim();
    if (symbols && !symbols.has(symbol)) continue;
    const lineNo = n + 1;
    const tradeDate = date(f[idx('TradDt')], 'TradDt', lineNo);
    const actual = iActual === undefined ? '' : (f[iActual] ?? '').trim();
    const expiry = date(actual !== '' ? actual : f[idx('XpryDt')], 'expiry', lineNo);
    const key = `${symbol}|${tradeDate}`;
    let b = builders.get(key);
    if (!b) {
      b = {
        snapshot: {
          underlying: symbol,
          kind: type.kind,
          tradeDate,
          snapshotMs: marketCloseMs(tradeDate),
          underlyingPrice: 0,
          options: [],
          futures: [],
        },
        prices: new Map(),
      };
      builders.set(key, b);
    }
    const underlying = num(f[idx('UndrlygPric')], 'UndrlygPric', lineNo);
    if (underlying > 0) b.prices.set(underlying, (b.prices.get(underlying) ?? 0) + 1);
    const volume = num(f[idx('TtlTradgVol')], 'TtlTradgVol', lineNo);
    const traded = volume > 0;
    const close = traded ? num(f[idx('ClsPric')], 'ClsPric', lineNo) : null;
    const last = traded ? num(f[idx('LastPric')], 'LastPric', lineNo) : null;
    const common = {
      expiry,
      oi: num(f[idx('OpnIntrst')], 'OpnIntrst', lineNo),
      oiChange: num(f[idx('ChngInOpnIntrst')], 'ChngInOpnIntrst', lineNo),
      volume,
      lotSize: num(f[idx('NewBrdLotQty')], 'NewBrdLotQty', lineNo),
    };
    if (type.option) {
      const optionType = (f[idx('OptnTp')] ?? '').trim();
      if (optionType !== 'CE' && optionType !== 'PE')
        throw new UdiffFormatError(lineNo, `OptnTp must be CE or PE, not "${optionType}"`);
      const quote: OptionContractQuote = {
        ...common,
        strike: num(f[idx('StrkPric')], 'StrkPric', lineNo),
        type: optionType === 'CE' ? 'call' : 'put',
        close: close !== null && close > 0 ? close : null,
        last: last !== null && last > 0 ? last : null,
        bid: null,
        ask: null,
      };
      b.snapshot.options.push(quote);
    } else {
      const future: FutureQuote = { ...common, close: close !== null && close > 0 ? close : null };
      b.snapshot.futures.push(future);
    }
  }
  const out: Snapshot[] = [];
  for (const { snapshot, prices } of builders.values()) {
    // Every row of an underlying carries the same underlying price; take the most frequent to be safe.
    let best = 0;
    let bestCount = 0;
    for (const [p, c] of prices) {
      if (c > bestCount) {
        best = p;
        bestCount = c;
      }
    }
    if (best > 0) out.push({ ...snapshot, underlyingPrice: best });
  }
  return out.sort((a, b) =>
    a.tradeDate === b.tradeDate ? (a.underlying < b.underlying ? -1 : 1) : a.tradeDate < b.tradeDate ? -1 : 1,
  );
}
