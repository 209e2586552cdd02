import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dropSchema, migratedPool, type Pool } from '@mdp/db';
import { day } from '@mdp/nse-calendar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importHolidayFiles } from '../../src/calendar/import.ts';
import { loadCalendar, readCalendar } from '../../src/calendar/store.ts';
import { run } from '../../src/cli.ts';
import { DATABASE_URL, REALDATA } from '../support.ts';

// What an import of exchange holiday lists does to the calendar a schema holds (seeded 2019-2026).

const MIGRATIONS = new URL('../../migrations/', import.meta.url).pathname;
const NOW = Date.parse('2026-12-10T10:00:00+05:30');
let pool: Pool;
let schema: string;

const csv = (rows: string[]) => `date,description,segment\n${rows.join('\n')}\n`;
const LIST_2027 = csv([
  '2027-01-26,Republic Day,CM',
  '2027-03-26,Good Friday,CM',
  '2027-08-16,Parsi New Year,CM',
]);

beforeAll(async () => {
  schema = `cal_${randomBytes(5).toString('hex')}`;
  pool = await migratedPool({
    url: DATABASE_URL,
    schema,
    dir: MIGRATIONS,
    max: 2,
    applicationName: 'cal-test',
  });
});
afterAll(async () => {
  await pool?.end();
  if (schema) await dropSchema(DATABASE_URL, schema);
});

