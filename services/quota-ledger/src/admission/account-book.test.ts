import { BURST_WINDOW_MS, type Caps, decide } from '@mdp/admission';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AccountBook, TIDY_PER_SWEEP, VOID_WAIT_MS } from './account-book.ts';
import { chargedCounts } from './charged-counts.ts';

const T = Date.parse('2026-03-14T10:00:00Z');
const caps = { daily: 2, monthly: null };
const loaded = (book: AccountBook, account: string, at = T) => book.loaded(account, chargedCounts(T), at);

describe('AccountBook', () => {
  it('counts requests in flight against the cap until they settle or expire', () => {
    const book = new AccountBook(30_000, () => 0);
    loaded(book, 'a');
    expect(book.admit('r1', 'a', caps, T)).toMatchObject({ kind: 'admitted' });
    expect(book.admit('r2', 'a', caps, T)).toMatchObject({ kind: 'admitted' });
    expect(book.admit('r3', 'a', caps, T)).toMatchObject({ kind: 'quota_exhausted' });
    expect(book.inFlight).toBe(2);
    // r1 settles as refunded: its place is free again.
    expect(book.release('r1', 'a')).toBe(true);
    expect(book.admit('r4', 'a', caps, T + 1)).toMatchObject({ kind: 'admitted' });
    // Nothing settles r2 or r4: after the hold TTL they are released.
    expect(book.sweep(T + 29_999)).toEqual({ expired: 0, evicted: 0, leasesWrittenOff: 0, stranded: 0 });
    expect(book.sweep(T + 30_001)).toEqual({ expired: 2, evicted: 0, leasesWrittenOff: 0, stranded: 0 });
    expect(book.inFlight).toBe(0);
    expect(book.admit('r5', 'a', caps, T + 30_002)).toMatchObject({ kind: 'admitted' });
  });

  it('holds expire only once the settlements published before their expiry are recorded', () => {
    const book = new AccountBook(30_000, () => 0);
    loaded(book, 'a');
    book.admit('r1', 'a', caps, T);
    book.admit('r2', 'a', caps, T);
    // The consumer is behind (a backlog, or Postgres stalled at T + 10 s): the charges of r1 and r2 may
    // be waiting in JetStream, so the holds stay, however late it is.
    expect(book.sweep(T + 40_000, { recordedThrough: T + 10_000 })).toEqual({
      expired: 0,
      evicted: 0,
      leasesWrittenOff: 0,
      stranded: 0,
    });
    expect(book.admit('r3', 'a', caps, T + 40_000)).toMatchObject({ kind: 'quota_exhausted' });
    expect(book.sweep(T + 80_000, { recordedThrough: T + 29_999 }).expired).toBe(0);
    // Recorded through their expiry and still held: they never settled (their gateway died).
    expect(book.sweep(T + 90_000, { recordedThrough: T + 30_000 }).expired).toBe(2);
    expect(book.admit('r5', 'a', caps, T + 90_000)).toMatchObject({ kind: 'admitted' });
  });

  it('expiry follows the recorded horizon, never ahead of the clock', () => {
    const book = new AccountBook(30_000, () => 0);
    loaded(book, 'a');
    book.admit('r1', 'a', caps, T);
    // A horizon ahead of the ledger's clock (JetStream's clock runs a little ahead) changes nothing.
    expect(book.sweep(T + 29_999, { recordedThrough: T + 40_000 }).expired).toBe(0);
    expect(book.sweep(T + 31_000, { recordedThrough: T + 29_000 }).expired).toBe(0);
    expect(book.sweep(T + 31_000, { recordedThrough: T + 31_000 }).expired).toBe(1);
  });

  it('a charge replaces the hold: the count stays exact', () => {
    const book = new AccountBook(30_000, () => 0);
    loaded(book, 'a');
    book.admit('r1', 'a', caps, T);
    book.charge({ accountId: 'a', day: '2026-03-14', month: '2026-03', via: 'rest', delta: 1 });
    book.release('r1', 'a');
    expect(book.usage('a', T)).toMatchObject({ used: { day: 1, month: 1 }, inFlight: 0 });
    book.admit('r2', 'a', caps, T);
    expect(book.admit('r3', 'a', caps, T)).toMatchObject({ kind: 'quota_exhausted' });
  });

  it('counts every interface against the caps and reports units by interface', () => {
    const book = new AccountBook(30_000, () => 0);
    book.loaded(
      'a',
      {
        day: '2026-03-14',
        dayCharged: { rest: 3, mcp: 2 },
        month: '2026-03',
        monthCharged: { rest: 10, mcp: 4 },
      },
      T,
    );
    const daily7 = { daily: 7, monthly: null };
    expect(book.admit('m1', 'a', daily7, T, 'mcp')).toMatchObject({ kind: 'admitted' });
    expect(book.admit('r1', 'a', daily7, T, 'rest')).toMatchObject({ kind: 'admitted' });
    expect(book.admit('m2', 'a', daily7, T, 'mcp')).toMatchObject({ kind: 'quota_exhausted' });
    expect(book.usage('a', T)).toEqual({
      used: { day: 7, month: 16 },
      byInterface: { day: { rest: 4, mcp: 3 }, month: { rest: 11, mcp: 5 } },
      inFlight: 2,
    });
    // m1 is charged (its hold becomes a charge), r1 is refunded: REST is back to what was charged.
    book.charge({ accountId: 'a', day: '2026-03-14', month: '2026-03', via: 'mcp', delta: 1 });
    book.release('m1', 'a');
    book.release('r1', 'a');
    expect(book.usage('a', T).byInterface).toEqual({ day: { rest: 3, mcp: 3 }, month: { rest: 10, mcp: 5 } });
    expect(book.usage('a', T).used).toEqual({ day: 6, month: 15 });
    // A restored hold keeps its interface.
    book.restore('m3', 'a', T - 1_000, T, 'mcp');
    expect(book.usage('a', T).byInterface.day).toEqual({ rest: 3, mcp: 4 });
  });

  it('treats a repeated request id as a duplicate, not a second request', () => {
    const book = new AccountBook(30_000, () => 0);
    loaded(book, 'a');
    book.admit('r1', 'a', caps, T);
    expect(book.admit('r1', 'a', caps, T)).toBe('duplicate');
    expect(book.inFlight).toBe(1);
  });

  it('keys a request by its account too: the same id in another account is another request', () => {
    const book = new AccountBook(30_000, () => 0);
    loaded(book, 'a');
    loaded(book, 'b');
    expect(book.admit('r1', 'a', caps, T)).toMatchObject({ kind: 'admitted' });
    expect(book.admit('r1', 'b', caps, T)).toMatchObject({ kind: 'admitted' });
    expect(book.inFlight).toBe(2);
    // Releasing b's request leaves a's hold, and a release naming the wrong account releases nothing.
    expect(book.release('r1', 'b')).toBe(true);
    expect(book.release('r1', 'c')).toBe(false);
    expect(book.usage('a', T).used.day).toBe(1);
    expect(book.usage('b', T).used.day).toBe(0);
    expect(book.restore('r1', 'a', T, T + 1)).toBe(false);
    expect(book.restore('r1', 'b', T, T + 1)).toBe(true);
  });

  it('expires holds of several accounts in one sweep, each account keeping what has not expired', () => {
    const book = new AccountBook(1_000, () => 0);
    for (const account of ['a', 'b', 'c']) loaded(book, account);
    book.admit('r1', 'a', caps, T);
    book.admit('r2', 'a', caps, T + 500);
    book.admit('r1', 'b', caps, T);
    book.admit('r3', 'c', caps, T + 600);
    expect(book.inFlight).toBe(4);
    expect(book.sweep(T + 1_000).expired).toBe(2);
    expect(book.inFlight).toBe(2);
    const held = book.heldRequests().map((h) => `${h.accountId}/${h.requestId}@${h.admittedAt - T}`);
    expect(held.sort()).toEqual(['a/r2@500', 'c/r3@600']);
    expect(book.usage('a', T + 1_000).used.day).toBe(1);
    expect(book.usage('b', T + 1_000).used.day).toBe(0);
    // b's hold is gone: a settlement of it, late, releases nothing.
    expect(book.release('r1', 'b')).toBe(false);
    expect(book.sweep(T + 1_550).expired).toBe(1);
    // The last hold expires, and then all three accounts, idle and holding nothing, are forgotten.
    expect(book.sweep(T + 11 * 60_000)).toEqual({ expired: 1, evicted: 3, leasesWrittenOff: 0, stranded: 0 });
    expect(book.inFlight).toBe(0);
    expect(book.heldRequests()).toEqual([]);
  });

  it('needs the new day loaded after the IST day turns, and forgets idle accounts', () => {
    const book = new AccountBook(1_000, () => 0);
    loaded(book, 'a');
    expect(book.missingPeriods('a', T)).toBeNull();
    expect(book.missingPeriods('a', Date.parse('2026-03-14T18:30:00Z'))).toEqual({
      day: '2026-03-15',
      month: '2026-03',
    });
    expect(book.sweep(T + 11 * 60_000)).toEqual({ expired: 0, evicted: 1, leasesWrittenOff: 0, stranded: 0 });
    expect(book.missingPeriods('a', T)).toEqual({ day: '2026-03-14', month: '2026-03' });
  });

  it('forgets idle accounts a bounded number a sweep, each later sweep carrying on where the last stopped', () => {
    const book = new AccountBook(1_000, () => 0);
    const idle = 2 * TIDY_PER_SWEEP + 7;
    for (let i = 0; i < idle; i++) loaded(book, `idle-${i}`);
    const later = T + 11 * 60_000;
    expect(book.sweep(later).evicted).toBe(TIDY_PER_SWEEP);
    // Seen since: kept, though the pass reaches it only now.
    loaded(book, 'busy', later);
    expect(book.sweep(later).evicted).toBe(TIDY_PER_SWEEP);
    expect(book.sweep(later).evicted).toBe(7);
    expect(book.sweep(later).evicted).toBe(0);
    expect(book.missingPeriods('busy', later)).toBeNull();
    expect(book.missingPeriods(`idle-${idle - 1}`, T)).toEqual({ day: '2026-03-14', month: '2026-03' });
  });

  it('restores holds a restarted shard lost: they count against the caps until they settle or expire', () => {
    const book = new AccountBook(30_000, () => 0);
    loaded(book, 'a', T + 5_000);
    expect(book.restore('r1', 'a', T, T + 5_000)).toBe(true);
    // Idempotent: a second restore (or an id already admitted) changes nothing.
    expect(book.restore('r1', 'a', T, T + 5_000)).toBe(false);
    expect(book.inFlight).toBe(1);
    expect(book.usage('a', T + 5_000)).toMatchObject({ used: { day: 1, month: 1 }, inFlight: 1 });
    expect(book.admit('r2', 'a', caps, T + 5_000)).toMatchObject({ kind: 'admitted' });
    expect(book.admit('r3', 'a', caps, T + 5_000)).toMatchObject({ kind: 'quota_exhausted' });
    expect(book.restore('r2', 'a', T + 5_000, T + 5_000)).toBe(false);
    // Its settlement releases it like any hold.
    expect(book.release('r1', 'a')).toBe(true);
    expect(book.admit('r4', 'a', caps, T + 6_000)).toMatchObject({ kind: 'admitted' });
    // It expires holdTtl after its admission, not after the restore.
    const book2 = new AccountBook(30_000, () => 0);
    loaded(book2, 'a', T + 20_000);
    book2.restore('r1', 'a', T, T + 20_000);
    expect(book2.sweep(T + 29_999).expired).toBe(0);
    expect(book2.sweep(T + 30_000).expired).toBe(1);
    // A hold that would already have expired is not restored.
    expect(book2.restore('r9', 'a', T, T + 30_000)).toBe(false);
    expect(book2.inFlight).toBe(0);
  });

  it('a restored hold counts against the period and the burst window of its admission', () => {
    const book = new AccountBook(60_000, () => 0);
    const now = Date.parse('2026-03-14T18:30:10Z'); // 00:00:10 IST on 15 March
    book.loaded('a', chargedCounts(now), now);
    // Admitted 20 s earlier, on the 14th (IST): not the new day's quota, but the month's and the burst's.
    book.restore('r1', 'a', now - 20_000, now);
    book.restore('r0', 'a', now - 25_000, now);
    expect(book.usage('a', now)).toMatchObject({ used: { day: 0, month: 2 }, inFlight: 0 });
    expect(book.admit('r2', 'a', { daily: 1, monthly: 3, burst: 3 }, now)).toMatchObject({
      kind: 'admitted',
    });
    expect(book.admit('r3', 'a', { daily: 5, monthly: 5, burst: 3 }, now)).toMatchObject({
      kind: 'rate_limited',
    });
    expect(book.admit('r3', 'a', { daily: 5, monthly: 3, burst: 10 }, now)).toMatchObject({
      kind: 'quota_exhausted',
    });
  });

  describe('the burst window after a restart', () => {
    const burst = { daily: null, monthly: null, burst: 5 };
    it('counts the earlier admissions of the minute once each, however they are learnt of', () => {
      const book = new AccountBook(60_000, () => 0);
      loaded(book, 'a');
      // Before admitting: a gateway restores r1 (unsettled); the consumer then records r1 and r2.
      expect(book.restore('r1', 'a', T - 30_000, T - 5_000)).toBe(true);
      book.admittedEarlier('r1', 'a', T - 30_000, T - 4_000);
      book.admittedEarlier('r2', 'a', T - 20_000, T - 4_000);
      // The log, read when admitting starts, has r1 and r2 too, and r0 from over a minute ago.
      book.admittedEarlier('r0', 'a', T - 61_000, T);
      book.admittedEarlier('r1', 'a', T - 30_000, T);
      book.admittedEarlier('r2', 'a', T - 20_000, T);
      book.startAdmitting(T);
      // A settlement recorded late, of a request admitted before the restart: a third one.
      book.admittedEarlier('r3', 'a', T - 10_000, T + 1);
      expect(book.admit('n1', 'a', burst, T + 1)).toMatchObject({
        kind: 'admitted',
        burst: { remaining: 1 },
      });
      expect(book.admit('n2', 'a', burst, T + 1)).toMatchObject({
        kind: 'admitted',
        burst: { remaining: 0 },
      });
      // r1 leaves the window 30 s after it was admitted: the next slot's wait says so.
      expect(book.admit('n3', 'a', burst, T + 1)).toMatchObject({
        kind: 'rate_limited',
        retryAfterSeconds: 30,
      });
      expect(book.admit('n3', 'a', burst, T + 30_001)).toMatchObject({ kind: 'admitted' });
    });

    it('never counts the admissions of this process twice', () => {
      const book = new AccountBook(60_000, () => 0);
      loaded(book, 'a');
      book.startAdmitting(T);
      for (let i = 0; i < 3; i++)
        expect(book.admit(`own${i}`, 'a', burst, T + i)).toMatchObject({ kind: 'admitted' });
      // Their settlements recorded, and one restored by a gateway after a broken stream: still three.
      for (let i = 0; i < 3; i++) {
        book.release(`own${i}`, 'a');
        book.admittedEarlier(`own${i}`, 'a', T + i, T + 10);
      }
      book.restore('own0', 'a', T, T + 10);
      expect(book.admit('n1', 'a', burst, T + 10)).toMatchObject({
        kind: 'admitted',
        burst: { remaining: 1 },
      });
    });
  });

  it('an account that moved here brings the last minute of its previous owner, each request once', () => {
    const book = new AccountBook(60_000, () => 0);
    const burst = { daily: null, monthly: null, burst: 5 };
    book.startAdmitting(T - 15_000);
    // A late settlement of a retired shard's subject, recorded here before the move completed.
    book.admittedEarlier('p1', 'a', T - 30_000, T - 5_000);
    const fromLog = [
      { requestId: 'p0', at: T - 70_000 },
      { requestId: 'p1', at: T - 30_000 },
      { requestId: 'p2', at: T - 20_000 },
      { requestId: 'p3', at: T - 10_000 },
    ];
    book.seedBurst('a', fromLog, T);
    // Read again (a second load after a day change): nothing counts twice.
    book.seedBurst('a', fromLog, T);
    expect(book.seeded('a')).toBe(true);
    loaded(book, 'a');
    expect(book.admit('n1', 'a', burst, T)).toMatchObject({ kind: 'admitted', burst: { remaining: 1 } });
    expect(book.admit('n2', 'a', burst, T)).toMatchObject({ kind: 'admitted', burst: { remaining: 0 } });
    expect(book.admit('n3', 'a', burst, T)).toMatchObject({ kind: 'rate_limited' });
  });

  it('keeps no burst window for an account without a burst cap', () => {
    const book = new AccountBook(30_000, () => 0);
    loaded(book, 'a', T);
    for (let i = 0; i < 1_000; i++)
      expect(book.admit(`r${i}`, 'a', { daily: null, monthly: null, burst: null }, T)).toMatchObject({
        kind: 'admitted',
      });
    // Were the admission times kept, a capped decision now would see 1,000 of them in the window.
    expect(book.admit('capped', 'a', { daily: null, monthly: null, burst: 60 }, T)).toMatchObject({
      kind: 'admitted',
    });
  });

  it('a huge burst cap stays exact: 200,000 admissions within a minute on one account', () => {
    const book = new AccountBook(3_600_000, () => 0);
    loaded(book, 'a');
    const huge = { daily: null, monthly: null, burst: 10_000_000 };
    const n = 200_000;
    // Spread over 59 s, several per ms.
    const timeOf = (i: number) => T + Math.floor((i * 59_000) / n);
    for (let i = 0; i < n; i++) {
      const d = book.admit(`r${i}`, 'a', huge, timeOf(i));
      if (d === 'duplicate' || d.kind !== 'admitted' || d.burst?.remaining !== huge.burst - (i + 1))
        expect.fail(`admission ${i}: ${JSON.stringify(d)}`);
    }
    expect(book.usage('a', T + 59_000)).toMatchObject({ used: { day: n, month: n } });
    // A cap of exactly n refuses the next until the oldest admission (at T) leaves the minute.
    expect(book.admit('x', 'a', { ...huge, burst: n }, T + 59_000)).toMatchObject({
      kind: 'rate_limited',
      retryAfterSeconds: 1,
      burst: { limit: n, remaining: 0, resetSeconds: 1 },
    });
    // At T + 60 s those admitted at T have left (times ≤ the cutoff); the rest are still counted.
    const leftAtT = Array.from({ length: n }, (_, i) => timeOf(i)).filter((t) => t === T).length;
    expect(leftAtT).toBe(4);
    expect(book.admit('y', 'a', huge, T + 60_000)).toMatchObject({
      kind: 'admitted',
      burst: { remaining: huge.burst - (n - leftAtT + 1), resetSeconds: 1 },
    });
    expect(book.admit('z', 'a', { ...huge, burst: n - leftAtT + 1 }, T + 60_000)).toMatchObject({
      kind: 'rate_limited',
    });
    // Two minutes later the window is empty again, and reused.
    expect(book.admit('w', 'a', huge, T + 180_000)).toMatchObject({
      kind: 'admitted',
      burst: { remaining: huge.burst - 1, resetSeconds: 60 },
    });
  });

  it('decides as a naive model of the window does, over random admissions, restores and times (property)', () => {
    type Step =
      | { op: 'admit'; dt: number; burst: number | null | undefined; daily: number | null }
      | { op: 'restore'; back: number };
    const step: fc.Arbitrary<Step> = fc.oneof(
      {
        weight: 8,
        arbitrary: fc.record({
          op: fc.constant('admit' as const),
          // Mostly a few ms apart, sometimes long enough for much of the window to leave.
          dt: fc.oneof(fc.nat(400), fc.integer({ min: 0, max: 90_000 })),
          burst: fc.oneof(fc.constant(undefined), fc.constant(null), fc.integer({ min: 1, max: 80 })),
          daily: fc.oneof(fc.constant(null), fc.integer({ min: 1, max: 400 })),
        }),
      },
      {
        weight: 1,
        arbitrary: fc.record({ op: fc.constant('restore' as const), back: fc.nat(90_000) }),
      },
    );
    fc.assert(
      fc.property(fc.array(step, { maxLength: 300 }), (steps) => {
        // One IST day (06:00Z to at most ~13:30Z), holds that outlive the run: usage = admitted + restored.
        const start = Date.parse('2026-03-20T06:00:00Z');
        const book = new AccountBook(24 * 3_600_000, () => 0);
        book.loaded('a', chargedCounts(start), start);
        // The model: the window as the array it was (shift to evict, splice to restore).
        const model: number[] = [];
        let used = 0;
        let now = start;
        let id = 0;
        for (const s of steps) {
          if (s.op === 'restore') {
            const admittedAt = Math.max(start, now - s.back);
            expect(book.restore(`r${id++}`, 'a', admittedAt, now)).toBe(true);
            used++;
            if (admittedAt > now - BURST_WINDOW_MS) {
              let i = model.length;
              while (i > 0 && model[i - 1]! > admittedAt) i--;
              model.splice(i, 0, admittedAt);
            }
            continue;
          }
          now += s.dt;
          while (model.length > 0 && model[0]! <= now - BURST_WINDOW_MS) model.shift();
          const caps: Caps = {
            daily: s.daily,
            monthly: null,
            ...(s.burst === undefined ? {} : { burst: s.burst }),
          };
          const expected = decide(caps, { burst: [...model], day: used, month: used }, now);
          expect(book.admit(`r${id++}`, 'a', caps, now)).toEqual(expected);
          if (expected.kind === 'admitted') {
            used++;
            if (caps.burst !== null) model.push(now);
          }
        }
        expect(book.usage('a', now).used.day).toBe(used);
      }),
      { numRuns: 300 },
    );
  });
});

