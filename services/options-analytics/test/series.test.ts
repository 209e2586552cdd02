import { addDays } from '@mdp/nse-calendar';
import { describe, expect, it } from 'vitest';
import { ivStandings, MIN_RANK_OBSERVATIONS } from '../src/analytics/iv-rank.ts';
import { putCallRatios } from '../src/analytics/put-call-ratio.ts';
import { realisedVol, TRADING_DAYS_PER_YEAR } from '../src/analytics/realised-vol.ts';

describe('put-call ratios', () => {
  it('divides puts by calls, null without calls', () => {
    expect(putCallRatios({ callOi: 200, putOi: 150, callVolume: 10, putVolume: 30 })).toEqual({
      oi: 0.75,
      volume: 3,
    });
    expect(putCallRatios({ callOi: 0, putOi: 150, callVolume: 0, putVolume: 30 })).toEqual({
      oi: null,
      volume: null,
    });
  });
});

describe('realised volatility', () => {
  it('annualises the sample standard deviation of log returns by √252', () => {
    // Returns alternating +a, −a: mean 0, sample variance 20a²/19.
    const a = 0.01;
    const closes = [100];
    for (let i = 0; i < 20; i++) closes.push(closes.at(-1)! * Math.exp(i % 2 === 0 ? a : -a));
    expect(realisedVol(closes)).toBeCloseTo(Math.sqrt(((20 * a * a) / 19) * TRADING_DAYS_PER_YEAR), 12);
  });

  it('removes the mean: a steady trend has no volatility', () => {
    const closes = Array.from({ length: 30 }, (_, i) => 100 * Math.exp(0.003 * i));
    expect(realisedVol(closes)).toBeCloseTo(0, 10);
  });

  it('uses only the last window and needs window + 1 closes', () => {
    const noisy = [100, 150, 80, 120];
    const calm = Array.from({ length: 21 }, (_, i) => 100 * Math.exp(i % 2 === 0 ? 0.01 : -0.01));
    expect(realisedVol([...noisy, ...calm])).toBeCloseTo(realisedVol(calm)!, 12);
    expect(realisedVol(calm.slice(1))).toBeNull();
    expect(realisedVol([...calm.slice(0, 10), 0, ...calm.slice(11)])).toBeNull();
  });
});

describe('IV rank and percentile over the trailing year', () => {
  const days = (n: number, start = '2025-01-01') => Array.from({ length: n }, (_, i) => addDays(start, i));

  it('ranks against min and max and counts the earlier days below', () => {
    const ivs = Array.from({ length: 30 }, (_, i) => 0.1 + i * 0.01); // rising: today is the maximum
    const series = days(30).map((date, i) => ({ date, iv: ivs[i]! }));
    const last = ivStandings(series).at(-1)!;
    expect(last.rank).toBeCloseTo(100, 12);
    expect(last.percentile).toBeCloseTo(100, 12);
    const dip = ivStandings([...series, { date: addDays(series.at(-1)!.date, 1), iv: 0.145 }]).at(-1)!;
    // min 0.10, max 0.39: (0.145 − 0.10)/0.29; 5 of the 30 earlier days (0.10 … 0.14) are below.
    expect(dip.rank).toBeCloseTo((0.045 / 0.29) * 100, 10);
    expect(dip.percentile).toBeCloseTo((5 / 30) * 100, 10);
  });

  it('forgets observations older than a year and needs enough of them', () => {
    const old = days(MIN_RANK_OBSERVATIONS, '2024-01-01').map((date) => ({ date, iv: 0.9 }));
    const recent = days(MIN_RANK_OBSERVATIONS - 1, '2025-06-01').map((date, i) => ({
      date,
      iv: 0.2 + i * 0.001,
    }));
    const standings = ivStandings([...old, ...recent]);
    expect(standings.at(-1)).toEqual({ rank: null, percentile: null });
    const more = [...recent, { date: '2025-07-01', iv: 0.2 }];
    const s = ivStandings([...old, ...more]).at(-1)!;
    expect(s.rank).toBeCloseTo(0, 12); // the year-old 0.9s no longer count
    expect(s.percentile).toBe(0);
  });

  it('skips days without an IV', () => {
    const series = days(25).map((date, i) => ({ date, iv: i === 3 ? null : 0.1 + i * 0.001 }));
    const standings = ivStandings(series);
    expect(standings[3]).toEqual({ rank: null, percentile: null });
    expect(standings.at(-1)!.percentile).toBe(100);
  });
});