describe('importing holiday lists into the calendar', () => {
  it('starts a new schema on the seed, once, whoever asks first', async () => {
    const [a, b] = await Promise.all([loadCalendar(pool), loadCalendar(pool)]);
    expect(a.version).toBe(b.version);
    expect(a.lastYear).toBe(2026);
    const { rows } = await pool.query<{ n: string }>(
      "SELECT count(*) AS n FROM trading_calendar WHERE source = 'seed'",
    );
    expect(Number(rows[0]!.n)).toBe(a.days.length);
  });

  it('adds a year, reporting each row, and a repeat changes nothing', async () => {
    const first = await importHolidayFiles(pool, [{ path: 'nse-2027.csv', text: LIST_2027 }], NOW);
    expect(first.changed).toBe(true);
    expect(first.rows.map((r) => [r.line, r.date, r.outcome])).toEqual([
      [2, '2027-01-26', 'added'],
      [3, '2027-03-26', 'added'],
      [4, '2027-08-16', 'added'],
    ]);
    expect(first.calendar.lastYear).toBe(2027);
    expect(first.calendar.isTradingDay(day('2027-01-26'))).toBe(false);
    const again = await importHolidayFiles(pool, [{ path: 'nse-2027.csv', text: LIST_2027 }], NOW);
    expect(again.changed).toBe(false);
    expect(again.rows.every((r) => r.outcome === 'unchanged')).toBe(true);
    expect(again.calendar.version).toBe(first.calendar.version);
  });

  it('shows the calendar in force with the data tool: the years loaded and from where, and a year', async () => {
    const out = await run(pool, ['calendar'], { log: () => {}, now: () => NOW });
    expect(out.split('\n')).toEqual([
      'trading calendar through 2027 (runs out 2027-12-31T18:30:00.000Z, 00:00 IST on 1 January 2028)',
      '  trading 2019-2026 from seed',
      '  trading 2027 from nse-2027.csv',
      '2027:',
      '  2027-01-26  holiday  Republic Day',
      '  2027-03-26  holiday  Good Friday',
      '  2027-08-16  holiday  Parsi New Year',
    ]);
    expect(await run(pool, ['calendar', '--year', '2025'], { log: () => {}, now: () => NOW })).toContain(
      '  2025-10-21  special  Diwali Laxmi Pujan (Muhurat trading)',
    );
    await expect(run(pool, ['calendar', '--year', '27'], { log: () => {}, now: () => NOW })).rejects.toThrow(
      '--year must be a year from 1950 to 2200, not 27',
    );
    await expect(
      run(pool, ['calendar', '--year', 'next'], { log: () => {}, now: () => NOW }),
    ).rejects.toThrow('--year must be a whole number, not "next"');
  });

  it("replaces a coming year's holidays with a revised list, keeping its special sessions", async () => {
    const muhurat = csv(['2027-10-29,Diwali Laxmi Pujan (Muhurat trading),CM']);
    await importHolidayFiles(pool, [{ path: 'muhurat-2027.csv', text: muhurat }], NOW);
    // The revision moves Parsi New Year to the 17th and drops nothing else.
    const revised = csv([
      '2027-01-26,Republic Day,CM',
      '2027-03-26,Good Friday,CM',
      '2027-08-17,Parsi New Year,CM',
    ]);
    const r = await importHolidayFiles(pool, [{ path: 'nse-2027-rev1.csv', text: revised }], NOW);
    expect(r.removed.map((d) => d.date)).toEqual(['2027-08-16']);
    expect(r.rows.find((row) => row.date === '2027-08-17')!.outcome).toBe('added');
    const held = await readCalendar(pool);
    expect(held.isTradingDay(day('2027-08-16'))).toBe(true);
    expect(held.isTradingDay(day('2027-08-17'))).toBe(false);
    // The Muhurat session stays a session, though no trading day a contract may expire on.
    expect(held.isTradingDay(day('2027-10-29'))).toBe(true);
    expect(held.isRegularTradingDay(day('2027-10-29'))).toBe(false);
  });

  it('does not rewrite a year that is over: the real-data list adds 1990-2018 and reports where it differs', async () => {
    const text = readFileSync(`${REALDATA}nse_trading_holidays_weekday_1990-2025.csv`, 'utf8');
    const before = await readCalendar(pool);
    const r = await importHolidayFiles(
      pool,
      [{ path: 'nse_trading_holidays_weekday_1990-2025.csv', text }],
      NOW,
    );
    const after = await readCalendar(pool);
    expect(after.isTradingDay(day('1990-07-04'))).toBe(false);
    // 2024-10-03 is in that list but not in NSE's 2024 circular, and 2025-10-21 (Diwali) was a Muhurat
    // session; 2025-11-05 is missing from the list but stays a holiday.
    expect(r.rejected.map((x) => x.reason.slice(0, 4))).toEqual(['2024']);
    expect(r.rejected[0]!.reason).toMatch(
      /^2024-10-03: 2024 is over and its list is held, so it is not rewritten/,
    );
    expect(after.isTradingDay(day('2024-10-03'))).toBe(true);
    expect(after.isTradingDay(day('2025-10-21'))).toBe(true);
    expect(after.isTradingDay(day('2025-11-05'))).toBe(false);
    for (const y of [2019, 2020, 2021, 2022, 2023, 2024, 2025, 2027])
      expect(after.year(y)).toEqual(before.year(y));
    expect(r.years.map((y) => y.year)).toEqual(Array.from({ length: 29 }, (_, i) => 1990 + i));
  });

  it('keeps a clearing list apart: it closes no session', async () => {
    const clearing = JSON.stringify({
      CM: [
        {
          clearingDate: '19-Feb-2027',
          weekDay: 'Friday',
          description: 'Chhatrapati Shivaji Maharaj Jayanti',
          Sr_no: 1,
        },
      ],
    });
    const r = await importHolidayFiles(
      pool,
      [{ path: 'holiday-master-clearing-2027.json', text: clearing }],
      NOW,
    );
    expect(r.rows.map((row) => [row.date, row.kind])).toEqual([['2027-02-19', 'clearing']]);
    const held = await readCalendar(pool);
    expect(held.isTradingDay(day('2027-02-19'))).toBe(true);
    expect(held.year(2027).some((d) => d.kind === 'holiday' && d.date === '2027-01-26')).toBe(true);
  });

  it('writes nothing of a set of files when one is malformed, naming its file and row', async () => {
    const before = (await readCalendar(pool)).version;
    const bad = csv(['2028-01-26,Republic Day,CM', '2028-02-30,Mahashivratri,CM']);
    await expect(
      importHolidayFiles(
        pool,
        [
          { path: 'good-2028.csv', text: csv(['2028-03-10,Holi,CM']) },
          { path: 'bad-2028.csv', text: bad },
        ],
        NOW,
      ),
    ).rejects.toThrow(/bad-2028\.csv:3/);
    expect((await readCalendar(pool)).version).toBe(before);
  });
});
