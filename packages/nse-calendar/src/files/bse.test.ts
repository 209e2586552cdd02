import { describe, expect, it } from 'vitest';
import { formatDay } from '../dates.ts';
import { parseBseDate } from './bse.ts';
import { errorOf } from './error-of.ts';
import { parseHolidayFile } from './index.ts';

describe("BSE's holiday list", () => {
  it('reads the download with its date spellings', () => {
    const parsed = parseHolidayFile(
      'Holidays.csv',
      [
        'Sr. No.,Holidays,Date,Day',
        '1,Republic Day,26-Jan-2027,Tuesday',
        '2,Holi,"March 22, 2027",Monday',
        '3,Good Friday,26/03/2027,Friday',
        '4,Diwali Laxmi Pujan*,29 October 2027,Friday',
      ].join('\r\n'),
    );
    expect(parsed.form).toBe('bse-holidays');
    expect(parsed.years).toEqual([2027]);
    expect(parsed.days).toEqual([
      { date: '2027-01-26', kind: 'holiday', description: 'Republic Day' },
      { date: '2027-03-22', kind: 'holiday', description: 'Holi' },
      { date: '2027-03-26', kind: 'holiday', description: 'Good Friday' },
      { date: '2027-10-29', kind: 'special', description: 'Diwali Laxmi Pujan*' },
    ]);
  });

  it('reads the variant header with more columns', () => {
    const parsed = parseHolidayFile(
      'x.csv',
      'Sr No,Holiday,Date,Day,Remarks\n1,Republic Day,26-01-2027,Tue,\n2,Holi,"Mar 22, 2027",Mon,\n',
    );
    expect(parsed.form).toBe('bse-holidays');
    expect(parsed.days.map((d) => d.date)).toEqual(['2027-01-26', '2027-03-22']);
  });

  it('rejects a mistyped date (its day disagrees), a date that is not one, and an unquoted comma', () => {
    const head = 'Sr. No.,Holidays,Date,Day\n1,Republic Day,26/01/2027,Tuesday\n';
    expect(errorOf('bse.csv', `${head}2,Holi,23/03/2027,Monday\n`).message).toBe(
      'bse.csv:3: 2027-03-23 is a Tuesday, but the row says Monday',
    );
    expect(errorOf('bse.csv', `${head}2,Holi,31/02/2027,Monday\n`).message).toBe(
      'bse.csv:3: "31/02/2027" is not a date',
    );
    expect(errorOf('bse.csv', `${head}2,Holi,March 22, 2027,Monday\n`).message).toBe(
      'bse.csv:3: 5 fields where the header has 4',
    );
  });

  it('spells dates day first', () => {
    const spelt = (s: string) => {
      const d = parseBseDate(s);
      return d === undefined ? undefined : formatDay(d);
    };
    for (const s of [
      '26-Jan-2027',
      '26 Jan 2027',
      'January 26, 2027',
      'Jan 26 2027',
      'Jan. 26, 2027',
      '26 January 2027',
      '26-January-2027',
      '26/01/2027',
      '26-01-2027',
      '26.01.2027',
      '2027-01-26',
    ])
      expect(spelt(s), s).toBe('2027-01-26');
    expect(spelt('01/02/2027')).toBe('2027-02-01');
    for (const s of ['01/26/2027', '29/02/2027', 'Janvier 26, 2027', 'Ja 26, 2027', '26/1/27', ''])
      expect(spelt(s), s).toBeUndefined();
  });
});
