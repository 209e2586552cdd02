import type { SettlementEvent } from '@mdp/usage';
import { describe, expect, it } from 'vitest';
import { AccountBook } from '../admission/account-book.ts';
import type { BatchResult } from './projections.ts';
import { settle } from './settle.ts';

const T = Date.parse('2026-03-14T10:00:00Z');
const caps = { daily: 2, monthly: null };
const burst = { daily: null, monthly: null, burst: 2 };

const none = { rest: 0, mcp: 0 };

/** A book with account `a`'s day and month loaded, nothing charged yet. */
function bookWithA(): AccountBook {
  const book = new AccountBook(30_000, () => 0);
  book.loaded('a', { day: '2026-03-14', dayCharged: none, month: '2026-03', monthCharged: none }, T);
  return book;
}

const charged = (request_id: string, admitted_at_ms: number): SettlementEvent => ({
  v: 1,
  request_id,
  account_id: 'a',
  kind: 'charged',
  admitted_at_ms,
  settled_at_ms: admitted_at_ms + 50,
  route: 'getQuote',
  status: 200,
});

/** What the projections answer for these events, all new and charged to `a` on the 14th. */
const recorded = (events: SettlementEvent[], late = 0): BatchResult => ({
  recorded: events.length,
  late,
  deltas: [{ accountId: 'a', day: '2026-03-14', month: '2026-03', via: 'rest', delta: events.length }],
});

describe('settle', () => {
  it('turns the hold of a recorded charge into a charged count in one step', () => {
    const book = bookWithA();
    book.startAdmitting(T);
    expect(book.admit('r1', 'a', caps, T)).toMatchObject({ kind: 'admitted' });
    const events = [charged('r1', T)];
    expect(settle(book, recorded(events), events, T + 100)).toEqual({ late: 0 });
    expect(book.inFlight).toBe(0);
    expect(book.usage('a', T + 100).used).toEqual({ day: 1, month: 1 });
    // Counted once: the charge took the hold's place against the cap.
    expect(book.admit('r2', 'a', caps, T + 100)).toMatchObject({ kind: 'admitted' });
    expect(book.admit('r3', 'a', caps, T + 100)).toMatchObject({ kind: 'quota_exhausted' });
  });

  it('counts a charge admitted before this process in the burst window', () => {
    const book = bookWithA();
    const events = [charged('p1', T - 10_000)];
    settle(book, recorded(events), events, T);
    book.startAdmitting(T);
    expect(book.admit('n1', 'a', burst, T + 1)).toMatchObject({ kind: 'admitted', burst: { remaining: 0 } });
    expect(book.admit('n2', 'a', burst, T + 1)).toMatchObject({ kind: 'rate_limited' });
  });

  it('reports the events of a sealed day that the log left out', () => {
    const book = bookWithA();
    const events = [charged('r1', T), charged('r2', T)];
    expect(settle(book, { recorded: 0, late: 2, deltas: [] }, events, T + 100)).toEqual({ late: 2 });
    expect(book.usage('a', T + 100).used).toEqual({ day: 0, month: 0 });
  });
});
