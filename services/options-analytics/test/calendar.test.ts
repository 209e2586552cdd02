import { readdirSync } from 'node:fs';
import { day, formatDay, isTradingDay, tradingDays } from '@mdp/nse-calendar';
import { describe, expect, it } from 'vitest';
import {
  monthlyExpiry,
  nextMonthlyExpiries,
  nextQuarterlyExpiries,
  nextWeeklyExpiries,
} from '../src/calendar/expiries.ts';
import { NIFTY_BANKNIFTY_DIR, realPath } from './realdata.ts';

describe('NSE trading calendar', () => {
  it('has as trading days of January-March 2026 exactly the days the real bhavcopies exist for', () => {
    const files = readdirSync(realPath(NIFTY_BANKNIFTY_DIR))
      .map((n) => /^NIFTY_(2026-\d{2}-\d{2})\.csv$/.exec(n)?.[1])
      .filter((d): d is string => d !== undefined)
      .sort();
    // The folder has no file of the Union Budget session on Sunday 1 February (the CM bhavcopy of that
    // day exists: test/stocks/domain.test.ts in equities-data); every other session has one.
    const sessions = tradingDays(day('2026-01-01'), day('2026-03-27')).map(formatDay);
    expect(sessions.filter((d) => !files.includes(d))).toEqual(['2026-02-01']);
    expect(files.filter((d) => !sessions.includes(d))).toEqual([]);
    expect(isTradingDay(day('2026-01-15'))).toBe(false); // Maharashtra municipal elections
    expect(isTradingDay(day('2026-03-03'))).toBe(false); // Holi
  });
});

describe('expiry rules', () => {
  it('reproduces the expiries listed on 27 March 2026: Tuesdays, holidays moved to the day before', () => {
    expect(nextWeeklyExpiries('2026-03-27', 6)).toEqual([
      '2026-03-30',
      '2026-04-07',
      '2026-04-13',
      '2026-04-21',
      '2026-04-28',
      '2026-05-05',
    ]);
    expect(nextMonthlyExpiries('2026-03-27', 3)).toEqual(['2026-03-30', '2026-04-28', '2026-05-26']);
    // BANKNIFTY's list on that day: three monthlies and the next quarterlies.
    expect(nextQuarterlyExpiries('2026-03-27', 4)).toEqual([
      '2026-03-30',
      '2026-06-30',
      '2026-09-29',
      '2026-12-29',
    ]);
  });

  it('reproduces the Thursday expiries listed on 1 January 2025, before the move to Tuesdays', () => {
    expect(nextWeeklyExpiries('2025-01-01', 4)).toEqual([
      '2025-01-02',
      '2025-01-09',
      '2025-01-16',
      '2025-01-23',
    ]);
    expect(nextMonthlyExpiries('2025-01-01', 3)).toEqual(['2025-01-30', '2025-02-27', '2025-03-27']);
  });

  it('moves to the previous trading day across holidays and weekends', () => {
    expect(monthlyExpiry(2026, 3)).toBe('2026-03-30');
    expect(monthlyExpiry(2026, 11)).toBe('2026-11-23'); // 24 November 2026: Guru Nanak Jayanti
    expect(monthlyExpiry(2025, 12)).toBe('2025-12-30');
    expect(monthlyExpiry(2024, 12)).toBe('2024-12-26');
  });
});
