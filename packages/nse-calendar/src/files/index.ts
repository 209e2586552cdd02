import { parseHolidayCsv } from './csv.ts';
import { HolidayFileError } from './error.ts';
import { readNseHolidayJson } from './nse-json.ts';
import { assemble, type ParsedHolidayFile } from './result.ts';

export { HolidayFileError } from './error.ts';
export { recogniseHolidayFile } from './recognise.ts';
export type { HolidayFileForm, HolidayFileRow, ParsedHolidayFile } from './result.ts';

/**
 * A trading-holiday list read whole: NSE's holiday-master JSON, a holiday CSV, or BSE's holiday list.
 * Throws HolidayFileError, naming the file and the row, on anything malformed or partial; never returns
 * a partial result, since each year the file names replaces that year's list.
 */
export function parseHolidayFile(path: string, text: string): ParsedHolidayFile {
  const body = text.replace(/^\uFEFF/, '');
  if (body.trim() === '') throw new HolidayFileError(path, 1, 'the file is empty');
  // JSON goes to the JSON reader even when it is cut short, so the error says so rather than "not a list".
  if (/^\s*[[{]/.test(body)) return assemble(path, 'nse-holiday-master', readNseHolidayJson(path, body));
  return parseHolidayCsv(path, body);
}
