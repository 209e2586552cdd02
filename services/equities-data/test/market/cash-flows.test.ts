import { join } from 'node:path';
import type { CashFlowRow } from '@mdp/market';
import { day, formatDay, tradingDays } from '@mdp/nse-calendar';
import { describe, expect, it } from 'vitest';
import { fiiDiiDocument, streak } from '../../src/areas/market/domain/cash-flows.ts';
import { monthsBefore } from '../../src/areas/market/domain/periods.ts';
import { fiiDiiCash } from '../../src/areas/market/importers/cash.ts';
import { readSource } from '../../src/importers/csv.ts';
import { REALDATA } from '../support.ts';

const real = fiiDiiCash
  .parse(readSource(join(REALDATA, 'fii_dii_cash_monthly_2007-2026.csv')))
  .rows.map((r) => r.value as CashFlowRow);
const TODAY = day('2026-11-22');

describe('FII/DII arithmetic on the real monthly figures (fii_dii_cash_monthly_2007-2026.csv)', () => {
  const doc = fiiDiiDocument(real, TODAY)!;

  it('counts the current streaks in months', () => {
    // FII net, newest first: 2026-01 -43772.88, 2025-12 -34349.62, 2025-11 -17500.31, 2025-10 -35301.36,
    // 2025-09 -2346.89, 2025-08 -46902.92, 2025-07 -47666.68; 2025-06 was +7488.98, ending the run.
    // Seven months of selling, -227840.66 crore in all.
    expect(doc.streaks.fii).toEqual({
      direction: 'selling',
      length: 7,
      unit: 'month',
      from: '2025-07-01',
      to: '2026-01-27',
      amount: -227_840.66,
    });
    // DII net is positive every month from 2023-08 (2023-07 was -1184.33): 30 months, 1475543.32 crore.
    expect(doc.streaks.dii).toMatchObject({
      direction: 'buying',
      length: 30,
      from: '2023-08-01',
      amount: 1_475_543.32,
    });
  });

  it('sums calendar years from the months', () => {
    const y = (year: number) => doc.yearly.find((r) => r.year === year)!;
    expect(doc.yearly.map((r) => r.year)).toEqual(Array.from({ length: 20 }, (_, i) => 2026 - i));
    // 2025: twelve months; FII net -87374.66 -58988.08 +2014.18 +2735.02 +11773.25 +7488.98 -47666.68
    // -46902.92 -2346.89 -35301.36 -17500.31 -34349.62 = -306419.09 (gross 3447952.40 bought, 3754371.49 sold).
    expect(y(2025)).toMatchObject({
      from: '2025-01-01',
      to: '2025-12-31',
      sessions: null,
      fii: { buy: 3_447_952.4, sell: 3_754_371.49, net: -306_419.09 },
      dii: { net: 788_184.38 },
    });
    // 2007 starts in April: nine months, FII net -351.16, DII net 24354.37.
    expect(y(2007)).toMatchObject({ from: '2007-04-01', fii: { net: -351.16 }, dii: { net: 24_354.37 } });
    // 2026 holds January to the 27th only.
    expect(y(2026)).toMatchObject({
      to: '2026-01-27',
      fii: { buy: 228_507.36, sell: 272_280.24, net: -43_772.88 },
    });
  });

  it('lists the last twelve months newest first, and has no sessions or weeks to show', () => {
    expect(doc.monthly.map((m) => m.month)).toEqual([
      '2026-01',
      '2025-12',
      '2025-11',
      '2025-10',
      '2025-09',
      '2025-08',
      '2025-07',
      '2025-06',
      '2025-05',
      '2025-04',
      '2025-03',
      '2025-02',
    ]);
    expect(doc.monthly[1]).toMatchObject({ fii: { buy: 249_054.9, sell: 283_404.52, net: -34_349.62 } });
    expect(doc.sessions).toEqual([]);
    expect(doc.weekly).toEqual([]);
    expect(doc.as_of).toBe('2026-01-27');
  });

  it('sums cumulative flows over whole months', () => {
    // The year to 2026-01-27 holds 2025-02 .. 2026-01: FII -262817.31, DII 765415.00.
    expect(doc.cumulative.one_year).toEqual({
      from: '2025-02-01',
      to: '2026-01-27',
      fii_net: -262_817.31,
      dii_net: 765_415,
    });
    expect(doc.cumulative.year_to_date).toMatchObject({ fii_net: -43_772.88, dii_net: 63_822.42 });
    expect(doc.cumulative.month_to_date).toMatchObject({ from: '2026-01-01', fii_net: -43_772.88 });
    // All 226 months: FII -870664.16, DII 2217439.56.
    expect(doc.cumulative.all_held).toMatchObject({
      from: '2007-04-01',
      fii_net: -870_664.16,
      dii_net: 2_217_439.56,
    });
    expect(doc.cumulative.last_30_sessions).toBeNull();
  });

  it('charts the cumulative flow month by month', () => {
    const c = fiiDiiDocument(real, TODAY, '6m')!.chart!;
    // Six months before 2026-01-27: months starting after 2025-07-27, i.e. 2025-08 .. 2026-01.
    expect(c.points.map((p) => p.date)).toEqual([
      '2025-08-31',
      '2025-09-30',
      '2025-10-31',
      '2025-11-30',
      '2025-12-31',
      '2026-01-27',
    ]);
    expect(c.points.every((p) => p.period === 'month')).toBe(true);
    // -46902.92 -2346.89 -35301.36 -17500.31 -34349.62 -43772.88 = -180173.98
    expect(c.points.at(-1)!.fii_cumulative).toBe(-180_173.98);
  });

  it('serves only what is dated up to today', () => {
    const doc2019 = fiiDiiDocument(real, day('2019-12-30'))!;
    expect(doc2019.as_of).toBe('2019-11-30');
    expect(fiiDiiDocument(real, day('2007-04-29'))).toBeUndefined();
  });
});

