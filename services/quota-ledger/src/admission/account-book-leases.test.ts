import { LeaseHolder, MAX_LEASE_MS } from '@mdp/admission';
import { describe, expect, it } from 'vitest';
import { AccountBook } from './account-book.ts';
import { chargedCounts } from './charged-counts.ts';

const T = Date.parse('2026-03-14T10:00:00Z');
const LEASE_MS = 2_000;
const TTL = 30_000;
const caps = { daily: 100, monthly: null, burst: 60 };

/** A book with account `a` loaded and `n` admissions of it at T (so it has a rate to lease on). */
function bookWith(n: number, holder = 1, draw = () => 0) {
  const book = new AccountBook(TTL, draw);
  book.loaded('a', chargedCounts(T), T);
  for (let i = 0; i < n; i++) {
    book.askedOn('a', holder, T, LEASE_MS);
    book.admit(`p${i}`, 'a', caps, T);
  }
  return book;
}

const settle = (book: AccountBook, id: string, kind = 'charged') => {
  book.recorded([{ request_id: id, account_id: 'a', kind }], T);
  if (kind === 'charged')
    book.charge({ accountId: 'a', day: '2026-03-14', month: '2026-03', via: 'rest', delta: 1 });
  book.release(id, 'a');
};

describe('AccountBook leases', () => {
  it('grant the account state decide needs, and count the whole allotment against the caps and the burst window, not in usage', () => {
    const book = bookWith(10);
    const grant = book.grant('a', caps, 1, T, LEASE_MS)!;
    // 10 a second for 2 s, a quarter more: 25; within half of the burst headroom (60 - 10 = 50).
    expect(grant).toMatchObject({ day: 10, month: 10, allotment: 25, grantedAt: T, expiresAt: T + LEASE_MS });
    expect(grant.burst).toHaveLength(10);
    expect(grant.inFlight.map((h) => h.requestId)).toHaveLength(10);
    expect(book.usage('a', T).used.day).toBe(10);
    // Another stream's request is decided with the allotment counted: 10 + 25 of the minute's 60 used.
    expect(book.admit('x', 'a', caps, T)).toMatchObject({ kind: 'admitted', burst: { remaining: 24 } });
    // One lease at a time, known by its id (a usage read names the lease it speaks for).
    expect(book.grant('a', caps, 1, T, LEASE_MS)).toBeNull();
    expect(book.leaseOut('a')).toBe(grant.leaseId);
  });

  it('take the lease back with what its holder admitted: real times for the provisional ones, holds for what is not recorded', () => {
    const book = bookWith(10);
    const grant = book.grant('a', caps, 1, T, LEASE_MS)!;
    const holder = new LeaseHolder(grant);
    for (const id of ['l1', 'l2', 'l3'])
      expect(holder.admit(id, T + 100)).toMatchObject({ kind: 'admitted' });
    holder.settle('l2', 'refunded');
    // l1's charge is recorded before the lease is back (it has no hold here).
    settle(book, 'l1');
    expect(book.returnLease('a', 2, grant.leaseId, holder.returned().admitted, T + 200)).toBeNull(); // not its holder
    expect(book.returnLease('a', 1, grant.leaseId, holder.returned().admitted, T + 200)).toEqual({
      used: 3,
      allotment: 25,
    });
    // Applied once.
    expect(book.returnLease('a', 1, grant.leaseId, holder.returned().admitted, T + 200)).toBeNull();
    expect(book.leaseOut('a')).toBeNull();
    // 10 held, l1 charged, l3 held (may be charged): 12; l2 refunded counts nowhere.
    expect(book.usage('a', T + 200).used.day).toBe(12);
    // The burst window: 10 + 3 admissions, the provisional 25 gone: 47 left after one more.
    expect(book.admit('y', 'a', caps, T + 300)).toMatchObject({ burst: { remaining: 46 } });
    settle(book, 'l3');
    expect(book.usage('a', T + 300).used.day).toBe(13);
  });

  it('size the next lease from the rate the last one was used at, not diluted by the quiet rest of it', () => {
    const book = bookWith(10);
    const noBurst = { daily: 10_000, monthly: null, burst: null };
    const grant = book.grant('a', noBurst, 1, T, LEASE_MS)!;
    // 10 a second for 2 s, a quarter more.
    expect(grant.allotment).toBe(25);
    const holder = new LeaseHolder(grant);
    // 20 admissions in its first 475 ms, then nothing until it goes back at its expiry.
    for (let i = 0; i < 20; i++)
      expect(holder.admit(`l${i}`, T + 25 * i)).toMatchObject({ kind: 'admitted' });
    book.returnLease('a', 1, grant.leaseId, holder.returned().admitted, T + LEASE_MS);
    // 20 in 0.475 s is 42.1 a second: over 2 s and a quarter more, 106 (20 over the whole 2 s would be 25).
    expect(book.grant('a', noBurst, 1, T + LEASE_MS + 1, LEASE_MS)?.allotment).toBe(106);
  });

  it('keep a lease whose holder went silent counted until everything it could have charged is recorded', () => {
    const book = bookWith(4);
    const grant = book.grant('a', { daily: 10, monthly: null, burst: null }, 1, T, LEASE_MS)!;
    expect(grant.allotment).toBe(3); // half of the 6 left
    // Two admitted under it and charged, recorded; then its holder dies.
    settle(book, 'l1');
    settle(book, 'l2');
    const noBurst = { daily: 10, monthly: null, burst: null };
    // Counted: 4 held + 2 charged + the allotment 3: one left for another gateway.
    expect(book.admit('x1', 'a', noBurst, T + 1)).toMatchObject({ kind: 'admitted' });
    expect(book.admit('x2', 'a', noBurst, T + 1)).toMatchObject({ kind: 'quota_exhausted' });
    // Its expiry plus a hold TTL, not yet recorded: still counted.
    expect(book.sweep(T + LEASE_MS + TTL, { recordedThrough: T + LEASE_MS + TTL - 1 })).toMatchObject({
      leasesWrittenOff: 0,
    });
    const swept = book.sweep(T + LEASE_MS + TTL + 1, { recordedThrough: T + LEASE_MS + TTL });
    // The p holds expired too; the lease went with 1 of its 3 never used.
    expect(swept).toMatchObject({ leasesWrittenOff: 1, stranded: 1 });
    expect(book.leaseOut('a')).toBeNull();
    // 2 charged + x1 (its hold expired too: released) = what the log has.
    expect(book.usage('a', T + LEASE_MS + TTL + 1).used.day).toBe(2);
  });

  it('not lease an account asked for on two streams within a lease, and recall a lease another stream asks about', () => {
    const book = bookWith(10, 1);
    const grant = book.grant('a', caps, 1, T, LEASE_MS)!;
    expect(book.askedOn('a', 1, T + 10, LEASE_MS)).toBeNull();
    expect(book.askedOn('a', 2, T + 20, LEASE_MS)).toEqual({ leaseId: grant.leaseId, holder: 1 });
    // Recalled once.
    expect(book.askedOn('a', 2, T + 30, LEASE_MS)).toBeNull();
    book.returnLease('a', 1, grant.leaseId, [], T + 40);
    expect(book.grant('a', caps, 2, T + 50, LEASE_MS)).toBeNull();
    expect(book.grant('a', caps, 1, T + 50, LEASE_MS)).toBeNull();
  });

  it('withhold a leased request whose charge is being voided, whether its charge is recorded before or after', () => {
    const book = bookWith(2);
    const grant = book.grant('a', { daily: 100, monthly: null, burst: null }, 1, T, LEASE_MS)!;
    expect(grant).not.toBeNull();
    // v1: charged and recorded, then voided by its gateway.
    settle(book, 'v1');
    expect(book.usage('a', T).used.day).toBe(3);
    expect(book.withdraw('v1', 'a', T, T + 10, 'rest')).toBe(true);
    expect(book.usage('a', T + 10).used.day).toBe(2);
    // v2: voided before its charge is recorded; the charge then lands: not counted.
    expect(book.withdraw('v2', 'a', T, T + 10, 'rest')).toBe(true);
    settle(book, 'v2');
    expect(book.usage('a', T + 10).used.day).toBe(3 - 1);
  });

  it("size the next lease by what the last one's holder admitted, which the shard never saw", () => {
    const book = bookWith(2);
    const noCaps = { daily: null, monthly: null, burst: null };
    const first = book.grant('a', noCaps, 1, T, LEASE_MS)!;
    // 2 a second seen by the shard: 5 for 2 s, a quarter more.
    expect(first.allotment).toBe(5);
    const holder = new LeaseHolder(first);
    for (let i = 0; i < 5; i++) holder.admit(`l${i}`, T + 100 * i);
    // Used up in half a second: 10 a second.
    book.returnLease('a', 1, first.leaseId, holder.returned().admitted, T + 500);
    book.askedOn('a', 1, T + 500, LEASE_MS);
    book.admit('next', 'a', noCaps, T + 500);
    expect(book.grant('a', noCaps, 1, T + 500, LEASE_MS)!.allotment).toBe(25);
  });

  it('extend a lease its holder is using: more units counted against the caps and in the burst window, a later expiry, the extras given back with it', () => {
    const book = bookWith(10);
    const grant = book.grant('a', caps, 1, T, LEASE_MS)!;
    expect(grant.allotment).toBe(25);
    const holder = new LeaseHolder(grant);
    for (let i = 0; i < 20; i++) holder.admit(`l${i}`, T + 50 * i);
    // Not another stream's, not an unknown lease's.
    expect(book.extendLease('a', 2, grant.leaseId, 20, T + 1_000, LEASE_MS)).toBeNull();
    expect(book.extendLease('a', 1, 'other', 20, T + 1_000, LEASE_MS)).toBeNull();
    // 20 in 1 s: another 2 s wants 50, 45 more than the 25; the burst window (10 + 25 of 60) leaves 25,
    // half of it 12.
    const extended = book.extendLease('a', 1, grant.leaseId, 20, T + 1_000, LEASE_MS)!;
    expect(extended).toEqual({ allotment: 37, expiresAt: T + 1_000 + LEASE_MS, added: 12 });
    expect(holder.extend(extended.allotment, extended.expiresAt, T + 1_000)).toBe(true);
    // Another stream's request now sees 10 + 37 of the minute's 60 used.
    expect(book.admit('x', 'a', caps, T + 1_000)).toMatchObject({ burst: { remaining: 12 } });
    // Admitted past the grant's expiry, under the extension.
    for (let i = 20; i < 30; i++)
      expect(holder.admit(`l${i}`, T + 2_000 + 10 * i)).toMatchObject({ kind: 'admitted' });
    expect(book.returnLease('a', 1, grant.leaseId, holder.returned().admitted, T + 2_500)).toEqual({
      used: 30,
      allotment: 37,
    });
    // Every provisional entry gone, the 30 real ones in: 10 + 1 (x) + 30 of 60, 18 left after one more.
    expect(book.admit('y', 'a', caps, T + 2_600)).toMatchObject({ burst: { remaining: 18 } });
  });

  it('not extend a lease recalled, of an account seen on another stream, expired, or past a minute from its grant; and write one off only after its extended expiry', () => {
    const noBurst = { daily: 1_000, monthly: null, burst: null };
    const recalled = bookWith(10);
    const first = recalled.grant('a', noBurst, 1, T, LEASE_MS)!;
    recalled.askedOn('a', 2, T + 100, LEASE_MS);
    expect(recalled.extendLease('a', 1, first.leaseId, 5, T + 1_600, LEASE_MS)).toBeNull();

    const expired = bookWith(10);
    const second = expired.grant('a', noBurst, 1, T, LEASE_MS)!;
    expect(expired.extendLease('a', 1, second.leaseId, 5, T + LEASE_MS, LEASE_MS)).toBeNull();

    const book = bookWith(10);
    const grant = book.grant('a', noBurst, 1, T, LEASE_MS)!;
    let ends = grant.expiresAt;
    for (let k = 1; ; k++) {
      const at = ends - 100;
      const terms = book.extendLease('a', 1, grant.leaseId, 5, at, LEASE_MS);
      if (!terms) break;
      expect(terms.expiresAt).toBeGreaterThan(ends);
      ends = terms.expiresAt;
      expect(k).toBeLessThan(40);
    }
    expect(ends).toBe(T + MAX_LEASE_MS);
    // Its life drawn at the grant: half a minute to a minute, so leases granted together end apart.
    const drawn = bookWith(10, 1, () => 0.5);
    const halfway = drawn.grant('a', noBurst, 1, T, LEASE_MS)!;
    let last = halfway.expiresAt;
    for (;;) {
      const terms = drawn.extendLease('a', 1, halfway.leaseId, 5, last - 100, LEASE_MS);
      if (!terms) break;
      last = terms.expiresAt;
    }
    expect(last).toBe(T + 45_000);
    // Its holder silent: counted until its last expiry plus a hold TTL is recorded.
    expect(book.sweep(ends + TTL, { recordedThrough: ends + TTL - 1 })).toMatchObject({
      leasesWrittenOff: 0,
    });
    expect(book.sweep(ends + TTL + 1, { recordedThrough: ends + TTL })).toMatchObject({
      leasesWrittenOff: 1,
    });
  });

  /**
   * A `business` account calling for three minutes, `gap(i)` ms after its request `i`, the gateway's side
   * as it runs: a lease given back at its expiry, an extension asked when the holder says (answered at
   * once here), anything the lease cannot answer asked of the shard. Every grant draws its life with
   * `draw` (`leaseLife`).
   */
  function playSteady(gap: (i: number) => number, draw: number) {
    const book = new AccountBook(TTL, () => draw);
    book.loaded('a', chargedCounts(T), T);
    const steady = { daily: 1_000, monthly: null, burst: 60 };
    let holder: LeaseHolder | null = null;
    const giveBack = (at: number) => {
      book.returnLease('a', 1, holder!.grant.leaseId, holder!.returned().admitted, at);
      holder = null;
    };
    const seen = { requests: 0, byShard: 0, grants: 0, extensions: 0 };
    for (let at = T; at < T + 180_000; at += gap(seen.requests - 1)) {
      const id = `r${seen.requests++}`;
      if (holder !== null && at >= holder.expiresAt) giveBack(holder.expiresAt);
      const underLease = holder?.admit(id, at) ?? null;
      if (holder !== null && underLease !== null) {
        expect(underLease.kind, id).toBe('admitted');
        holder.settle(id, 'charged', holder.used - 1);
        if (holder.endsSoon(at)) {
          seen.extensions++;
          const terms = book.extendLease('a', 1, holder.grant.leaseId, holder.used, at, LEASE_MS);
          if (terms) holder.extend(terms.allotment, terms.expiresAt, at);
        }
        continue;
      }
      if (holder !== null) giveBack(at);
      seen.byShard++;
      book.askedOn('a', 1, at, LEASE_MS);
      expect(book.admit(id, 'a', steady, at), id).toMatchObject({ kind: 'admitted' });
      const grant = book.grant('a', steady, 1, at, LEASE_MS);
      if (grant) {
        seen.grants++;
        holder = new LeaseHolder(grant);
      }
    }
    return seen;
  }

  // Every 1.5 s exactly; 1 s and 2 s apart in turn (a caller whose timer ticks once a second); and after
  // a burst as a program starting up sends, which the rate since the grant goes on counting.
  it.each([
    ['every 1.5 s', () => 1_500, 120],
    ['1 s and 2 s apart in turn', (i: number) => (i % 2 === 0 ? 1_000 : 2_000), 120],
    ['every 1.5 s after five in its first second', (i: number) => (i < 5 ? 150 : 1_500), 125],
  ])(
    'keep a steady account on its lease: one calling %s within its burst cap has its shard decide a request once every half minute to a minute, not every other one, and extend it every few requests, not with each',
    (_, gap, requests) => {
      // Whatever life each lease draws at its grant (the draws every twentieth of the range).
      for (const draw of [...Array.from({ length: 20 }, (_, k) => k / 20), 0.999]) {
        const seen = playSteady(gap, draw);
        // Of 120 requests (125), the first and one as each lease reaches its life, half a minute to a
        // minute (asked only in a term's last quarter, half of them were the shard’s; with leases of four
        // lease lengths, one in six; 1 s and 2 s apart, the next request guessed from the last gap alone, 20).
        expect(seen.requests, `draw ${draw}`).toBe(requests);
        expect(seen.byShard, `draw ${draw}`).toBeLessThanOrEqual(7);
        expect(seen.grants, `draw ${draw}`).toBe(seen.byShard);
        // And asks its shard to extend it about once every third request, more often while the rate
        // since the grant still counts a burst, and fewer than nine in twenty (40 to 51 of 120 or 125 over
        // these draws): a term lasts about four of its requests (`termMs`), and the allotment's quarter
        // is of what the term began with (with a term of a lease length, every request asked: 115 of 120;
        // with a quarter of the whole allotment, 88).
        expect(seen.extensions, `draw ${draw}`).toBeLessThanOrEqual(requests * 0.45);
      }
    },
  );

  it("count a lease's units in the burst window at the end of its term, the unused ones moved by an extension: a silent holder's entries leave it no sooner than its admissions", () => {
    // Granted at T for 2 s; its holder uses all 25 at T + 1.9 s and dies.
    const book = bookWith(10);
    const grant = book.grant('a', caps, 1, T, LEASE_MS)!;
    expect(grant.allotment).toBe(25);
    expect(book.sweep(T + LEASE_MS + TTL + 1, { recordedThrough: T + LEASE_MS + TTL })).toMatchObject({
      leasesWrittenOff: 1,
    });
    // A minute after T + 1.9 s its admissions are still within the minute: so are the 25 entries.
    expect(book.admit('x', 'a', caps, T + 61_899)).toMatchObject({
      kind: 'admitted',
      burst: { remaining: 34 },
    });
    expect(book.admit('y', 'a', caps, T + 62_001)).toMatchObject({
      kind: 'admitted',
      burst: { remaining: 58 },
    });

    // Extended at T + 1 s with 20 used: the 5 left and the 12 added move to the new term's end, T + 3 s.
    const extendedBook = bookWith(10);
    const leased = extendedBook.grant('a', caps, 1, T, LEASE_MS)!;
    const extended = extendedBook.extendLease('a', 1, leased.leaseId, 20, T + 1_000, LEASE_MS)!;
    expect(extended).toMatchObject({ added: 12, expiresAt: T + 3_000 });
    const ends = extended.expiresAt;
    expect(extendedBook.sweep(ends + TTL + 1, { recordedThrough: ends + TTL })).toMatchObject({
      leasesWrittenOff: 1,
    });
    // Past a minute from the grant's term (T + 2 s): the 20 used are out, the 17 still in.
    expect(extendedBook.admit('x', 'a', caps, T + 62_001)).toMatchObject({ burst: { remaining: 42 } });
    expect(extendedBook.admit('y', 'a', caps, T + 63_001)).toMatchObject({ burst: { remaining: 58 } });
  });
});

