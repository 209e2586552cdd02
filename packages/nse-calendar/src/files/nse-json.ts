import type { CalendarDayKind } from '../calendar.ts';
import { parseExchangeDate } from '../dates.ts';
import { HolidayFileError } from './error.ts';
import { describesSpecialSession, type ReadRow } from './result.ts';

/**
 * NSE's holiday master (https://www.nseindia.com/api/holiday-master?type=trading or ?type=clearing):
 * an object keyed by segment, each a list of {tradingDate: "26-Jan-2027", weekDay, description,
 * morning_session, evening_session, Sr_no}. Equities trade in CM and equity derivatives in FO, which
 * close on the same days; a date only one of them lists still closes the market. Every other segment
 * (currency, commodity, debt, …) keeps its own calendar and is not read.
 */
const EQUITY_SEGMENTS = ['CM', 'FO'] as const;

type Json = unknown;
const isObject = (v: Json): v is Record<string, Json> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function parseJson(file: string, text: string): Json {
  try {
    return JSON.parse(text);
  } catch (err) {
    const message = (err as Error).message;
    const given = /position (\d+)/.exec(message)?.[1];
    const end = text.trimEnd().length;
    const pos = Math.min(given === undefined ? end : Number(given), end);
    const line = text.slice(0, pos).split('\n').length;
    // A cut-short download fails where the text runs out, whatever V8 says it expected there.
    const early = pos >= end || /end of (JSON )?input|unterminated/i.test(message);
    const detail = early
      ? `the JSON ends early (a truncated download?): ${message}`
      : `not valid JSON: ${message}`;
    throw new HolidayFileError(file, line, detail);
  }
}

const baseName = (path: string) => path.split(/[\\/]/).pop() ?? path;

// Commodity segments mark a half-open day "Closed" in one session; in CM the fields are empty unless a
// session is held on the holiday.
const holdsSession = (v: Json) => typeof v === 'string' && !/^\s*(closed|-|na|n\/a|holiday)?\s*$/i.test(v);

export function readNseHolidayJson(file: string, text: string): ReadRow[] {
  let root = parseJson(file, text);
  if (isObject(root) && (isObject(root.data) || Array.isArray(root.data))) root = root.data;
  const segments: [string, Json][] = Array.isArray(root)
    ? [['CM', root]]
    : isObject(root)
      ? EQUITY_SEGMENTS.filter((s) => s in root).map((s) => [s, root[s]])
      : [];
  if (segments.length === 0) {
    const keys = isObject(root) ? Object.keys(root).join(', ') || 'none' : typeof root;
    throw new HolidayFileError(file, 1, `not NSE's holiday master: no CM or FO segment (found ${keys})`);
  }
  const lists = segments.map(([segment, list]) => {
    if (!Array.isArray(list)) throw new HolidayFileError(file, 1, `segment ${segment} is not a list`);
    return [segment, list as Json[]] as const;
  });
  // ?type=clearing lists the same shape; its file is named for it, or its entries say clearingDate.
  const clearing =
    /clearing/i.test(baseName(file)) ||
    lists.some(([, list]) => list.some((e) => isObject(e) && 'clearingDate' in e));

  const rows: ReadRow[] = [];
  for (const [segment, list] of lists) {
    for (const [i, entry] of list.entries()) {
      const error = (detail: string) => new HolidayFileError(file, i + 1, detail, segment);
      if (!isObject(entry)) throw error('is not an object');
      const raw = entry.tradingDate ?? entry.clearingDate;
      if (typeof raw !== 'string') throw error('has no tradingDate');
      const day = parseExchangeDate(raw);
      if (day === undefined) throw error(`"${raw}" is not a date`);
      const text = (key: string): string | undefined => {
        const v = entry[key];
        if (v === undefined || v === null) return undefined;
        if (typeof v !== 'string') throw error(`${key} is not text`);
        return v.trim();
      };
      const description = text('description') ?? '';
      const weekDay = text('weekDay');
      const kind: CalendarDayKind = clearing
        ? 'clearing'
        : describesSpecialSession(description) ||
            holdsSession(text('morning_session')) ||
            holdsSession(text('evening_session'))
          ? 'special'
          : 'holiday';
      rows.push({ line: i + 1, segment, day, kind, description, ...(weekDay ? { weekDay } : {}) });
    }
  }
  return rows;
}
