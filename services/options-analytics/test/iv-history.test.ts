import { day, formatDay, tradingDays } from '@mdp/nse-calendar';
import { describe, expect, it } from 'vitest';
import type { DailyRow } from '../src/domain/daily-row.ts';
import {
  barInterval,
  ivBars,
  monthsBefore,
  rangeStart,
  rollingRealisedVol,
} from '../src/service/iv-history.ts';

const row = (tradeDate: string, close: number, atmIv: number | null = 0.15): DailyRow => ({
  underlying: 'X',
  tradeDate,
  close,
  atmIv,
  skew25d: 0.02,
  pcrOi: 0.9,
  pcrVolume: 1.1,
  maxPain: 100,
  maxPainExpiry: '2026-12-29',
  source: 'test',
});

describe('IV history ranges and bars', () => {
  it('counts ranges back from the last day, in calendar months', () => {
    expect(monthsBefore('2026-03-31', 1)).toBe('2026-02-28');
    expect(monthsBefore('2026-11-20', 12)).toBe('2025-11-20');
    expect(rangeStart('2026-11-20', '1m')).toBe('2026-10-21');
    expect(rangeStart('2026-11-20', '5y')).toBe('2021-11-21');
    expect(rangeStart('2026-11-20', 'max')).toBeNull();
  });

  it('serves 1m to 1y as daily bars and 2y, 5y and max as weekly ones', () => {
    expect(['1m', '3m', '6m', '1y'].map((r) => barInterval(r as never))).toEqual(['1d', '1d', '1d', '1d']);
    expect(['2y', '5y', 'max'].map((r) => barInterval(r as never))).toEqual(['1w', '1w', '1w']);
  });

  it('makes a weekly bar of each week’s last trading day, after computing rank and realised vol daily', () => {
    const days = tradingDays(day('2026-01-01'), day('2026-03-27')).map(formatDay);
    const rows = days.map((d, i) => row(d, 100 * Math.exp(0.01 * Math.sin(i)), 0.1 + 0.001 * i));
    const daily = ivBars(rows, '2026-02-02', '1d');
    const weekly = ivBars(rows, '2026-02-02', '1w');
    expect(daily[0]!.date).toBe('2026-02-02');
    expect(weekly.map((b) => b.date).slice(0, 3)).toEqual(['2026-02-06', '2026-02-13', '2026-02-20']);
    expect(weekly.at(-1)!.date).toBe('2026-03-27');
    expect(weekly.at(-1)).toEqual(daily.at(-1));
    expect(daily.at(-1)!.iv_rank).toBe(100);
    expect(daily.at(-1)!.atm_iv).toBeCloseTo(100 * (0.1 + 0.001 * (days.length - 1)), 8);
    expect(daily.at(-1)!.realised_vol).not.toBeNull();
  });

  it('computes realised volatility only across consecutive trading days', () => {
    const days = tradingDays(day('2026-01-01'), day('2026-02-27')).map(formatDay);
    const withGap = days.filter((d) => d !== '2026-01-20').map((d, i) => row(d, 100 + (i % 2)));
    const rv = rollingRealisedVol(withGap, 20);
    const after = withGap.findIndex((r) => r.tradeDate === '2026-01-21');
    expect(rv.slice(after, after + 20).every((v) => v === null)).toBe(true);
    expect(rv[after + 20]).not.toBeNull();
  });

  it('takes a special session missing from the data for no gap (the Budget Sunday, 1 February 2026)', () => {
    const days = tradingDays(day('2025-12-01'), day('2026-02-27')).map(formatDay);
    expect(days).toContain('2026-02-01');
    const without = days.filter((d) => d !== '2026-02-01').map((d, i) => row(d, 100 + (i % 2)));
    const rv = rollingRealisedVol(without, 20);
    const monday = without.findIndex((r) => r.tradeDate === '2026-02-02');
    expect(monday).toBeGreaterThan(21);
    expect(rv[monday]).not.toBeNull();
    expect(rv.slice(monday)).not.toContain(null);
  });
});
