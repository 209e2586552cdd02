import { type DayNumber, parseDay, parseExchangeDate } from '../dates.ts';

const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];

function monthNumber(name: string): number | undefined {
  const n = name.toLowerCase().replace(/\.$/, '');
  if (n.length < 3) return undefined;
  const i = MONTHS.findIndex((m) => m.startsWith(n));
  return i < 0 ? undefined : i + 1;
}

function fromParts(y: string, m: number | undefined, d: string): DayNumber | undefined {
  if (m === undefined) return undefined;
  return parseDay(`${y}-${String(m).padStart(2, '0')}-${d.padStart(2, '0')}`);
}

/**
 * BSE's holiday list spells its dates as the page shows them: 26-Jan-2027, "January 26, 2027",
 * 26 January 2027 or 26/01/2027 (day first, as everywhere in Indian exchange files).
 */
export function parseBseDate(raw: string): DayNumber | undefined {
  const text = raw.trim().replace(/\s+/g, ' ');
  const known = parseExchangeDate(text);
  if (known !== undefined) return known;
  let m = /^([A-Za-z]+\.?) (\d{1,2}),? (\d{4})$/.exec(text);
  if (m) return fromParts(m[3]!, monthNumber(m[1]!), m[2]!);
  m = /^(\d{1,2})[- ]([A-Za-z]+\.?)[- ,]+(\d{4})$/.exec(text);
  if (m) return fromParts(m[3]!, monthNumber(m[2]!), m[1]!);
  m = /^(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})$/.exec(text);
  if (m) return fromParts(m[3]!, Number(m[2]), m[1]!);
  return undefined;
}
