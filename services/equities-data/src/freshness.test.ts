import { day } from '@mdp/nse-calendar';
import { describe, expect, it } from 'vitest';
import { sessionsBehind } from './freshness.ts';

// 2026-11-20 is a Friday; 2026-11-23 a Monday.
const ist = (iso: string) => Date.parse(`${iso}+05:30`);

describe('sessionsBehind', () => {
  it('is 0 when the last completed session is loaded, until the next day data is out at 16:00 IST', () => {
    expect(sessionsBehind(day('2026-11-20'), ist('2026-11-23T15:59:00'))).toBe(0);
    expect(sessionsBehind(day('2026-11-20'), ist('2026-11-23T16:00:00'))).toBe(1);
  });

  it('counts trading sessions only: weekends and NSE holidays are not days behind', () => {
    expect(sessionsBehind(day('2026-11-20'), ist('2026-11-22T12:00:00'))).toBe(0);
    // 19, 20 and 23 November; the 24th (Guru Nanak Jayanti) is an NSE holiday.
    expect(sessionsBehind(day('2026-11-18'), ist('2026-11-24T18:00:00'))).toBe(3);
    expect(sessionsBehind(day('2026-11-23'), ist('2026-11-24T18:00:00'))).toBe(0);
  });

  it('does not count a special session whose files have not come (the Budget session on Sunday 1 February 2026)', () => {
    expect(sessionsBehind(day('2026-01-30'), ist('2026-02-01T18:00:00'))).toBe(0);
    expect(sessionsBehind(day('2026-01-30'), ist('2026-02-02T18:00:00'))).toBe(1);
    expect(sessionsBehind(day('2026-02-01'), ist('2026-02-02T18:00:00'))).toBe(1);
  });

  it('is NaN when nothing is loaded, and 0 for data ahead of the calendar', () => {
    expect(sessionsBehind(undefined, ist('2026-11-24T18:00:00'))).toBeNaN();
    expect(sessionsBehind(day('2026-11-25'), ist('2026-11-24T18:00:00'))).toBe(0);
  });
});