describe('AccountBook lease reports', () => {
  const open = { daily: 100, monthly: null, burst: null };

  it('take reported admissions in as holds while the lease stays out, so the caps count them once, and the return carries the rest', () => {
    const book = bookWith(10);
    const grant = book.grant('a', open, 1, T, LEASE_MS)!;
    expect(grant.allotment).toBe(25);
    const holder = new LeaseHolder(grant);
    for (const id of ['l0', 'l1', 'l2', 'l3']) holder.admit(id, T + 100);
    // A holder reports an admission once it has settled: l0 and l2 charged, l1 and l3 refunded.
    holder.settle('l0', 'charged');
    holder.settle('l1', 'refunded');
    holder.settle('l2', 'charged');
    holder.settle('l3', 'refunded');
    // l0's charge is recorded before its report reaches the shard.
    settle(book, 'l0');
    // 10 held + l0 charged + the whole allotment of 25 out: 36, and one more leaves 63 of 100.
    expect(book.admit('x1', 'a', open, T + 150)).toMatchObject({ rateLimit: { remaining: 63 } });
    book.release('x1', 'a');
    const report = holder.report()!;
    expect(book.takeReport('a', 2, grant.leaseId, report.from, report.admissions)).toBeNull(); // not its holder
    expect(book.takeReport('a', 1, grant.leaseId, report.from, report.admissions)).toEqual({
      through: 4,
      taken: 4,
    });
    expect(book.leaseOut('a')).toBe(grant.leaseId);
    // l0 charged, l2 held, l1 and l3 refunded nowhere; 21 still out: 10 + 1 + 1 + 21 = 33, 66 after one more.
    expect(book.usage('a', T + 200).used.day).toBe(12);
    expect(book.admit('x2', 'a', open, T + 200)).toMatchObject({ rateLimit: { remaining: 66 } });
    book.release('x2', 'a');
    // Sent again (its answer lost): nothing twice.
    expect(book.takeReport('a', 1, grant.leaseId, report.from, report.admissions)).toEqual({
      through: 4,
      taken: 0,
    });
    expect(book.usage('a', T + 200).used.day).toBe(12);
    // A report that starts past what was taken in is not applied.
    expect(book.takeReport('a', 1, grant.leaseId, 6, [])).toEqual({ through: 4, taken: 0 });
    // l2's charge is recorded.
    settle(book, 'l2');
    holder.admit('l4', T + 300);
    // The return starts at 0 (the holder never heard the report was taken in): l0 to l3 are not taken twice.
    const back = holder.returned();
    expect(back.from).toBe(0);
    expect(book.returnLease('a', 1, grant.leaseId, back.admitted, T + 400, back.from)).toEqual({
      used: 5,
      allotment: 25,
    });
    // 10 held, l0 and l2 charged, l4 held: 13, and 86 left after one more.
    expect(book.usage('a', T + 400).used.day).toBe(13);
    expect(book.admit('x3', 'a', open, T + 400)).toMatchObject({ rateLimit: { remaining: 86 } });
  });

  it('not take a report for a lease on a plan with a burst cap, and not take a return that leaves out admissions not taken in', () => {
    const book = bookWith(10);
    const grant = book.grant('a', caps, 1, T, LEASE_MS)!;
    const holder = new LeaseHolder(grant);
    holder.admit('l0', T + 100);
    holder.admit('l1', T + 100);
    const admissions = [
      { requestId: 'l0', at: T + 100, via: 'rest', refunded: false },
      { requestId: 'l1', at: T + 100, via: 'rest', refunded: false },
    ];
    expect(book.takeReport('a', 1, grant.leaseId, 0, admissions)).toEqual({ through: 0, taken: 0 });
    // A return from number 1 would leave l0 out: the lease stays out, to be written off.
    expect(book.returnLease('a', 1, grant.leaseId, admissions.slice(1), T + 200, 1)).toBeNull();
    expect(book.leaseOut('a')).toBe(grant.leaseId);
    expect(book.returnLease('a', 1, grant.leaseId, admissions, T + 200, 0)).toEqual({
      used: 2,
      allotment: 25,
    });
  });

  it('write a silent holder off with the reported admissions held, and count as stranded only what was never used', () => {
    const book = bookWith(4);
    const grant = book.grant('a', { daily: 20, monthly: null, burst: null }, 1, T, LEASE_MS)!;
    expect(grant.allotment).toBe(8); // half of the 16 left
    const holder = new LeaseHolder(grant);
    for (const id of ['l0', 'l1', 'l2']) {
      holder.admit(id, T + 100);
      holder.settle(id, 'charged');
    }
    const report = holder.report()!;
    expect(book.takeReport('a', 1, grant.leaseId, report.from, report.admissions)).toMatchObject({
      through: 3,
    });
    // Two more charged and recorded after the report; then the holder dies.
    holder.admit('l3', T + 200);
    holder.admit('l4', T + 200);
    settle(book, 'l3');
    settle(book, 'l4');
    const swept = book.sweep(T + LEASE_MS + TTL + 1, { recordedThrough: T + LEASE_MS + TTL });
    expect(swept).toMatchObject({ leasesWrittenOff: 1, stranded: 3 });
  });

  it('take in a reported admission already recorded without a hold, and not count it twice when the holder is written off', () => {
    const book = bookWith(4);
    const grant = book.grant('a', { daily: 20, monthly: null, burst: null }, 1, T, LEASE_MS)!;
    expect(grant.allotment).toBe(8);
    const holder = new LeaseHolder(grant);
    for (const id of ['l0', 'l1', 'l2', 'l3']) {
      holder.admit(id, T + 100);
      holder.settle(id, 'charged');
    }
    // l0 and l1 are recorded before the report reaches the shard; l2 and l3 after.
    settle(book, 'l0');
    settle(book, 'l1');
    const report = holder.report()!;
    expect(book.takeReport('a', 1, grant.leaseId, report.from, report.admissions)).toEqual({
      through: 4,
      taken: 4,
    });
    // 4 before the grant and l0, l1 charged; l2 and l3 held (not recorded yet); the rest of the
    // allotment (4) still out: 4 + 2 + 2 + 4 of the day's 20 counted against the cap.
    expect(book.usage('a', T + 300).used.day).toBe(8);
    settle(book, 'l2');
    settle(book, 'l3');
    expect(book.usage('a', T + 300).used.day).toBe(8);
    // The holder dies: its four unused units were stranded, no fewer.
    const swept = book.sweep(T + LEASE_MS + TTL + 1, { recordedThrough: T + LEASE_MS + TTL });
    expect(swept).toMatchObject({ leasesWrittenOff: 1, stranded: 4 });
    // The four admitted before the grant never settled: their holds expire; the four charges stay.
    expect(book.usage('a', T + LEASE_MS + TTL + 1).used.day).toBe(4);
  });
});
