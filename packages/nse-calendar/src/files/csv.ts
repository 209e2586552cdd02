import { CsvError, parse } from 'csv-parse/sync';
import type { CalendarDayKind } from '../calendar.ts';
import { type DayNumber, parseExchangeDate } from '../dates.ts';
import { parseBseDate } from './bse.ts';
import { HolidayFileError } from './error.ts';
import {
  assemble,
  describesSpecialSession,
  type HolidayFileForm,
  type ParsedHolidayFile,
  type ReadRow,
} from './result.ts';

type Column = 'date' | 'description' | 'segment' | 'kind' | 'weekday' | 'serial' | 'note';

/** Header names as spelled once lower-cased and stripped of all but letters ("Sr. No." is srno). */
const COLUMNS: Record<string, Column> = {
  date: 'date',
  holidaydate: 'date',
  tradingdate: 'date',
  clearingdate: 'date',
  description: 'description',
  holiday: 'description',
  holidays: 'description',
  holidayname: 'description',
  occasion: 'description',
  reason: 'description',
  segment: 'segment',
  market: 'segment',
  exchangesegment: 'segment',
  marketsegment: 'segment',
  kind: 'kind',
  type: 'kind',
  session: 'kind',
  day: 'weekday',
  weekday: 'weekday',
  dayofweek: 'weekday',
  srno: 'serial',
  sno: 'serial',
  slno: 'serial',
  serialno: 'serial',
  serialnumber: 'serial',
  remarks: 'note',
  remark: 'note',
  notes: 'note',
  note: 'note',
};

const columnOf = (header: string): Column | undefined =>
  COLUMNS[
    header
      .replace(/^\uFEFF/, '')
      .toLowerCase()
      .replace(/[^a-z]/g, '')
  ];

/**
 * Which holiday list a CSV header heads, or undefined. BSE's download is known by its serial, holiday,
 * date and day columns (other columns it may add are ignored); any other list must consist of holiday
 * columns only, with a date among them, so that no other exchange file with a date column is taken for one.
 */
export function holidayCsvForm(header: readonly string[]): HolidayFileForm | undefined {
  const named = header.filter((h) => h.trim() !== '');
  const columns = named.map(columnOf);
  const known = columns.filter((c) => c !== undefined);
  if (new Set(known).size !== known.length || !known.includes('date')) return undefined;
  if (['serial', 'description', 'weekday'].every((c) => known.includes(c as Column))) return 'bse-holidays';
  return known.length === named.length ? 'holiday-csv' : undefined;
}

// Equities (CM) and equity derivatives (FO) close on the same days; the other segments keep calendars of
// their own.
const EQUITY_SEGMENT = /\b(cm|fo|f\s*&\s*o|eq|equity|equities|cash|capital\s+market|futures|all)\b/i;
const OTHER_SEGMENT =
  /\b(cd|com|mcx|currency|commodity|commodities|ird|interest\s+rate|ndm|mf|mutual\s+funds?|slbs|cbm|cmot|ntrp|debt|wdm)\b/i;

function kindOf(value: string): CalendarDayKind | undefined {
  const v = value.trim().toLowerCase();
  if (/clearing|settlement/.test(v)) return 'clearing';
  if (/special|muh[uo]?r[au]t/.test(v)) return 'special';
  if (/^(trading\s+)?(holiday|closed)$/.test(v)) return 'holiday';
  return undefined;
}

interface CsvRecord {
  record: string[];
  info: { lines: number };
}

function records(file: string, text: string): CsvRecord[] {
  try {
    return parse(text, {
      bom: true,
      info: true,
      relax_column_count: true,
      skip_empty_lines: true,
    }) as unknown as CsvRecord[];
  } catch (err) {
    if (err instanceof CsvError) {
      const line = (err as unknown as { lines?: number }).lines ?? 1;
      throw new HolidayFileError(file, line, `not valid CSV: ${err.message}`);
    }
    throw err;
  }
}

/**
 * A holiday list as CSV: a header row, then a row per date. A row must have as many fields as the
 * header (empty fields past its end are tolerated: spreadsheets end rows with commas). A row whose
 * segment names only a non-equity segment (currency, commodity, …) is another calendar's: it is skipped
 * and not listed in `rows`. A segment the reader cannot place is an error, never a guess.
 */
export function parseHolidayCsv(file: string, text: string): ParsedHolidayFile {
  const all = records(file, text);
  const head = all[0];
  if (!head) throw new HolidayFileError(file, 1, 'the file is empty');
  const form = holidayCsvForm(head.record);
  if (!form) {
    const header = head.record.join(',');
    const shown = header.length > 100 ? `${header.slice(0, 100)}…` : header;
    throw new HolidayFileError(
      file,
      head.info.lines,
      `not a holiday list: its header (${shown}) has no date column, or columns a holiday list does not have`,
    );
  }
  const parseDate: (raw: string) => DayNumber | undefined =
    form === 'bse-holidays' ? parseBseDate : parseExchangeDate;
  const index = new Map<Column, number>();
  head.record.forEach((h, i) => {
    const c = columnOf(h);
    if (c) index.set(c, i);
  });
  let width = head.record.length;
  while (width > 1 && head.record[width - 1]!.trim() === '') width--;

  const rows: ReadRow[] = [];
  for (const { record, info } of all.slice(1)) {
    const line = info.lines;
    const error = (detail: string) => new HolidayFileError(file, line, detail);
    if (record.every((c) => c.trim() === '')) continue;
    let cells = record.length;
    while (cells > width && record[cells - 1]!.trim() === '') cells--;
    if (cells !== width) throw error(`${cells} fields where the header has ${width}`);
    const cell = (c: Column) => {
      const i = index.get(c);
      return i === undefined ? '' : (record[i] ?? '').trim();
    };

    const segment = cell('segment');
    if (segment !== '' && !EQUITY_SEGMENT.test(segment)) {
      if (OTHER_SEGMENT.test(segment)) continue;
      throw error(`segment "${segment}" is neither an equity segment (CM, FO) nor another one`);
    }
    const raw = cell('date');
    if (raw === '') throw error('the date is empty');
    const day = parseDate(raw);
    if (day === undefined) throw error(`"${raw}" is not a date`);
    const description = cell('description');
    const stated = cell('kind');
    let kind: CalendarDayKind = 'holiday';
    if (stated !== '') {
      const k = kindOf(stated);
      if (!k) throw error(`kind "${stated}" is not holiday, special or clearing`);
      kind = k;
    }
    // The exchanges list Diwali as a holiday and announce its Muhurat session in a note.
    if (kind === 'holiday' && describesSpecialSession(description)) kind = 'special';
    const weekDay = cell('weekday');
    rows.push({ line, day, kind, description, ...(weekDay ? { weekDay } : {}) });
  }
  return assemble(file, form, rows);
}
