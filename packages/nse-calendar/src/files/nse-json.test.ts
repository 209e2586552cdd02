import { describe, expect, it } from 'vitest';
import { errorOf } from './error-of.ts';
import { parseHolidayFile } from './index.ts';

const entry = (
  tradingDate: string,
  weekDay: string,
  description: string,
  Sr_no: number,
  sessions = ['', ''],
) => ({
  tradingDate,
  weekDay,
  description,
  morning_session: sessions[0],
  evening_session: sessions[1],
  Sr_no,
});

const CM = [
  entry('26-Jan-2027', 'Tuesday', 'Republic Day', 1),
  entry('22-Mar-2027', 'Monday', 'Holi', 2),
  entry('26-Mar-2027', 'Friday', 'Good Friday', 3),
  entry('29-Oct-2027', 'Friday', 'Diwali Laxmi Pujan*', 4),
];

/** As https://www.nseindia.com/api/holiday-master?type=trading returns it, for 2027. */
const MASTER = {
  CBM: [entry('26-Jan-2027', 'Tuesday', 'Republic Day', 1)],
  CD: [
    entry('26-Jan-2027', 'Tuesday', 'Republic Day', 1),
    entry('01-Apr-2027', 'Thursday', 'Annual Bank Closing', 2),
  ],
  CM,
  COM: [entry('26-Jan-2027', 'Tuesday', 'Republic Day', 1, ['Closed', 'Open'])],
  FO: [...CM, entry('14-Apr-2027', 'Wednesday', 'Dr. Baba Saheb Ambedkar Jayanti', 5)],
  IRD: [entry('01-Apr-2027', 'Thursday', 'Annual Bank Closing', 1)],
  MF: [],
};

const EXPECTED_DAYS = [
  { date: '2027-01-26', kind: 'holiday', description: 'Republic Day' },
  { date: '2027-03-22', kind: 'holiday', description: 'Holi' },
  { date: '2027-03-26', kind: 'holiday', description: 'Good Friday' },
  { date: '2027-04-14', kind: 'holiday', description: 'Dr. Baba Saheb Ambedkar Jayanti' },
  { date: '2027-10-29', kind: 'special', description: 'Diwali Laxmi Pujan*' },
];

const withCm = (cm: unknown[], fo: unknown[] = []) => JSON.stringify({ CM: cm, FO: fo });