describe('AccountBook: a charge its gateway is voiding (no acknowledgement in time, the client got a 503)', () => {
  const DAY = '2026-03-14';
  const MONTH = '2026-03';
  type Kind = 'charged' | 'voided';

  /**
   * The shard's glue around the book, as ledger.ts and app.ts wire it, over a model of the log: a
   * projection counts a request's charge while its log has the charge and not the void (the batch
   * statement's delta). `gatewayVoids` is the gateway's word on the admission stream.
   */
  function shard(holdTtlMs = 30_000) {
    const book = new AccountBook(holdTtlMs, () => 0);
    loaded(book, 'a');
    const log = new Map<string, Set<Kind>>();
    const standing = (id: string) => !!log.get(id)?.has('charged') && !log.get(id)?.has('voided');
    return {
      book,
      standing,
      /** One batch of the consumer: record, apply the deltas, tell the book, release the holds. */
      record(events: { id: string; kind: Kind }[], now = T) {
        const before = new Map(events.map((e) => [e.id, standing(e.id)]));
        for (const e of events) {
          if (!log.has(e.id)) log.set(e.id, new Set());
          log.get(e.id)!.add(e.kind);
        }
        for (const [id, was] of before) {
          const delta = Number(standing(id)) - Number(was);
          if (delta !== 0) book.charge({ accountId: 'a', day: DAY, month: MONTH, via: 'rest', delta });
        }
        const settled = events.map((e) => ({ request_id: e.id, account_id: 'a', kind: e.kind }));
        book.recorded(settled, now);
        for (const e of settled) book.release(e.request_id, e.account_id);
      },
      gatewayVoids(id: string, now = T) {
        if (!book.withdraw(id, 'a', T, now, 'rest') && standing(id))
          book.withholdCharge(id, 'a', T, now, 'rest');
      },
      used: (now = T) => book.usage('a', now).used,
    };
  }

  it('voided while held: the charge recorded after the 503 is not counted, nor after its void', () => {
    const s = shard();
    s.book.admit('r1', 'a', caps, T);
    s.gatewayVoids('r1');
    expect(s.used()).toEqual({ day: 0, month: 0 });
    s.record([{ id: 'r1', kind: 'charged' }]);
    expect(s.used()).toEqual({ day: 0, month: 0 });
    // The caps see it the same way: two more fit on a daily cap of 2.
    expect(s.book.admit('r2', 'a', caps, T)).toMatchObject({ kind: 'admitted' });
    s.record([{ id: 'r1', kind: 'voided' }]);
    expect(s.used()).toEqual({ day: 1, month: 1 });
    expect(s.book.withdrawing).toBe(0);
    expect(s.book.admit('r3', 'a', caps, T)).toMatchObject({ kind: 'admitted' });
    expect(s.book.admit('r4', 'a', caps, T)).toMatchObject({ kind: 'quota_exhausted' });
  });

  it('voided after the charge was recorded (a late acknowledgement): taken off at once', () => {
    const s = shard();
    s.book.admit('r1', 'a', caps, T);
    s.record([{ id: 'r1', kind: 'charged' }]);
    expect(s.used().day).toBe(1);
    s.gatewayVoids('r1');
    expect(s.used().day).toBe(0);
    s.record([{ id: 'r1', kind: 'voided' }]);
    expect(s.used().day).toBe(0);
    // A re-delivered charge after its void changes nothing.
    s.record([{ id: 'r1', kind: 'charged' }]);
    expect(s.used().day).toBe(0);
  });

  it('a charge and its void in one batch cancel out', () => {
    const s = shard();
    s.book.admit('r1', 'a', caps, T);
    s.gatewayVoids('r1');
    s.record([
      { id: 'r1', kind: 'charged' },
      { id: 'r1', kind: 'voided' },
    ]);
    expect(s.used().day).toBe(0);
    expect(s.book.withdrawing).toBe(0);
  });

  it('a void that never comes: after VOID_WAIT_MS the charge counts again, as the log has it', () => {
    const s = shard(24 * 3_600_000);
    s.book.admit('r1', 'a', caps, T);
    s.gatewayVoids('r1');
    s.record([{ id: 'r1', kind: 'charged' }]);
    expect(s.used().day).toBe(0);
    s.book.sweep(T + VOID_WAIT_MS - 1);
    expect(s.used(T + VOID_WAIT_MS - 1).day).toBe(0);
    // Not while the consumer is behind (the void may be waiting in JetStream), only once it has
    // recorded what was published by then.
    const V = T + VOID_WAIT_MS;
    s.book.sweep(V + 1, { recordedThrough: V - 10 });
    expect(s.used(V + 1).day).toBe(0);
    s.book.sweep(V + 12, { recordedThrough: V });
    expect(s.used(V + 12).day).toBe(1);
    expect(s.book.withdrawing).toBe(0);
  });

  it('keeps an account with a withheld charge in memory while idle', () => {
    const s = shard();
    s.book.admit('r1', 'a', caps, T);
    s.record([{ id: 'r1', kind: 'charged' }]);
    s.gatewayVoids('r1');
    expect(s.book.sweep(T + 11 * 60_000).evicted).toBe(0);
    expect(s.used(T + 11 * 60_000).day).toBe(0);
  });

  it("in every order of the gateway's word, the charge (re-delivered or never) and the void, usage never counts it once the 503 is sent (property)", () => {
    const steps = fc
      .integer({ min: 0, max: 2 })
      .chain((charges) => {
        const items = ['word', 'void', ...Array.from({ length: charges }, () => 'charge')] as const;
        return fc.shuffledSubarray([...items], { minLength: items.length, maxLength: items.length });
      })
      .chain((order) =>
        fc.tuple(
          fc.constant(order),
          fc.array(fc.boolean(), { minLength: order.length, maxLength: order.length }),
        ),
      );
    fc.assert(
      fc.property(steps, ([order, batchWithNext]) => {
        const s = shard();
        s.book.admit('r1', 'a', caps, T);
        // Another request of the account, charged normally: always counted.
        s.book.admit('other', 'a', { daily: null, monthly: null }, T);
        s.record([{ id: 'other', kind: 'charged' }]);
        let answered = false;
        let voidRecorded = false;
        let batch: { id: string; kind: Kind }[] = [];
        const flush = () => {
          if (batch.length > 0) s.record(batch);
          if (batch.some((e) => e.kind === 'voided')) voidRecorded = true;
          batch = [];
        };
        order.forEach((step, i) => {
          if (step === 'word') {
            flush();
            s.gatewayVoids('r1');
            answered = true;
          } else {
            batch.push({ id: 'r1', kind: step === 'void' ? 'voided' : 'charged' });
            if (!batchWithNext[i]) flush();
          }
          if (batch.length === 0) {
            // Held or charged until the 503; never counted after it (or once its void is recorded).
            const r1 = answered || voidRecorded ? 0 : 1;
            expect(s.used().day, `${order.join(',')} after ${i}`).toBe(1 + r1);
          }
        });
        flush();
        expect(s.used().day).toBe(1);
        expect(s.standing('r1')).toBe(false);
        expect(s.book.withdrawing).toBe(0);
      }),
      { numRuns: 500 },
    );
  });
});
