import { DAY_MS } from './ist.ts';

/**
 * Calendar dates as day numbers (days since 1970-01-01), the unit every price computation works in:
 * cheap to compare, subtract and index, with no time zone in sight. Text is always YYYY-MM-DD.
 */
export type DayNumber = number;

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** The day number of a real calendar date, or undefined for anything else (2023-02-29, 2024-1-5). */
export function parseDay(text: string): DayNumber | undefined {
  const m = ISO_DATE.exec(text);
  if (!m) return undefined;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const ms = Date.UTC(y, mo - 1, d);
  const back = new Date(ms);
  if (back.getUTCFullYear() !== y || back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d)
    return undefined;
  return ms / DAY_MS;
}

/** Like parseDay, for dates the program itself wrote. */
export function day(text: string): DayNumber {
  const n = parseDay(text);
  if (n === undefined) throw new Error(`not a calendar date: "${text}"`);
  return n;
}

// Price pages format thousands of dates each: remember them (a few hundred KB for a century).
const FORMATTED: string[] = new Array<string>(60_000).fill('');

export function formatDay(n: DayNumber): string {
  if (n >= 0 && n < 60_000) {
    const hit = FORMATTED[n]!;
    if (hit !== '') return hit;
    const text = new Date(n * DAY_MS).toISOString().slice(0, 10);
    FORMATTED[n] = text;
    return text;
  }
  return new Date(n * DAY_MS).toISOString().slice(0, 10);
}

/**
 * The YYYY-MM-DD date `n` calendar days after `date` (before it when n is negative). As Date.parse reads
 * the date: a day past the month's end rolls over (2026-02-30 is 2 March); a RangeError for text it cannot.
 */
export function addDays(date: string, n: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10);
}

export function dayFromDate(d: Date): DayNumber {
  return Math.floor(d.getTime() / DAY_MS);
}

/** 0 = Monday … 6 = Sunday (ISO weekday minus one). */
export function weekday(n: DayNumber): number {
  // 1970-01-01 was a Thursday.
  return (((n + 3) % 7) + 7) % 7;
}

/** The Monday starting the ISO week that contains the day. */
export function weekStart(n: DayNumber): DayNumber {
  return n - weekday(n);
}

export function yearOf(n: DayNumber): number {
  return new Date(n * DAY_MS).getUTCFullYear();
}

const MONTHS: Record<string, number> = {
  JAN: 1,
  FEB: 2,
  MAR: 3,
  APR: 4,
  MAY: 5,
  JUN: 6,
  JUL: 7,
  AUG: 8,
  SEP: 9,
  OCT: 10,
  NOV: 11,
  DEC: 12,
};

/**
 * The date spellings of exchange files: 2025-08-28, 28-Aug-2025, 28-AUG-25, 28 DEC 2025, 28082025,
 * 20250828. Two-digit years are 19xx from 70, else 20xx. Undefined when it is none of them or not real.
 */
export function parseExchangeDate(raw: string): DayNumber | undefined {
  const text = raw.trim();
  if (ISO_DATE.test(text)) return parseDay(text);
  const m = /^(\d{1,2})[- ]([A-Za-z]{3})[- ](\d{2}|\d{4})$/.exec(text);
  if (m) {
    const month = MONTHS[m[2]!.toUpperCase()];
    if (!month) return undefined;
    return fromParts(fullYear(m[3]!), month, Number(m[1]));
  }
  // Eight digits: YYYYMMDD when that is a real date, else DDMMYYYY.
  if (/^\d{8}$/.test(text)) {
    return fromParts(Number(text.slice(0, 4)), Number(text.slice(4, 6)), Number(text.slice(6))) ?? dmy(text);
  }
  return undefined;
}

function dmy(text: string): DayNumber | undefined {
  return fromParts(Number(text.slice(4)), Number(text.slice(2, 4)), Number(text.slice(0, 2)));
}

function fullYear(y: string): number {
  if (y.length === 4) return Number(y);
  const n = Number(y);
  return n >= 70 ? 1900 + n : 2000 + n;
}

function fromParts(y: number, m: number, d: number): DayNumber | undefined {
  return parseDay(
    `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`,
  );
}
