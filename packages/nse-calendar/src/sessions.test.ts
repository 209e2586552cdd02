import { describe, expect, it } from 'vitest';
import { formatDay } from './dates.ts';
import { lastCompletedSession } from './sessions.ts';

describe('the last completed session (the default end day of generated data)', () => {
  it('is the last completed session by the IST clock', () => {
    const at = (iso: string) => formatDay(lastCompletedSession(Date.parse(iso)));
    expect(at('2026-11-20T11:00:00Z')).toBe('2026-11-20'); // Friday 16:30 IST, after the close
    expect(at('2026-11-20T04:30:00Z')).toBe('2026-11-19'); // Friday 10:00 IST, in session
    expect(at('2026-11-22T06:30:00Z')).toBe('2026-11-20'); // Sunday
    expect(at('2026-11-25T04:30:00Z')).toBe('2026-11-23'); // the day after the Guru Nanak Jayanti holiday
  });
});
