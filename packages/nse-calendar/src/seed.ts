import { type CalendarDay, TradingCalendar } from './calendar.ts';

/**
 * The calendar a new database starts from: NSE's weekday trading holidays of 2019-2026 from the
 * exchange's yearly circulars, and the special sessions of those years. From then on the calendar is
 * imported data (an exchange holiday list through the data import); this list is never edited to add a
 * year. Equities and equity derivatives close on the same days.
 */
const HOLIDAYS: Record<number, readonly string[]> = {
  2019: [
    '03-04',
    '03-21',
    '04-17',
    '04-19',
    '04-29',
    '05-01',
    '06-05',
    '08-12',
    '08-15',
    '09-02',
    '09-10',
    '10-02',
    '10-08',
    '10-21',
    '10-28',
    '11-12',
    '12-25',
  ],
  2020: [
    '02-21',
    '03-10',
    '04-02',
    '04-06',
    '04-10',
    '04-14',
    '05-01',
    '05-25',
    '10-02',
    '11-16',
    '11-30',
    '12-25',
  ],
  2021: [
    '01-26',
    '03-11',
    '03-29',
    '04-02',
    '04-14',
    '04-21',
    '05-13',
    '07-21',
    '08-19',
    '09-10',
    '10-15',
    '11-05',
    '11-19',
  ],
  2022: [
    '01-26',
    '03-01',
    '03-18',
    '04-14',
    '04-15',
    '05-03',
    '08-09',
    '08-15',
    '08-31',
    '10-05',
    '10-26',
    '11-08',
  ],
  2023: [
    '01-26',
    '03-07',
    '03-30',
    '04-04',
    '04-07',
    '04-14',
    '05-01',
    '06-29',
    '08-15',
    '09-19',
    '10-02',
    '10-24',
    '11-14',
    '11-27',
    '12-25',
  ],
  2024: [
    '01-22',
    '01-26',
    '03-08',
    '03-25',
    '03-29',
    '04-11',
    '04-17',
    '05-01',
    '05-20',
    '06-17',
    '07-17',
    '08-15',
    '10-02',
    '11-15',
    '11-20',
    '12-25',
  ],
  2025: [
    '02-26',
    '03-14',
    '03-31',
    '04-10',
    '04-14',
    '04-18',
    '05-01',
    '08-15',
    '08-27',
    '10-02',
    '10-22',
    '11-05',
    '12-25',
  ],
  2026: [
    '01-15',
    '01-26',
    '03-03',
    '03-26',
    '03-31',
    '04-03',
    '04-14',
    '05-01',
    '05-28',
    '06-26',
    '09-14',
    '10-02',
    '10-20',
    '11-10',
    '11-24',
    '12-25',
  ],
};

/**
 * Sessions held on days otherwise closed. Diwali Laxmi Pujan is a holiday with an evening Muhurat
 * session every year (a weekday one is listed here, not as a holiday, so its bars are a session's);
 * the Union Budget is presented on 1 February, with a session when that is a weekend.
 */
const SPECIAL_SESSIONS: readonly CalendarDay[] = [
  { date: '2019-10-27', kind: 'special', description: 'Diwali Laxmi Pujan (Muhurat trading)' },
  { date: '2020-02-01', kind: 'special', description: 'Union Budget (special session)' },
  { date: '2020-11-14', kind: 'special', description: 'Diwali Laxmi Pujan (Muhurat trading)' },
  { date: '2021-11-04', kind: 'special', description: 'Diwali Laxmi Pujan (Muhurat trading)' },
  { date: '2022-10-24', kind: 'special', description: 'Diwali Laxmi Pujan (Muhurat trading)' },
  { date: '2023-11-12', kind: 'special', description: 'Diwali Laxmi Pujan (Muhurat trading)' },
  { date: '2024-01-20', kind: 'special', description: 'Special live trading session (full day)' },
  { date: '2024-11-01', kind: 'special', description: 'Diwali Laxmi Pujan (Muhurat trading)' },
  { date: '2025-02-01', kind: 'special', description: 'Union Budget (special session)' },
  { date: '2025-10-21', kind: 'special', description: 'Diwali Laxmi Pujan (Muhurat trading)' },
  { date: '2026-02-01', kind: 'special', description: 'Union Budget (special session)' },
];

const SEED_FIRST_YEAR = 2019;
const SEED_LAST_YEAR = 2026;

export const SEED_DAYS: readonly CalendarDay[] = [
  ...Object.entries(HOLIDAYS).flatMap(([year, dates]) =>
    dates.map((md): CalendarDay => ({ date: `${year}-${md}`, kind: 'holiday', description: '' })),
  ),
  ...SPECIAL_SESSIONS,
];

/** The years the seed lists, first and last. */
export const SEED_YEARS = { first: SEED_FIRST_YEAR, last: SEED_LAST_YEAR } as const;

export const SEED_CALENDAR = new TradingCalendar(SEED_DAYS, SEED_LAST_YEAR);
