import { basename } from 'node:path';
import { type Pool, withTransaction } from '@mdp/db';
import {
  type CalendarDay,
  HolidayFileError,
  istDay,
  type ParsedHolidayFile,
  parseHolidayFile,
  type TradingCalendar,
} from '@mdp/nse-calendar';
import { announceDatasetChange } from '../store/dataset-change.ts';
import { type CalendarList, listOf, readCalendar, readCalendarDays } from './store.ts';

export interface HolidayFileText {
  path: string;
  text: string;
}

/** What one row of a file did: its date's entry was added, changed or already so. */
interface CalendarRowOutcome {
  file: string;
  line: number;
  date: string;
  kind: CalendarDay['kind'];
  description: string;
  outcome: 'added' | 'changed' | 'unchanged';
}

export interface CalendarImportReport {
  rows: CalendarRowOutcome[];
  /** Entries of the years imported that no file lists any more (a revised circular dropped them). */
  removed: (CalendarDay & { list: CalendarList })[];
  /** Rows of a year that is over and held, which differ from it (history is not rewritten). */
  rejected: { file: string; line: number; reason: string }[];
  /** The years each list now has from these files (years a file names a holiday of). */
  years: { list: CalendarList; year: number; source: string }[];
  changed: boolean;
  /** The calendar in force after the import (unchanged when nothing changed). */
  calendar: TradingCalendar;
}

/**
 * The files' entries per list and year (the first row of a date names it: NSE lists each day under
 * CM and FO); a date two rows give different kinds is an error naming both.
 */
function merge(parsed: { path: string; file: ParsedHolidayFile }[]) {
  const byKey = new Map<string, CalendarRowOutcome & { list: CalendarList }>();
  const years = new Map<string, { list: CalendarList; year: number; source: string }>();
  for (const { path, file } of parsed) {
    const list: CalendarList = file.days.some((d) => d.kind === 'clearing') ? 'clearing' : 'trading';
    // A year is the file's whole list only where it names a holiday: a list of special sessions alone
    // (a Muhurat circular) adds them and leaves the year's holidays as they are.
    for (const d of file.days)
      if (d.kind !== 'special') {
        const year = Number(d.date.slice(0, 4));
        years.set(`${list}|${year}`, { list, year, source: basename(path) });
      }
    for (const row of file.rows) {
      const key = `${listOf(row.kind)}|${row.date}`;
      const before = byKey.get(key);
      if (before && before.kind !== row.kind)
        throw new HolidayFileError(
          path,
          row.line,
          `${row.date} is a ${row.kind} ("${row.description}") here but a ${before.kind} ("${before.description}") in ${before.file}:${before.line}`,
        );
      if (!before) byKey.set(key, { ...row, list: listOf(row.kind), file: path, outcome: 'added' });
    }
  }
  return { entries: [...byKey.values()], years: [...years.values()] };
}

/**
 * Imports exchange holiday lists. Every file is parsed before anything is written: a malformed or
 * partial one throws HolidayFileError naming file and row, and the calendar stays as it was. Then, in
 * one transaction:
 * - each year a file lists replaces that year's holidays of its list (a revised circular drops a day);
 * - special sessions are added or updated by a list that names them and never removed by one that does
 *   not (the year's circular is published before its Muhurat session is announced), and a holiday on a
 *   special session's day keeps the session (Muhurat trading is held on the Diwali holiday);
 * - a year already held that is over (before the current IST year) is history: it is not rewritten,
 *   and each row that differs from it is rejected with the reason.
 * A change moves the schema's dataset version on and notifies (the service reloads and announces it);
 * a repeat of the same files changes nothing.
 */