describe("NSE's holiday-master JSON", () => {
  it('takes the equity segments: CM, and FO for a date CM leaves out, each date once', () => {
    const parsed = parseHolidayFile('holidays.json', JSON.stringify(MASTER));
    expect(parsed.form).toBe('nse-holiday-master');
    expect(parsed.years).toEqual([2027]);
    expect(parsed.days).toEqual(EXPECTED_DAYS);
    // Every CM and FO entry is a row; CD, COM, IRD and CBM (Annual Bank Closing among them) are not.
    expect(parsed.rows).toHaveLength(9);
    expect(parsed.rows[8]).toEqual({
      line: 5,
      segment: 'FO',
      date: '2027-04-14',
      kind: 'holiday',
      description: 'Dr. Baba Saheb Ambedkar Jayanti',
    });
    expect(parsed.days.map((d) => d.date)).not.toContain('2027-04-01');
  });

  it('reads the list wrapped in "data", or a bare list of CM entries, pretty-printed or not', () => {
    const wrapped = parseHolidayFile('h.json', JSON.stringify({ data: MASTER }, null, 2));
    expect(wrapped.days).toEqual(EXPECTED_DAYS);
    const bare = parseHolidayFile('h.json', `\uFEFF${JSON.stringify(CM, null, 1)}`);
    expect(bare.days).toEqual(EXPECTED_DAYS.filter((d) => d.date !== '2027-04-14'));
    expect(bare.rows.every((r) => r.segment === 'CM')).toBe(true);
  });

  it('makes a session held on the holiday special: a Muhurat note, or a morning or evening session', () => {
    const parsed = parseHolidayFile(
      'h.json',
      withCm([
        entry('29-Oct-2027', 'Friday', 'Diwali Laxmi Pujan (Muhurat Trading)', 1),
        entry('31-Jan-2027', 'Sunday', 'Union Budget', 2, ['09:15-15:30', '']),
        entry('22-Mar-2027', 'Monday', 'Holi', 3, ['Closed', '']),
      ]),
    );
    expect(parsed.days.map((d) => [d.date, d.kind])).toEqual([
      ['2027-01-31', 'special'],
      ['2027-03-22', 'holiday'],
      ['2027-10-29', 'special'],
    ]);
  });

  it('takes the clearing list (named so, or keyed by clearingDate) as clearing days', () => {
    const named = parseHolidayFile('holiday-master-clearing.json', JSON.stringify(MASTER));
    expect(new Set(named.days.map((d) => d.kind))).toEqual(new Set(['clearing']));
    const keyed = parseHolidayFile(
      'download.json',
      JSON.stringify({
        CM: [{ clearingDate: '01-Apr-2027', weekDay: 'Thursday', description: 'Annual Bank Closing' }],
      }),
    );
    expect(keyed.days).toEqual([
      { date: '2027-04-01', kind: 'clearing', description: 'Annual Bank Closing' },
    ]);
  });

  it('names the segment and entry of a date that is not one', () => {
    const err = errorOf(
      'holidays.json',
      withCm([CM[0], CM[1], entry('31-Feb-2027', 'Wednesday', 'Holi', 3)]),
    );
    expect(err.message).toBe('holidays.json: CM entry 3: "31-Feb-2027" is not a date');
    expect([err.file, err.line, err.segment]).toEqual(['holidays.json', 3, 'CM']);
  });

  it('rejects a cut-short download wherever it was cut, naming its last line', () => {
    const text = JSON.stringify(MASTER, null, 1);
    for (const keep of [1, 15, 700, 1234, text.length - 200, text.length - 1]) {
      const cut = text.slice(0, keep);
      const err = errorOf('holidays.json', cut);
      expect(err.message, cut.slice(-30)).toMatch(/^holidays\.json:\d+: the JSON ends early/);
      expect(err.line).toBe(cut.trimEnd().split('\n').length);
    }
    expect(errorOf('h.json', '{"CM": [] x}').message).toMatch(/^h\.json:1: not valid JSON: /);
  });

  it('rejects a weekday that disagrees with the date (a mistyped date)', () => {
    const err = errorOf('h.json', withCm(CM, [entry('26-Jan-2027', 'Monday', 'Republic Day', 1)]));
    expect(err.message).toBe('h.json: FO entry 1: 2027-01-26 is a Tuesday, but the row says Monday');
  });

  it('rejects a holiday on a weekend', () => {
    const err = errorOf('h.json', withCm([...CM, entry('30-Oct-2027', '', 'Diwali Balipratipada', 5)]));
    expect(err.message).toBe(
      'h.json: CM entry 5: 2027-10-30 is a Saturday: the exchange lists weekday holidays only',
    );
  });

  it('rejects a date CM and FO list as different kinds', () => {
    const err = errorOf('h.json', withCm(CM, [entry('29-Oct-2027', 'Friday', 'Diwali Laxmi Pujan', 1)]));
    expect(err.message).toBe(
      'h.json: FO entry 1: 2027-10-29 is listed as holiday here but as special at CM entry 4',
    );
  });

  it('rejects a list with no equity segment, an entry with no date, and an empty list', () => {
    expect(errorOf('h.json', JSON.stringify({ CD: MASTER.CD })).message).toMatch(
      /^h\.json:1: not NSE's holiday master: no CM or FO segment \(found CD\)/,
    );
    expect(errorOf('h.json', withCm([CM[0], { description: 'Holi' }])).message).toBe(
      'h.json: CM entry 2: has no tradingDate',
    );
    expect(errorOf('h.json', withCm([CM[0], 'Holi'])).message).toBe('h.json: CM entry 2: is not an object');
    expect(errorOf('h.json', withCm([])).message).toBe('h.json:1: the file lists no holidays');
  });
});
