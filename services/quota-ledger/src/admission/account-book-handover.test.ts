import { describe, expect, it } from 'vitest';
import { AccountBook } from './account-book.ts';
import { chargedCounts } from './charged-counts.ts';

const T = Date.parse('2026-03-14T10:00:00Z');
const TTL = 30_000;
const caps = { daily: 5, monthly: null, burst: null };
const counts = (day: number) => chargedCounts(T, day);

describe('AccountBook hand-overs', () => {
  it('a stopping shard lists every request it holds, with its admission time and front door', () => {
    const book = new AccountBook(TTL, () => 0);
    book.loaded('a', counts(0), T);
    book.admit('r1', 'a', caps, T, 'rest');
    book.admit('r2', 'a', caps, T + 5, 'mcp');
    book.release('r1', 'a');
    expect(book.heldRequests()).toEqual([{ accountId: 'a', requestId: 'r2', admittedAt: T + 5, via: 'mcp' }]);
  });

  it('the new owner holds what was handed over until the old subject is recorded past each hold, then reads the counts again', () => {
    const book = new AccountBook(TTL, () => 0);
    // Two charged in the log, two in flight at the old owner's stop.
    book.loaded('a', counts(2), T);
    expect(
      book.adopt(
        'a',
        [
          { requestId: 'h1', admittedAt: T - 1_000, via: 'rest' },
          { requestId: 'h2', admittedAt: T - 500, via: 'rest' },
          // Long expired: nothing to hold.
          { requestId: 'old', admittedAt: T - 60_000, via: 'rest' },
        ],
        0,
        T,
      ),
    ).toBe(2);
    expect(book.usage('a', T).used.day).toBe(4);
    expect(book.admit('x', 'a', caps, T)).toMatchObject({ kind: 'admitted', rateLimit: { remaining: 0 } });
    expect(book.admit('y', 'a', caps, T)).toMatchObject({ kind: 'quota_exhausted' });
    // Its own subject recorded far ahead, the old one not: x (never settled) expires, the handed-over
    // holds stay.
    const later = T + TTL + 1_000;
    book.sweep(later, { recordedThrough: later, subjectRecordedThrough: () => T });
    expect(book.usage('a', later).used.day).toBe(4);
    // Subject 0 recorded past both: released, and the counts are to be read again (h1 was charged there).
    book.sweep(later, { recordedThrough: later, subjectRecordedThrough: (s) => (s === 0 ? later : 0) });
    expect(book.missingPeriods('a', later)).toEqual({ day: '2026-03-14', month: '2026-03' });
    book.loaded('a', counts(3), later);
    expect(book.usage('a', later).used.day).toBe(3);
  });
});
