import { describe, expect, it } from 'vitest';
import { AccountBook } from './account-book.ts';

const T = Date.parse('2026-03-14T10:00:00Z');
const caps = { daily: 2, monthly: null };
const loaded = (book: AccountBook, account: string, at = T) =>
  book.loaded(account, { day: '2026-03-14', dayCharged: 0, month: '2026-03', monthCharged: 0 }, at);

describe('AccountBook', () => {
  it('counts requests in flight against the cap until they settle or expire', () => {
    const book = new AccountBook(30_000);
    loaded(book, 'a');
    expect(book.admit('r1', 'a', caps, T)).toMatchObject({ kind: 'admitted' });
    expect(book.admit('r2', 'a', caps, T)).toMatchObject({ kind: 'admitted' });
    expect(book.admit('r3', 'a', caps, T)).toMatchObject({ kind: 'quota_exhausted' });
    expect(book.inFlight).toBe(2);
    // r1 settles as refunded: its place is free again.
    expect(book.release('r1')).toBe(true);
    expect(book.admit('r4', 'a', caps, T + 1)).toMatchObject({ kind: 'admitted' });
    // Nothing settles r2 or r4: after the hold TTL they are released.
    expect(book.sweep(T + 29_999)).toEqual({ expired: 0, evicted: 0 });
    expect(book.sweep(T + 30_001)).toEqual({ expired: 2, evicted: 0 });
    expect(book.inFlight).toBe(0);
    expect(book.admit('r5', 'a', caps, T + 30_002)).toMatchObject({ kind: 'admitted' });
  });

  it('a charge replaces the hold: the count stays exact', () => {
    const book = new AccountBook(30_000);
    loaded(book, 'a');
    book.admit('r1', 'a', caps, T);
    book.charge({ accountId: 'a', day: '2026-03-14', month: '2026-03', delta: 1 });
    book.release('r1');
    expect(book.usage('a', T)).toEqual({ charged: { day: 1, month: 1 }, inFlight: 0 });
    book.admit('r2', 'a', caps, T);
    expect(book.admit('r3', 'a', caps, T)).toMatchObject({ kind: 'quota_exhausted' });
  });

  it('treats a repeated request id as a duplicate, not a second request', () => {
    const book = new AccountBook(30_000);
    loaded(book, 'a');
    book.admit('r1', 'a', caps, T);
    expect(book.admit('r1', 'a', caps, T)).toBe('duplicate');
    expect(book.inFlight).toBe(1);
  });

  it('needs the new day loaded after the IST day turns, and forgets idle accounts', () => {
    const book = new AccountBook(1_000);
    loaded(book, 'a');
    expect(book.missingPeriods('a', T)).toBeNull();
    expect(book.missingPeriods('a', Date.parse('2026-03-14T18:30:00Z'))).toEqual({
      day: '2026-03-15',
      month: '2026-03',
    });
    expect(book.sweep(T + 11 * 60_000)).toEqual({ expired: 0, evicted: 1 });
    expect(book.missingPeriods('a', T)).toEqual({ day: '2026-03-14', month: '2026-03' });
  });
});