// Hand-made sessions: FII net +1, +2, -3, -4, -5 crore (newest last); DII net 0 on the last day.
const session = (d: string, fiiNet: number, diiNet: number): CashFlowRow => ({
  period: 'day',
  d: day(d),
  fiiBuy: 1_000_000 + fiiNet * 100,
  fiiSell: 1_000_000,
  diiBuy: 500_000 + diiNet * 100,
  diiSell: 500_000,
});

describe('FII/DII arithmetic on sessions', () => {
  const rows = [
    session('2025-11-17', 1, 7),
    session('2025-11-18', 2, 7),
    session('2025-11-19', -3, 7),
    session('2025-11-20', -4, 7),
    session('2025-11-21', -5, 0),
  ];

  it('counts a streak in sessions and ends it at a change of sign or a zero', () => {
    expect(streak(rows, 'fii')).toEqual({
      direction: 'selling',
      length: 3,
      unit: 'session',
      from: '2025-11-19',
      to: '2025-11-21',
      amount: -12,
    });
    expect(streak(rows, 'dii')).toMatchObject({ direction: null, length: 0, from: null, amount: 0 });
    expect(streak(rows.slice(0, 4), 'dii')).toMatchObject({ direction: 'buying', length: 4, amount: 28 });
  });

  it('serves the last 30 sessions newest first, weeks from Monday, and months', () => {
    const days = tradingDays(day('2025-09-01'), day('2025-11-21'));
    const many = days.map((d, i) => session(formatDay(d), i % 3 === 0 ? -10 : 5, 1));
    const doc = fiiDiiDocument(many, day('2025-11-22'))!;
    expect(doc.sessions).toHaveLength(30);
    expect(doc.sessions[0]!.date).toBe('2025-11-21');
    expect(doc.sessions.map((s) => s.date)).toEqual(days.slice(-30).reverse().map(formatDay));
    expect(doc.sessions[0]!.fii).toEqual({
      buy: 10_000 + doc.sessions[0]!.fii.net,
      sell: 10_000,
      net: doc.sessions[0]!.fii.net,
    });
    // Week of Monday 2025-11-17: five sessions.
    expect(doc.weekly[0]).toMatchObject({
      week_start: '2025-11-17',
      from: '2025-11-17',
      to: '2025-11-21',
      sessions: 5,
    });
    expect(doc.weekly).toHaveLength(12);
    const nov = days.filter((d) => formatDay(d).startsWith('2025-11'));
    const novNet = nov.reduce((a, d) => a + (days.indexOf(d) % 3 === 0 ? -10 : 5), 0);
    expect(doc.monthly[0]).toMatchObject({ month: '2025-11', sessions: nov.length, fii: { net: novNet } });
    expect(doc.cumulative.last_30_sessions).toMatchObject({
      from: formatDay(days.at(-30)!),
      fii_net: doc.sessions.reduce((a, s) => a + s.fii.net, 0),
    });
    // On a Saturday the latest session is Friday's; on the Thursday before, Thursday's.
    expect(fiiDiiDocument(many, day('2025-11-20'))!.sessions[0]!.date).toBe('2025-11-20');
  });

  it('charts a running total per session, and per week over five years', () => {
    const days = tradingDays(day('2024-01-01'), day('2025-11-21'));
    const many = days.map((d) => session(formatDay(d), 2, -1));
    const oneMonth = fiiDiiDocument(many, day('2025-11-22'), '1m')!.chart!;
    const inMonth = days.filter((d) => d > monthsBefore(day('2025-11-21'), 1));
    expect(oneMonth.from).toBe('2025-10-22');
    expect(oneMonth.points).toHaveLength(inMonth.length);
    expect(oneMonth.points.at(-1)).toMatchObject({
      fii_cumulative: 2 * inMonth.length,
      dii_cumulative: -inMonth.length,
    });
    const fiveYears = fiiDiiDocument(many, day('2025-11-22'), '5y')!.chart!;
    expect(fiveYears.points.every((p) => p.period === 'week')).toBe(true);
    expect(fiveYears.points.at(-1)!.fii_cumulative).toBe(2 * days.length);
  });

  it('takes a month held as a monthly figure into months and years, but not into sessions', () => {
    const mixed: CashFlowRow[] = [
      { period: 'month', d: day('2025-10-31'), fiiBuy: 100_00, fiiSell: 50_00, diiBuy: 0, diiSell: 10_00 },
      ...rows,
    ];
    const doc = fiiDiiDocument(mixed, day('2025-11-22'))!;
    expect(doc.sessions).toHaveLength(5);
    expect(doc.monthly.map((m) => [m.month, m.sessions, m.fii.net])).toEqual([
      ['2025-11', 5, -9],
      ['2025-10', null, 50],
    ]);
    expect(doc.yearly[0]).toMatchObject({ year: 2025, from: '2025-10-01', sessions: null, fii: { net: 41 } });
    expect(doc.streaks.fii.unit).toBe('session');
  });
});
