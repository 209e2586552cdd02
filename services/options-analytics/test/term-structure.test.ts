import { describe, expect, it } from 'vitest';
import { frontMonthly } from '../src/analytics/summary.ts';
import { constantMaturityValue, constantMaturityVol } from '../src/analytics/term-structure.ts';
import { daysBetween, marketCloseMs, yearsToExpiry } from '../src/analytics/time.ts';

describe('30-day constant maturity', () => {
  it('interpolates ATM IV linearly in total variance between the bracketing expiries', () => {
    const v = constantMaturityVol([
      { days: 11, value: 0.2 },
      { days: 39, value: 0.16 },
    ]);
    const w = 0.04 * 11 + ((0.0256 * 39 - 0.04 * 11) * (30 - 11)) / (39 - 11);
    expect(v).toBeCloseTo(Math.sqrt(w / 30), 14);
  });

  it('leaves out expiries under 7 days when a later one exists, and extrapolates flat', () => {
    expect(
      constantMaturityVol([
        { days: 3, value: 0.5 },
        { days: 45, value: 0.2 },
      ]),
    ).toBe(0.2);
    expect(constantMaturityVol([{ days: 3, value: 0.5 }])).toBe(0.5);
    expect(
      constantMaturityVol([
        { days: 10, value: 0.2 },
        { days: 20, value: 0.25 },
      ]),
    ).toBe(0.25);
    expect(constantMaturityVol([{ days: 10, value: null }])).toBeNull();
  });

  it('interpolates other quantities (skew) linearly in time', () => {
    expect(
      constantMaturityValue([
        { days: 20, value: 0.02 },
        { days: 40, value: 0.04 },
      ]),
    ).toBeCloseTo(0.03, 14);
  });
});

describe('front monthly expiry', () => {
  it("is the earliest expiry that is its month's last: NIFTY's weeklies are skipped", () => {
    expect(frontMonthly(['2026-04-07', '2026-04-13', '2026-04-21', '2026-04-28', '2026-05-26'])).toBe(
      '2026-04-28',
    );
    // 30 March 2026 is the March monthly (31 March, a Tuesday, was a holiday).
    expect(frontMonthly(['2026-03-30', '2026-04-07', '2026-04-28'])).toBe('2026-03-30');
    expect(frontMonthly([])).toBeNull();
  });
});

describe('time to expiry', () => {
  it('runs from close (15:30 IST = 10:00 UTC) to close in years of 365 days', () => {
    expect(new Date(marketCloseMs('2026-03-27')).toISOString()).toBe('2026-03-27T10:00:00.000Z');
    expect(yearsToExpiry(marketCloseMs('2026-03-27'), '2026-03-30')).toBeCloseTo(3 / 365, 15);
    expect(yearsToExpiry(marketCloseMs('2026-03-30'), '2026-03-30')).toBe(0);
    expect(daysBetween('2026-03-27', '2026-04-28')).toBe(32);
  });
});
