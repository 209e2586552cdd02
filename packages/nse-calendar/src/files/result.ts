import type { CalendarDay, CalendarDayKind } from '../calendar.ts';
import { type DayNumber, formatDay, weekday, yearOf } from '../dates.ts';
import { HolidayFileError } from './error.ts';

export type HolidayFileForm = 'nse-holiday-master' | 'holiday-csv' | 'bse-holidays';

export interface HolidayFileRow {
  /** The CSV line, or for NSE's JSON the 1-based entry within `segment`. */
  line: number;
  /** NSE's JSON only: the segment the entry was listed under (CM, FO). */
  segment?: string;
  date: string;
  kind: CalendarDayKind;
  description: string;
}

export interface ParsedHolidayFile {
  form: HolidayFileForm;
  /** The calendar years the file lists (each year a file names is taken as that year's whole list). */
  years: number[];
  /** One entry per date, sorted by date. */
  days: CalendarDay[];
  /** Every row read, in file order, with what it became (a date listed twice appears twice). */
  rows: HolidayFileRow[];
}

/** A row as a form's reader found it, before the rules every form shares. */
export interface ReadRow {
  line: number;
  segment?: string;
  day: DayNumber;
  kind: CalendarDayKind;
  description: string;
  /** The file's own weekday for the row, when it gives one. */
  weekDay?: string;
}

const WEEKDAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];

// NSE marks Diwali Laxmi Pujan with an asterisk whose footnote announces the Muhurat session; the note
// itself is not in the list, so the asterisk is all a file carries of it.
const SPECIAL_SESSION =
  /muh[uo]?r[au]th?|special\s+(live\s+)?trading|special\s+session|\b(laxmi|lakshmi)\b[^*]*\*/i;

/** Whether an entry's description says a session is held on the day (Muhurat, a special session). */
export function describesSpecialSession(description: string): boolean {
  return SPECIAL_SESSION.test(description);
}

const fail = (file: string, row: ReadRow, detail: string): never => {
  throw new HolidayFileError(file, row.line, detail, row.segment);
};

function checkWeekday(file: string, row: ReadRow): void {
  const said = (row.weekDay ?? '').trim().replace(/\.$/, '');
  if (said === '') return;
  const named = WEEKDAYS.findIndex((d) => said.length >= 3 && d.toLowerCase().startsWith(said.toLowerCase()));
  if (named < 0) fail(file, row, `"${row.weekDay}" is not a day of the week`);
  const actual = weekday(row.day);
  if (named !== actual)
    fail(file, row, `${formatDay(row.day)} is a ${WEEKDAYS[actual]}, but the row says ${row.weekDay}`);
}

/**
 * The rules every form shares: weekdays agree with dates, nothing but a special session falls on a
 * weekend (the exchanges list weekday closures only, so a weekend holiday is a mistyped date), and a
 * date listed twice says the same thing both times. Throws at the first row that breaks one.
 */
export function assemble(file: string, form: HolidayFileForm, read: readonly ReadRow[]): ParsedHolidayFile {
  if (read.length === 0) throw new HolidayFileError(file, 1, 'the file lists no holidays');
  const byDay = new Map<DayNumber, { first: ReadRow; day: CalendarDay }>();
  const rows: HolidayFileRow[] = [];
  for (const row of read) {
    checkWeekday(file, row);
    const date = formatDay(row.day);
    const wd = weekday(row.day);
    if (wd >= 5 && row.kind !== 'special')
      fail(file, row, `${date} is a ${WEEKDAYS[wd]}: the exchange lists weekday holidays only`);
    const seen = byDay.get(row.day);
    if (seen === undefined) {
      byDay.set(row.day, { first: row, day: { date, kind: row.kind, description: row.description } });
    } else if (seen.day.kind !== row.kind) {
      const where = seen.first.segment
        ? `${seen.first.segment} entry ${seen.first.line}`
        : `line ${seen.first.line}`;
      fail(file, row, `${date} is listed as ${row.kind} here but as ${seen.day.kind} at ${where}`);
    } else if (seen.day.description === '') {
      seen.day.description = row.description;
    }
    rows.push({
      line: row.line,
      ...(row.segment === undefined ? {} : { segment: row.segment }),
      date,
      kind: row.kind,
      description: row.description,
    });
  }
  const days = [...byDay.keys()].sort((a, b) => a - b).map((d) => byDay.get(d)!.day);
  const years = [...new Set(read.map((r) => yearOf(r.day)))].sort((a, b) => a - b);
  return { form, years, days, rows };
}
