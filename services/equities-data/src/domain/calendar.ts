import { type DayNumber, day, formatDay, weekday } from './dates.ts';

/**
 * NSE trading holidays that fall on weekdays, as published by the exchange for each year. Years not
 * listed here are treated as having weekend closures only, so a generated calendar stays plausible
 * beyond the last published list. Special sessions on holidays (Diwali Muhurat trading) are not
 * modelled: those days count as closed.
 */
const HOLIDAYS: Record<number, string[]> = {
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
    '11-01',
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
    '10-21',
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

const HOLIDAY_DAYS = new Set<DayNumber>(
  Object.entries(HOLIDAYS).flatMap(([year, dates]) => dates.map((md) => day(`${year}-${md}`))),
);

export const FIRST_PUBLISHED_HOLIDAY_YEAR = 2019;
export const LAST_PUBLISHED_HOLIDAY_YEAR = 2026;

export function isHoliday(n: DayNumber): boolean {
  return HOLIDAY_DAYS.has(n);
}

export function isTradingDay(n: DayNumber): boolean {
  return weekday(n) < 5 && !HOLIDAY_DAYS.has(n);
}

/** Every trading day from `from` to `to`, both inclusive, in order. */
export function tradingDays(from: DayNumber, to: DayNumber): DayNumber[] {
  const days: DayNumber[] = [];
  for (let n = from; n <= to; n++) if (isTradingDay(n)) days.push(n);
  return days;
}

/** The latest trading day on or before `n`. */
export function tradingDayOnOrBefore(n: DayNumber): DayNumber {
  let d = n;
  while (!isTradingDay(d)) d--;
  return d;
}

export function holidayList(): string[] {
  return [...HOLIDAY_DAYS].sort((a, b) => a - b).map(formatDay);
}