export async function importHolidayFiles(
  pool: Pool,
  files: readonly HolidayFileText[],
  nowMs: number,
): Promise<CalendarImportReport> {
  const parsed = files.map((f) => ({ path: f.path, file: parseHolidayFile(f.path, f.text) }));
  const { entries, years } = merge(parsed);
  const currentYear = Number(istDay(nowMs).slice(0, 4));
  return withTransaction(pool, async (client) => {
    // One import at a time: each reads the years it replaces and writes them whole.
    await client.query('LOCK TABLE trading_calendar, trading_calendar_years IN EXCLUSIVE MODE');
    const heldYears = new Set(
      (
        await client.query<{ list: CalendarList; year: number }>(
          'SELECT list, year FROM trading_calendar_years',
        )
      ).rows.map((h) => `${h.list}|${h.year}`),
    );
    const settled = (list: CalendarList, year: number) =>
      year < currentYear && heldYears.has(`${list}|${year}`);
    const open = years.filter((y) => !settled(y.list, y.year));
    const opened = new Set(open.map((y) => `${y.list}|${y.year}`));
    const held = new Map((await readCalendarDays(client)).map((d) => [`${listOf(d.kind)}|${d.date}`, d]));
    const rows: CalendarRowOutcome[] = [];
    const rejected: CalendarImportReport['rejected'] = [];
    const write: (CalendarRowOutcome & { list: CalendarList })[] = [];
    const listed = new Set<string>();
    for (const e of entries) {
      const key = `${e.list}|${e.date}`;
      listed.add(key);
      const h = held.get(key);
      const same = h !== undefined && h.kind === e.kind && h.description === e.description;
      const { list: _list, ...row } = e;
      if (settled(e.list, Number(e.date.slice(0, 4)))) {
        if (!same && !(h?.kind === 'special' && e.kind === 'holiday'))
          rejected.push({
            file: e.file,
            line: e.line,
            reason: `${e.date}: ${e.date.slice(0, 4)} is over and its list is held, so it is not rewritten (held: ${h ? `a ${h.kind}${h.description ? ` "${h.description}"` : ''}` : 'a session'})`,
          });
        rows.push({ ...row, outcome: 'unchanged' });
        continue;
      }
      // A holiday on a special session's day: the session is held on the holiday.
      const outcome = !h
        ? 'added'
        : same || (h.kind === 'special' && e.kind === 'holiday')
          ? 'unchanged'
          : 'changed';
      rows.push({ ...row, outcome });
      if (outcome !== 'unchanged') write.push(e);
    }
    const removed = [...held.entries()]
      .filter(
        ([key, d]) =>
          d.kind !== 'special' &&
          !listed.has(key) &&
          opened.has(`${listOf(d.kind)}|${Number(d.date.slice(0, 4))}`),
      )
      .map(([, { date, kind, description }]) => ({ date, kind, description, list: listOf(kind) }));
    const changed =
      write.length > 0 || removed.length > 0 || open.some((y) => !heldYears.has(`${y.list}|${y.year}`));
    if (changed) {
      if (removed.length > 0)
        await client.query(
          'DELETE FROM trading_calendar t USING unnest($1::text[], $2::date[]) AS r(list, day) WHERE t.list = r.list AND t.day = r.day',
          [removed.map((r) => r.list), removed.map((r) => r.date)],
        );
      if (write.length > 0)
        await client.query(
          `INSERT INTO trading_calendar (list, day, kind, description, source)
           SELECT * FROM unnest($1::text[], $2::date[], $3::text[], $4::text[], $5::text[])
           ON CONFLICT (list, day) DO UPDATE
             SET kind = excluded.kind, description = excluded.description, source = excluded.source`,
          [
            write.map((w) => w.list),
            write.map((w) => w.date),
            write.map((w) => w.kind),
            write.map((w) => w.description),
            write.map((w) => basename(w.file)),
          ],
        );
      await client.query(
        `INSERT INTO trading_calendar_years (list, year, source)
         SELECT * FROM unnest($1::text[], $2::int[], $3::text[])
         ON CONFLICT (list, year) DO UPDATE SET source = excluded.source, loaded_at = now()`,
        [open.map((y) => y.list), open.map((y) => y.year), open.map((y) => y.source)],
      );
      await announceDatasetChange(client);
    }
    return { rows, rejected, removed, years: open, changed, calendar: await readCalendar(client) };
  });
}
