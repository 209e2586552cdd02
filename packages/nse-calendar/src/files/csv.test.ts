import { describe, expect, it } from 'vitest';
import { errorOf } from './error-of.ts';
import { parseHolidayFile } from './index.ts';

const LIST = [
  'Date,Description,Segment,Kind',
  '26-Jan-2027,Republic Day,CM,',
  '2027-03-22,Holi,FO,',
  '26-Mar-2027,Good Friday,"CM, FO",holiday',
  '29-OCT-27,Diwali Laxmi Pujan (Muhurat trading),CM,',
  '31 Jan 2027,Union Budget: special live trading,Equity,',
  '01-Apr-2027,Annual Bank Closing,CM,clearing',
  '26-Jan-2027,Republic Day,CD,',
  '15-Jan-2027,Makar Sankranti,Commodity,',
  '',
].join('\n');

describe('a holiday CSV', () => {
  it('reads date, description, segment and kind, skipping other segments', () => {
    const parsed = parseHolidayFile('holidays.csv', LIST);
    expect(parsed.form).toBe('holiday-csv');
    expect(parsed.years).toEqual([2027]);
    expect(parsed.days).toEqual([
      { date: '2027-01-26', kind: 'holiday', description: 'Republic Day' },
      { date: '2027-01-31', kind: 'special', description: 'Union Budget: special live trading' },
      { date: '2027-03-22', kind: 'holiday', description: 'Holi' },
      { date: '2027-03-26', kind: 'holiday', description: 'Good Friday' },
      { date: '2027-04-01', kind: 'clearing', description: 'Annual Bank Closing' },
      { date: '2027-10-29', kind: 'special', description: 'Diwali Laxmi Pujan (Muhurat trading)' },
    ]);
    // The currency and commodity rows are another calendar's: not read, not listed.
    expect(parsed.rows.map((r) => r.line)).toEqual([2, 3, 4, 5, 6, 7]);
    expect(parsed.rows[3]).toEqual({
      line: 5,
      date: '2027-10-29',
      kind: 'special',
      description: 'Diwali Laxmi Pujan (Muhurat trading)',
    });
  });

  it('takes headers in any case and spelling it knows, a BOM and CRLF', () => {
    const parsed = parseHolidayFile(
      'x.csv',
      '\uFEFFHOLIDAY DATE,Occasion,Market,Type\r\n26-Jan-2027,Republic Day,NSE CM,Trading Holiday\r\n' +
        '29-Oct-2027,Diwali Laxmi Pujan,F&O,Muhurat\r\n',
    );
    expect(parsed.days.map((d) => [d.date, d.kind])).toEqual([
      ['2027-01-26', 'holiday'],
      ['2027-10-29', 'special'],
    ]);
    const remarked = parseHolidayFile('x.csv', 'Sr No,Date,Holiday,Remarks\n1,26-Jan-2027,Republic Day,-\n');
    expect(remarked.days).toEqual([{ date: '2027-01-26', kind: 'holiday', description: 'Republic Day' }]);
  });

  it('allows a special session on a weekend, but no holiday', () => {
    const ok = parseHolidayFile(
      'x.csv',
      'date,description\n2023-11-12,Diwali Laxmi Pujan (Muhurat trading)\n',
    );
    expect(ok.days).toEqual([
      { date: '2023-11-12', kind: 'special', description: 'Diwali Laxmi Pujan (Muhurat trading)' },
    ]);
    expect(errorOf('x.csv', 'date,description\n2027-01-26,Republic Day\n2027-10-30,Diwali\n').message).toBe(
      'x.csv:3: 2027-10-30 is a Saturday: the exchange lists weekday holidays only',
    );
  });

  it('rejects a row with the wrong number of fields', () => {
    const text = `${LIST}26-Jan-2027,Republic Day,CM,holiday,extra\n`;
    expect(errorOf('x.csv', text).message).toBe('x.csv:10: 5 fields where the header has 4');
    expect(errorOf('x.csv', 'Date,Description\n26-Jan-2027\n').message).toBe(
      'x.csv:2: 1 fields where the header has 2',
    );
  });

  it('rejects a date that is not one, or none', () => {
    expect(errorOf('x.csv', 'date\n2027-01-26\n2027-02-29\n').message).toBe(
      'x.csv:3: "2027-02-29" is not a date',
    );
    expect(errorOf('x.csv', 'date,description\n2027-01-26,Republic Day\n,Holi\n').message).toBe(
      'x.csv:3: the date is empty',
    );
  });

  it('rejects a date listed again as another kind, naming both rows', () => {
    const err = errorOf('x.csv', `${LIST}26-Jan-2027,Republic Day,CM,clearing\n`);
    expect(err.message).toBe('x.csv:10: 2027-01-26 is listed as clearing here but as holiday at line 2');
    expect([err.file, err.line]).toEqual(['x.csv', 10]);
    // The same date said twice the same way is one day.
    const twice = parseHolidayFile('x.csv', 'date\n2027-01-26\n2027-01-26\n');
    expect([twice.days.length, twice.rows.length]).toEqual([1, 2]);
  });

  it('rejects a weekday column that disagrees with the date', () => {
    expect(errorOf('x.csv', 'Date,Holiday,Day\n26-Jan-2027,Republic Day,Monday\n').message).toBe(
      'x.csv:2: 2027-01-26 is a Tuesday, but the row says Monday',
    );
    expect(errorOf('x.csv', 'Date,Holiday,Day\n26-Jan-2027,Republic Day,Tusday\n').message).toBe(
      'x.csv:2: "Tusday" is not a day of the week',
    );
  });

  it('rejects a segment or a kind it cannot place', () => {
    expect(errorOf('x.csv', 'date,segment\n2027-01-26,NSE IX\n').message).toBe(
      'x.csv:2: segment "NSE IX" is neither an equity segment (CM, FO) nor another one',
    );
    expect(errorOf('x.csv', 'date,kind\n2027-01-26,half day\n').message).toBe(
      'x.csv:2: kind "half day" is not holiday, special or clearing',
    );
  });

  it('rejects an empty file, a header alone, broken quoting, and a file that is no holiday list', () => {
    expect(errorOf('x.csv', '').message).toBe('x.csv:1: the file is empty');
    expect(errorOf('x.csv', '\uFEFF\n').message).toBe('x.csv:1: the file is empty');
    expect(errorOf('x.csv', 'date\n').message).toBe('x.csv:1: the file lists no holidays');
    expect(errorOf('x.csv', 'date,description\n2027-01-26,"Republic Day\n').message).toMatch(
      /^x\.csv:\d+: not valid CSV: /,
    );
    expect(
      errorOf('x.csv', 'Date,Index Name,PE,PB,DivYield\n01 Jul 2026,Nifty 50,20.7,3.13,1.23\n').message,
    ).toMatch(/^x\.csv:1: not a holiday list/);
  });
});
