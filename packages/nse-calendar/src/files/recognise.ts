import { parse } from 'csv-parse/sync';
import { holidayCsvForm } from './csv.ts';
import type { HolidayFileForm } from './result.ts';

// NSE's holiday master, by what its entries hold: a dated tradingDate (or clearingDate) with a
// description, in a list under a segment key, under "data", or bare.
const NSE_ENTRY_DATE = /"(tradingDate|clearingDate)"\s*:\s*"\d{1,2}-[A-Za-z]{3}-\d{4}"/;
const NSE_LIST = /^\[|^\{\s*"data"\s*:|"[A-Z]{2,5}"\s*:\s*\[/;

function firstRow(text: string): string[] | undefined {
  try {
    const rows = parse(text, { bom: true, to_line: 1, relax_column_count: true }) as string[][];
    return rows[0];
  } catch {
    return undefined;
  }
}

/**
 * Which holiday list a file is, by its content (the name an operator saved it under is no guide), from
 * its first few kilobytes: NSE's holiday-master JSON, or a CSV whose header is a holiday list's.
 * Undefined for anything else, other exchange files with a date column included; the parser still
 * checks every row.
 */
export function recogniseHolidayFile(file: { name: string; head: string }): HolidayFileForm | undefined {
  const text = file.head.replace(/^\uFEFF/, '').trimStart();
  if (text.startsWith('{') || text.startsWith('[')) {
    const nse = NSE_ENTRY_DATE.test(text) && /"description"\s*:/.test(text) && NSE_LIST.test(text);
    return nse ? 'nse-holiday-master' : undefined;
  }
  const header = firstRow(text.split(/\r?\n/, 1)[0] ?? '');
  return header ? holidayCsvForm(header) : undefined;
}
