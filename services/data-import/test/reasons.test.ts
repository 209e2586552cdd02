import { describe, expect, it } from 'vitest';
import { groupReasons, groupUnrecognised, kindOfReason } from '../src/reasons.ts';

// Rejection reasons grouped by kind: the reason's template is the kind, what varies are its values, and
// the groups still count every rejection.

describe('the kind of a reason', () => {
  it.each([
    [
      "no price bar held for this stock on 2019-01-09 (import that day's bhavcopy first)",
      "no price bar held for this stock on <date> (import that day's bhavcopy first)",
      ['2019-01-09'],
    ],
    ['ISIN "INE0GYU23027 *" is not a valid ISIN', 'ISIN "<value>" is not a valid ISIN', ['INE0GYU23027 *']],
    ['side "X" is neither BUY nor SELL', 'side "<value>" is neither BUY nor SELL', ['X']],
    ['series N0 is not equity', 'series <series> is not equity', ['N0']],
    ['series (none) is not equity', 'series <series> is not equity', ['(none)']],
    [
      "another row (series BE) gives this stock's price that day",
      "another row (series <series>) gives this stock's price that day",
      ['BE'],
    ],
    ['record type 30 is not a security-wise row', 'record type <type> is not a security-wise row', ['30']],
    [
      'status Active: only Delisted and Suspended rows are loaded from this list',
      'status <status>: only Delisted and Suspended rows are loaded from this list',
      ['Active'],
    ],
    [
      'status Suspended: the scrip master loads active scrips only',
      'status <status>: the scrip master loads active scrips only',
      ['Suspended'],
    ],
    [
      'FY2023 standalone revenue 22209.97 exceeds the sum of its quarters (17783.47): year not imported',
      '<period> <basis> revenue <number> exceeds the sum of its quarters (<number>): year not imported',
      ['FY2023', 'standalone', '22209.97', '17783.47'],
    ],
    ['not well-formed XML: Unexpected close tag', 'not well-formed XML: <error>', ['Unexpected close tag']],
    [
      'no kind matches its name and first line ("Date,Open,High")',
      'no kind matches its name and first line ("<value>")',
      ['Date,Open,High'],
    ],
    [
      'it matches several kinds (bhavcopy, delivery)',
      'it matches several kinds (<kinds>)',
      ['bhavcopy, delivery'],
    ],
    ['a total of 1,250 rows and -3.5 more', 'a total of <number> rows and <number> more', ['1,250', '-3.5']],
  ])('%s', (reason, kind, values) => {
    expect(kindOfReason(reason)).toEqual({ kind, values });
  });

  it('a reason without a value is its own kind; names with digits are not values', () => {
    for (const reason of [
      'symbol not in the stock master (import the securities lists first)',
      'not a stock series (debt, rights or other)',
      'no positive P/E',
      'file name does not start with the NSE filing time (ddMonyyyy_hhmm_)',
      'no DateOfEndOfReportingPeriod in the filing',
    ])
      expect(kindOfReason(reason)).toEqual({ kind: reason, values: [] });
  });
});

describe('grouping reasons by kind', () => {
  const bar = (d: string) => `no price bar held for this stock on ${d} (import that day's bhavcopy first)`;

  it('one group per kind: every rejection counted, distinct values, three examples and places', () => {
    const reasons: Record<string, { count: number; at: string[] }> = {};
    // 250 days of 2 to 4 rejections each, as the delivery files of a real folder give.
    let total = 0;
    for (let i = 0; i < 250; i++) {
      const d = new Date(Date.UTC(2019, 0, 1) + i * 86_400_000).toISOString().slice(0, 10);
      const count = 2 + (i % 3);
      total += count;
      reasons[bar(d)] = { count, at: [`MTO_${d}.csv:2`, `MTO_${d}.csv:5`] };
    }
    reasons['symbol not in the stock master (import the securities lists first)'] = {
      count: 1_000,
      at: ['MTO_a.csv:4', 'MTO_a.csv:9', 'MTO_b.csv:1'],
    };
    reasons['series N0 is not equity'] = { count: 3, at: ['bc.csv:12'] };
    reasons['series BL is not equity'] = { count: 2, at: ['bc.csv:162'] };

    const groups = groupReasons(reasons);
    expect(groups).toEqual([
      {
        kind: 'symbol not in the stock master (import the securities lists first)',
        count: 1_000,
        distinct: 0,
        examples: [],
        at: ['MTO_a.csv:4', 'MTO_a.csv:9', 'MTO_b.csv:1'],
      },
      {
        kind: "no price bar held for this stock on <date> (import that day's bhavcopy first)",
        count: total,
        distinct: 250,
        examples: ['2019-01-01', '2019-01-02', '2019-01-03'],
        at: ['MTO_2019-01-01.csv:2', 'MTO_2019-01-01.csv:5', 'MTO_2019-01-02.csv:2'],
      },
      {
        kind: 'series <series> is not equity',
        count: 5,
        distinct: 2,
        examples: ['N0', 'BL'],
        at: ['bc.csv:12', 'bc.csv:162'],
      },
    ]);
    const all = Object.values(reasons).reduce((a, r) => a + r.count, 0);
    expect(groups.reduce((a, g) => a + g.count, 0)).toBe(all);
  });

  it('examples are cut to 40 characters, quoted when they hold a comma or space, and joined per reason', () => {
    const long = `Date,${'X'.repeat(60)}`;
    const [first] = groupReasons({
      [`no kind matches its name and first line ("${long}")`]: { count: 1, at: ['a.csv'] },
    });
    expect(first!.examples).toEqual([JSON.stringify(`${long.slice(0, 39)}…`)]);
    const [revenue] = groupReasons({
      'FY2023 standalone revenue 22209.97 exceeds the sum of its quarters (17783.47): year not imported': {
        count: 1,
        at: ['x.xml:1'],
      },
    });
    expect(revenue!.examples).toEqual(['FY2023 / standalone / 22209.97 / 17783.47']);
  });

  it('files not recognised: one group per kind of reason, the files as places', () => {
    expect(
      groupUnrecognised([
        { path: 'a.csv', reason: 'no kind matches its name and first line ("x")' },
        { path: 'b.csv', reason: 'no kind matches its name and first line ("x")' },
        { path: 'c.csv', reason: 'no kind matches its name and first line ("y")' },
        { path: 'd.csv', reason: 'no kind matches its name and first line ("z")' },
        { path: 'e.csv', reason: 'the file is empty' },
      ]),
    ).toEqual([
      {
        kind: 'no kind matches its name and first line ("<value>")',
        count: 4,
        distinct: 3,
        examples: ['x', 'y', 'z'],
        at: ['a.csv', 'b.csv', 'c.csv'],
      },
      { kind: 'the file is empty', count: 1, distinct: 0, examples: [], at: ['e.csv'] },
    ]);
  });
});
