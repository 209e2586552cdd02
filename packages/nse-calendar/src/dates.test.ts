import { describe, expect, it } from 'vitest';
import { addDays, day, formatDay } from './dates.ts';

describe('addDays', () => {
  it('counts calendar days across months, years and leap days', () => {
    expect(addDays('2026-03-31', 1)).toBe('2026-04-01');
    expect(addDays('2026-01-01', -1)).toBe('2025-12-31');
    expect(addDays('2028-02-28', 1)).toBe('2028-02-29');
    expect(addDays('2026-02-27', 2)).toBe('2026-03-01');
    expect(addDays('2025-12-31', 366)).toBe('2027-01-01');
    expect(addDays('2026-03-15', 0)).toBe('2026-03-15');
  });

  it('agrees with day numbers', () => {
    for (const [date, n] of [
      ['2026-03-15', -400],
      ['2024-02-29', 365],
      ['1999-12-31', 1],
    ] as const) {
      expect(addDays(date, n)).toBe(formatDay(day(date) + n));
    }
  });

  it('throws on text that is not a date', () => {
    expect(() => addDays('2026-1-05', 1)).toThrow(RangeError);
    expect(() => addDays('', 1)).toThrow(RangeError);
  });
});
