import { istDay, istMonth, istNextDayStart } from '@mdp/nse-calendar';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BURST_WINDOW_MS, type Caps, type Decision, decide } from './decide.ts';
import {
  extensionTerms,
  type LeasedAdmission,
  LeaseHolder,
  leaseLife,
  leaseTerms,
  MAX_ALLOTMENT,
  MAX_LEASE_MS,
  MAX_TERM_LENGTHS,
  REPORT_EVERY,
  TERM_REQUESTS,
  termMs,
} from './lease.ts';

/** A holder of a fresh lease with no daily or monthly cap: nothing counted or in flight at its grant. */
function freshHolder(o: { allotment: number; at: number; lengthMs: number; burst?: number | null }) {
  return new LeaseHolder({
    leaseId: 'l1',
    caps: { daily: null, monthly: null, burst: o.burst ?? null },
    day: 0,
    month: 0,
    burst: [],
    inFlight: [],
    allotment: o.allotment,
    grantedAt: o.at,
    expiresAt: o.at + o.lengthMs,
  });
}

/**
 * The shard's own bookkeeping of one account, as the ledger keeps it per request: admission times, and
 * units counted per IST day and month (charged and in flight; a refund frees its unit).
 */
class ShardAccount {
  readonly times: number[] = [];
  private readonly counts = new Map<string, number>();
  readonly holds = new Map<string, { day: string; month: string }>();

  count(period: string): number {
    return this.counts.get(period) ?? 0;
  }

  recent(now: number): number[] {
    return this.times.filter((t) => t > now - BURST_WINDOW_MS);
  }

  decide(caps: Caps, now: number): Decision {
    return decide(
      caps,
      { burst: this.recent(now), day: this.count(istDay(now)), month: this.count(istMonth(now)) },
      now,
    );
  }

  record(requestId: string, at: number): void {
    const hold = { day: istDay(at), month: istMonth(at) };
    this.times.push(at);
    for (const p of [hold.day, hold.month]) this.counts.set(p, this.count(p) + 1);
    this.holds.set(requestId, hold);
  }

  settle(requestId: string, outcome: 'charged' | 'refunded'): void {
    const hold = this.holds.get(requestId);
    if (!hold) return;
    this.holds.delete(requestId);
    if (outcome === 'refunded') for (const p of [hold.day, hold.month]) this.counts.set(p, this.count(p) - 1);
  }
}

type Step =
  | { kind: 'request'; gapMs: number }
  | { kind: 'settle'; pick: number; refund: boolean; gapMs: number };

const caps = fc.record({
  daily: fc.option(fc.integer({ min: 1, max: 40 }), { nil: null }),
  monthly: fc.option(fc.integer({ min: 1, max: 120 }), { nil: null }),
  burst: fc.oneof(fc.constant(undefined), fc.constant(null), fc.integer({ min: 1, max: 12 })),
});
// Mostly requests a few hundred ms apart, now and then a pause of minutes or hours (across IST midnight).
const gap = fc.oneof(
  { weight: 8, arbitrary: fc.integer({ min: 0, max: 1_500 }) },
  { weight: 1, arbitrary: fc.integer({ min: 1_000, max: 4 * 3_600_000 }) },
);
const steps = fc.array(
  fc.oneof(
    { weight: 3, arbitrary: fc.record({ kind: fc.constant('request' as const), gapMs: gap }) },
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant('settle' as const),
        pick: fc.nat(),
        refund: fc.boolean(),
        gapMs: fc.integer({ min: 0, max: 500 }),
      }),
    },
  ),
  { maxLength: 300 },
);
// 23:50 IST on 30 November: the day and the month turn over ten minutes in.
const START = Date.parse('2026-11-30T18:20:00Z');

describe('admission leases', () => {
  it('answer every request exactly as the shard would have, whatever the caps, the rate and the settlements, extended or not', () => {
    fc.assert(
      fc.property(
        caps,
        steps,
        fc.integer({ min: 1_000, max: 20_000 }),
        fc.boolean(),
        fc.boolean(),
        (plan: Caps, sequence: Step[], leaseMs, extending, byNumber) => {
          const perRequest = new ShardAccount();
          const shard = new ShardAccount();
          let holder: LeaseHolder | null = null;
          /** The lease's allotment as the shard has it (its grant's, and what extensions added). */
          let allotted = 0;
          let grants = 0;
          let now = START;
          let n = 0;
          /** Each request admitted under a lease: the lease, and its number there (`settle`'s `admittedAs`). */
          const leased = new Map<string, { holder: LeaseHolder; number: number }>();
          for (const step of sequence) {
            now += step.gapMs;
            if (step.kind === 'settle') {
              const ids = [...perRequest.holds.keys()];
              if (ids.length === 0) continue;
              const id = ids[step.pick % ids.length]!;
              const outcome = step.refund ? 'refunded' : 'charged';
              perRequest.settle(id, outcome);
              shard.settle(id, outcome);
              const own = leased.get(id);
              holder?.settle(id, outcome, byNumber && own?.holder === holder ? own.number : undefined);
              continue;
            }
            const id = `r${n++}`;
            const expected = perRequest.decide(plan, now);
            if (expected.kind === 'admitted') perRequest.record(id, now);

            const admitting = (h: LeaseHolder) => {
              const number = h.used;
              const decision = h.admit(id, now);
              if (decision?.kind === 'admitted') leased.set(id, { holder: h, number });
              return decision;
            };
            let answer = holder ? admitting(holder) : null;
            if (answer === null) {
              // No lease, or it cannot answer: it goes back and the shard grants again from its counts.
              holder = null;
              const terms = leaseTerms({
                caps: plan,
                day: shard.count(istDay(now)),
                month: shard.count(istMonth(now)),
                recentAdmissions: shard.recent(now).length,
                ratePerSecond: 5,
                leaseMs,
                now,
              });
              expect(terms.expiresAt).toBeLessThanOrEqual(istNextDayStart(now));
              if (terms.allotment === 0) answer = shard.decide(plan, now);
              else {
                grants++;
                holder = new LeaseHolder({
                  leaseId: `l${grants}`,
                  caps: plan,
                  day: shard.count(istDay(now)),
                  month: shard.count(istMonth(now)),
                  burst: shard.recent(now),
                  inFlight: [...shard.holds].map(([requestId, h]) => ({
                    requestId,
                    inDay: h.day === istDay(now),
                    inMonth: h.month === istMonth(now),
                  })),
                  allotment: terms.allotment,
                  grantedAt: now,
                  expiresAt: terms.expiresAt,
                });
                allotted = terms.allotment;
                answer = admitting(holder);
              }
            }
            expect(answer, `request ${id} at ${new Date(now).toISOString()}`).toEqual(expected);
            if (answer?.kind === 'admitted') shard.record(id, now);
            // An extension asked as the holder would, answered at once from the shard's counts, which
            // hold the whole allotment: the holder's admissions are among them, and what is left of it.
            if (extending && holder && answer?.kind === 'admitted' && holder.endsSoon(now)) {
              const unused = allotted - holder.used;
              const terms = extensionTerms({
                caps: plan,
                day: shard.count(istDay(now)) + unused,
                month: shard.count(istMonth(now)) + unused,
                recentAdmissions: shard.recent(now).length + unused,
                used: holder.used,
                allotment: allotted,
                grantedAt: holder.grant.grantedAt,
                expiresAt: holder.expiresAt,
                leaseMs,
                now,
              });
              if (terms) {
                expect(terms.allotment).toBeGreaterThanOrEqual(allotted);
                expect(terms.expiresAt).toBeLessThanOrEqual(
                  Math.min(holder.grant.grantedAt + MAX_LEASE_MS, istNextDayStart(now)),
                );
                expect(holder.extend(terms.allotment, terms.expiresAt, now)).toBe(true);
                allotted = terms.allotment;
              }
            }
            // The holder never admits more than the shard counts for it.
            if (holder) expect(holder.used).toBeLessThanOrEqual(allotted);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('size an allotment by the rate and the lease, within half of the smallest headroom, and never into the next IST day', () => {
    const now = Date.parse('2026-12-01T06:00:00Z');
    const base = {
      caps: { daily: null, monthly: null, burst: null },
      day: 0,
      month: 0,
      recentAdmissions: 0,
      now,
    };
    expect(leaseTerms({ ...base, ratePerSecond: 100, leaseMs: 2_000 })).toEqual({
      allotment: 250,
      expiresAt: now + 2_000,
    });
    // The daily cap leaves 40: at most 20 go out on the lease.
    expect(
      leaseTerms({ ...base, caps: { daily: 50, monthly: null }, day: 10, ratePerSecond: 100, leaseMs: 2_000 })
        .allotment,
    ).toBe(20);
    // The burst cap (60 a minute) with 59 used leaves one, and a quiet account still gets one.
    expect(
      leaseTerms({
        ...base,
        caps: { daily: null, monthly: null },
        recentAdmissions: 59,
        ratePerSecond: 100,
        leaseMs: 2_000,
      }).allotment,
    ).toBe(1);
    expect(leaseTerms({ ...base, ratePerSecond: 0, leaseMs: 2_000 }).allotment).toBe(1);
    // No headroom, no lease.
    expect(
      leaseTerms({
        ...base,
        caps: { daily: 5, monthly: 500 },
        day: 5,
        month: 5,
        ratePerSecond: 10,
        leaseMs: 2_000,
      }).allotment,
    ).toBe(0);
    // Granted a second before IST midnight, it ends at midnight.
    const late = Date.parse('2026-12-01T18:29:59Z');
    expect(leaseTerms({ ...base, now: late, ratePerSecond: 10, leaseMs: 5_000 })).toEqual({
      allotment: 13,
      expiresAt: Date.parse('2026-12-01T18:30:00Z'),
    });
  });

  it('gives a slow account a term long enough for a few of its requests, up to four lease lengths and never past the shortest life', () => {
    const now = Date.parse('2026-12-01T06:00:00Z');
    // A busy account: a lease length. One calling once a second: four seconds, for four of its requests.
    expect(termMs(2_000, 100)).toBe(2_000);
    expect(termMs(2_000, 1)).toBe(TERM_REQUESTS * 1_000);
    // Slower still: MAX_TERM_LENGTHS lease lengths at most; with no rate known, a lease length.
    expect(termMs(2_000, 0.5)).toBe(MAX_TERM_LENGTHS * 2_000);
    expect(termMs(2_000, 0.01)).toBe(MAX_TERM_LENGTHS * 2_000);
    expect(termMs(2_000, 0)).toBe(2_000);
    // Never past the shortest life a lease may have drawn, nor shorter than a lease length.
    expect(termMs(10_000, 0.01)).toBe(leaseLife(1));
    expect(termMs(30_000, 0.01)).toBe(30_000);
    // A grant for an account calling every two seconds: 8 s, and its allotment for those 8 s.
    expect(
      leaseTerms({
        caps: { daily: null, monthly: null, burst: 60 },
        day: 0,
        month: 0,
        recentAdmissions: 1,
        ratePerSecond: 0.5,
        leaseMs: 2_000,
        now,
      }),
    ).toEqual({ allotment: 5, expiresAt: now + 8_000 });
  });

  it('counts a request the shard admitted after the grant, with the figures the shard would have sent without the lease', () => {
    // The grant's own request was admitted at `at`; a second, sent before the grant reached the holder,
    // the shard admits while the allotment of 19 counts there as used.
    const at = Date.parse('2026-12-01T06:00:00Z');
    const plan: Caps = { daily: 50, monthly: 1_500 };
    const holder = new LeaseHolder({
      leaseId: 'l1',
      caps: plan,
      day: 1,
      month: 1,
      burst: [at],
      inFlight: [{ requestId: 'first', inDay: true, inMonth: true }],
      allotment: 19,
      grantedAt: at,
      expiresAt: at + 2_000,
    });
    const withAllotment = decide(plan, { burst: [at, ...Array(19).fill(at)], day: 20, month: 20 }, at + 5);
    const withoutLease = decide(plan, { burst: [at], day: 1, month: 1 }, at + 5);
    expect(withAllotment.rateLimit.remaining).toBe(29);
    const counted = holder.external('second', at + 5);
    expect(counted).toEqual(withoutLease);
    expect(counted!.rateLimit.remaining).toBe(48);
    expect(counted!.burst!.remaining).toBe(58);
    // Counted once, and in what the holder answers next.
    expect(holder.external('second', at + 6)).toBeNull();
    expect(holder.admit('third', at + 10)!.rateLimit.remaining).toBe(47);
    // Admitted before the grant: not the lease's to count.
    expect(holder.external('earlier', at - 1)).toBeNull();
    expect(holder.admit('fourth', at + 20)!.rateLimit.remaining).toBe(46);
  });

  it('hands back what it admitted, saying which ended without a 200', () => {
    const at = Date.parse('2026-12-01T06:00:00Z');
    const holder = new LeaseHolder({
      leaseId: 'l1',
      caps: { daily: 10, monthly: null, burst: null },
      day: 3,
      month: 3,
      burst: [],
      inFlight: [{ requestId: 'old', inDay: true, inMonth: true }],
      allotment: 2,
      grantedAt: at,
      expiresAt: at + 2_000,
    });
    expect(holder.admit('a', at)!.rateLimit.remaining).toBe(6);
    holder.settle('old', 'refunded');
    expect(holder.admit('b', at + 10)!.rateLimit.remaining).toBe(6);
    expect(holder.admit('c', at + 20)).toBeNull(); // the allotment is used
    holder.settle('a', 'charged');
    holder.settle('b', 'refunded');
    expect(holder.returned()).toEqual({
      leaseId: 'l1',
      from: 0,
      admitted: [
        { requestId: 'a', at, via: 'rest', refunded: false },
        { requestId: 'b', at: at + 10, via: 'rest', refunded: true },
      ],
    });
    expect(holder.admit('d', at + 2_000)).toBeNull(); // expired
  });

  it('lists the admissions it made whose requests have not settled, oldest first: not the shard’s in flight, not one it counted for the shard', () => {
    const at = Date.parse('2026-12-01T06:00:00Z');
    const holder = new LeaseHolder({
      leaseId: 'l1',
      caps: { daily: null, monthly: null, burst: null },
      day: 0,
      month: 0,
      burst: [],
      inFlight: [{ requestId: 'shard-in-flight', inDay: true, inMonth: true }],
      allotment: 10,
      grantedAt: at,
      expiresAt: at + 5_000,
    });
    for (const [i, id] of ['a', 'b', 'c', 'd'].entries()) holder.admit(id, at + i, i === 2 ? 'mcp' : 'rest');
    holder.external('shard-admitted', at + 10);
    holder.settle('a', 'charged');
    holder.settle('c', 'refunded');
    expect(holder.unsettled()).toEqual([
      { requestId: 'b', at: at + 1, via: 'rest', refunded: false },
      { requestId: 'd', at: at + 3, via: 'rest', refunded: false },
    ]);
    holder.settle('b', 'charged');
    holder.settle('d', 'refunded');
    expect(holder.unsettled()).toEqual([]);
  });

  it('extends a lease in use by the rate it was used at, out of half the headroom left, within a minute of its grant and the IST day, never more than MAX_ALLOTMENT out', () => {
    const grantedAt = Date.parse('2026-12-01T06:00:00Z');
    const now = grantedAt + 1_600;
    const base = {
      caps: { daily: null, monthly: null, burst: null } as Caps,
      day: 0,
      month: 0,
      recentAdmissions: 0,
      grantedAt,
      expiresAt: grantedAt + 2_000,
      leaseMs: 2_000,
      now,
    };
    // 160 of 200 used in 1.6 s (100 a second): another 2 s wants 250 more than the 160 used.
    expect(extensionTerms({ ...base, used: 160, allotment: 200 })).toEqual({
      allotment: 410,
      expiresAt: now + 2_000,
    });
    // Used slowly (1.25 a second), the allotment left is enough: only the expiry moves, by a term long
    // enough for TERM_REQUESTS of its requests (3.2 s), not a lease length.
    expect(extensionTerms({ ...base, used: 2, allotment: 200 })).toEqual({
      allotment: 200,
      expiresAt: now + 3_200,
    });
    // The daily cap leaves 30 over the counts (the allotment in them): at most 15 more.
    expect(
      extensionTerms({
        ...base,
        caps: { daily: 1_000, monthly: null, burst: null },
        day: 970,
        used: 160,
        allotment: 200,
      })?.allotment,
    ).toBe(215);
    // No headroom: the same allotment, for longer.
    expect(
      extensionTerms({
        ...base,
        caps: { daily: 500, monthly: null, burst: null },
        day: 500,
        used: 160,
        allotment: 200,
      }),
    ).toEqual({ allotment: 200, expiresAt: now + 2_000 });
    // Granted to a first request, quiet, then used at 10 a second: last extended at 1.5 s with 4 used,
    // asked again at 2.1 s with 10 used. Over its life that is 10 in 2.1 s (4.8 a second, 12 more for a
    // 2 s term: 22); over its present term 6 in 0.6 s (10 a second: 25 more, 35).
    const quiet = { ...base, now: grantedAt + 2_100, expiresAt: grantedAt + 4_000, used: 10, allotment: 11 };
    expect(extensionTerms(quiet)?.allotment).toBe(10 + Math.ceil((10 / 2.1) * 2 * 1.25));
    expect(extensionTerms({ ...quiet, termFrom: grantedAt + 1_500, termUsed: 4 })).toEqual({
      allotment: 35,
      expiresAt: grantedAt + 4_100,
    });
    // Its present term slower than its life: the life's rate stands.
    expect(extensionTerms({ ...quiet, termFrom: grantedAt + 1_000, termUsed: 9 })).toEqual(
      extensionTerms(quiet),
    );
    // A used count past the allotment, or below none, is not believed.
    expect(extensionTerms({ ...base, used: -5, allotment: 200 })).toEqual(
      extensionTerms({ ...base, used: 0, allotment: 200 }),
    );
    expect(extensionTerms({ ...base, used: 10_000, allotment: 200 })?.allotment).toBe(
      extensionTerms({ ...base, used: 200, allotment: 200 })?.allotment,
    );
    // A minute from the grant at most: then it ends as it is.
    expect(
      extensionTerms({
        ...base,
        now: grantedAt + 59_000,
        expiresAt: grantedAt + 59_500,
        used: 1,
        allotment: 5,
      }),
    ).toEqual({
      allotment: 5,
      expiresAt: grantedAt + MAX_LEASE_MS,
    });
    expect(
      extensionTerms({
        ...base,
        now: grantedAt + 59_900,
        expiresAt: grantedAt + MAX_LEASE_MS,
        used: 1,
        allotment: 5,
      }),
    ).toBeNull();
    // Never into the next IST day.
    const late = Date.parse('2026-12-01T18:29:59Z');
    expect(
      extensionTerms({
        ...base,
        grantedAt: late - 1_500,
        expiresAt: late + 500,
        now: late,
        used: 1,
        allotment: 5,
      })?.expiresAt,
    ).toBe(Date.parse('2026-12-01T18:30:00Z'));
    expect(
      extensionTerms({
        ...base,
        grantedAt: late - 1_500,
        expiresAt: late + 1_000,
        now: late,
        used: 1,
        allotment: 5,
      }),
    ).toBeNull();
    // 9,000 of 10,000 used: the rate wants more than MAX_ALLOTMENT out, which reports taken in make room for.
    const busy = { ...base, used: 9_000, allotment: MAX_ALLOTMENT };
    expect(extensionTerms(busy)!.allotment).toBe(MAX_ALLOTMENT);
    expect(extensionTerms({ ...busy, reported: 8_000 })!.allotment).toBe(8_000 + MAX_ALLOTMENT);
    // Granted for 4 s at a slow rate, then 4 used in 0.6 s: the rate's term (a lease length) is shorter
    // than the 3.4 s left. Units for that rate until it ends, not a refusal that leaves it to run out.
    expect(
      extensionTerms({ ...base, now: grantedAt + 600, expiresAt: grantedAt + 4_000, used: 4, allotment: 5 }),
    ).toEqual({ allotment: 4 + Math.ceil((4 / 0.6) * 3.4 * 1.25), expiresAt: grantedAt + 4_000 });
  });

  it("admits under an extension past the grant's expiry and allotment, never takes fewer admissions, and never shortens it", () => {
    const at = Date.parse('2026-12-01T06:00:00Z');
    const holder = freshHolder({ allotment: 8, at, lengthMs: 2_000 });
    for (const id of ['a', 'b', 'c', 'd', 'e']) expect(holder.admit(id, at + 100)).not.toBeNull();
    expect(holder.endsSoon(at + 100)).toBe(false);
    // A quarter of its length left: ask.
    expect(holder.endsSoon(at + 1_501)).toBe(true);
    expect(holder.admit('f', at + 200)).not.toBeNull();
    // A quarter of its allotment left: ask.
    expect(holder.endsSoon(at + 200)).toBe(true);
    for (const id of ['g', 'h']) expect(holder.admit(id, at + 300)).not.toBeNull();
    expect(holder.admit('i', at + 300)).toBeNull();
    expect(holder.extend(14, at + 3_000, at + 1_000)).toBe(true);
    expect(holder.admit('i', at + 2_500)).not.toBeNull();
    expect(holder.remaining).toBe(5);
    expect(holder.expiresAt).toBe(at + 3_000);
    expect(holder.extend(12, at + 4_000, at + 2_600)).toBe(false);
    // An extension that adds no admissions (the caps, or the most a lease allots): asked again only when
    // its term runs short, not for its allotment.
    for (const id of ['k', 'l', 'm']) expect(holder.admit(id, at + 2_900)).not.toBeNull();
    expect(holder.endsSoon(at + 2_900)).toBe(true);
    expect(holder.extend(14, at + 4_600, at + 2_900)).toBe(true);
    expect(holder.endsSoon(at + 2_950)).toBe(false);
    expect(holder.endsSoon(at + 4_200)).toBe(true);
    expect(holder.admit('j', at + 4_600)).toBeNull();
    // The shard kept its expiry (a burst) and its answer came back faster than the grant: it reads
    // earlier here. Its admissions are taken, the holder's expiry kept (refused, the lease ran out).
    const burst = freshHolder({ allotment: 5, at, lengthMs: 4_000, burst: 60 });
    for (const id of ['a', 'b', 'c', 'd', 'e']) expect(burst.admit(id, at + 100)).not.toBeNull();
    expect(burst.extend(30, at + 3_990, at + 150)).toBe(true);
    expect(burst.expiresAt).toBe(at + 4_000);
    expect(burst.admit('f', at + 200)).not.toBeNull();
  });

  it('draws a lease’s life at its grant between half a minute and a minute, and extends it no further', () => {
    expect(leaseLife(0)).toBe(MAX_LEASE_MS);
    expect(leaseLife(0.5)).toBe(45_000);
    expect(leaseLife(0.999_999)).toBeGreaterThan(30_000);
    expect(leaseLife(-1)).toBe(MAX_LEASE_MS);
    expect(leaseLife(2)).toBe(30_000);
    const grantedAt = Date.parse('2026-12-01T06:00:00Z');
    const extension = (now: number, expiresAt: number) =>
      extensionTerms({
        caps: { daily: null, monthly: null, burst: null },
        day: 0,
        month: 0,
        recentAdmissions: 0,
        used: 1,
        allotment: 5,
        grantedAt,
        expiresAt,
        lastEnd: grantedAt + leaseLife(0.5),
        leaseMs: 2_000,
        now,
      });
    expect(extension(grantedAt + 44_000, grantedAt + 44_500)?.expiresAt).toBe(grantedAt + 45_000);
    expect(extension(grantedAt + 44_900, grantedAt + 45_000)).toBeNull();
  });

  it('asks for an extension before the next request of a steady account would find the lease over, when one would still be on then', () => {
    const at = Date.parse('2026-12-01T06:00:00Z');
    // Granted on a request at `at` for 2 s; the account calls every 1.5 s.
    const steady = freshHolder({ allotment: 3, at, lengthMs: 2_000, burst: 60 });
    expect(steady.admit('a', at + 1_500)).not.toBeNull();
    // 0.5 s left is not under a quarter of the term, but the next request is due in 1.5 s.
    expect(steady.endsSoon(at + 1_500)).toBe(true);
    expect(steady.extend(3, at + 3_500, at + 1_500)).toBe(true);
    expect(steady.admit('b', at + 3_000)).not.toBeNull();
    expect(steady.endsSoon(at + 3_000)).toBe(true);
    // A busy account's lease is asked for nothing while most of its term is left.
    const busy = freshHolder({ allotment: 100, at, lengthMs: 2_000 });
    for (let i = 0; i < 10; i++) expect(busy.admit(`r${i}`, at + 500 + 10 * i)).not.toBeNull();
    expect(busy.endsSoon(at + 600)).toBe(false);
    // An account calling less often than a lease length: an extension would end before its next request.
    const sparse = freshHolder({ allotment: 3, at, lengthMs: 2_000 });
    expect(sparse.admit('a', at + 1_000)).not.toBeNull();
    expect(sparse.extend(3, at + 3_000, at + 1_000)).toBe(true);
    expect(sparse.admit('b', at + 2_600)).not.toBeNull();
    expect(sparse.endsSoon(at + 2_600)).toBe(true); // the last quarter of its term
    expect(sparse.extend(6, at + 4_600, at + 2_600)).toBe(true);
    // 0.1 s after the last, but the gap before was 1.6 s: one as long (a quarter more) would find 1.9 s
    // left over; two quick ones in a row leave nothing to ask for.
    expect(sparse.admit('c', at + 2_700)).not.toBeNull();
    expect(sparse.endsSoon(at + 2_700)).toBe(true);
    expect(sparse.admit('d', at + 2_800)).not.toBeNull();
    expect(sparse.endsSoon(at + 2_800)).toBe(false);
    const slow = freshHolder({ allotment: 3, at, lengthMs: 2_000 });
    expect(slow.admit('a', at + 0)).not.toBeNull();
    expect(slow.admit('b', at + 1_000)).not.toBeNull();
    expect(slow.endsSoon(at + 1_000)).toBe(true); // 1 s apart: due at 2 s, when the lease ends
    const rare = freshHolder({ allotment: 3, at, lengthMs: 2_000 });
    expect(rare.admit('a', at + 100)).not.toBeNull();
    expect(rare.extend(3, at + 3_600, at + 1_600)).toBe(true);
    expect(rare.admit('b', at + 2_200)).not.toBeNull();
    // 2.1 s apart, with 1.4 s left: a term from now (2 s) would not reach the next request either.
    expect(rare.endsSoon(at + 2_200)).toBe(false);
    // A lease with a burst cap whose allotment has grown over its life to 40, extended with 5 left for a
    // term of 6 s: 4 left is not a quarter of 40 to ask on, but more than a quarter of the term's 5.
    const grown = freshHolder({ allotment: 36, at, lengthMs: 6_000, burst: 60 });
    for (let i = 0; i < 35; i++) expect(grown.admit(`g${i}`, at + 100 * i)).not.toBeNull();
    expect(grown.extend(40, at + 9_500, at + 3_500)).toBe(true);
    expect(grown.remaining).toBe(5);
    expect(grown.admit('g35', at + 5_000)).not.toBeNull();
    expect(grown.endsSoon(at + 5_000)).toBe(false);
    expect(grown.admit('g36', at + 5_100)).not.toBeNull();
    expect(grown.admit('g37', at + 5_200)).not.toBeNull();
    expect(grown.admit('g38', at + 5_300)).not.toBeNull();
    expect(grown.endsSoon(at + 5_300)).toBe(true); // one left of the term's five
  });

  it('asks again for a burst after an extension the quiet before it sized, before the lease runs out', () => {
    const at = Date.parse('2026-12-07T06:00:00Z');
    // Granted with a first request, then quiet for 2.9 s: the next request asks (the gap), and the
    // shard, reading a rate of one in 2.9 s, moves the expiry and adds no admissions.
    const quiet = freshHolder({ allotment: 5, at, lengthMs: 4_000, burst: 60 });
    expect(quiet.admit('q0', at + 2_900)).not.toBeNull();
    expect(quiet.endsSoon(at + 2_900)).toBe(true);
    expect(quiet.extend(5, at + 10_900, at + 2_900)).toBe(true);
    // Then ten a second: asked again once three of the four left are used, while one is left for the
    // request that comes while the answer travels.
    for (const [i, t] of [3_000, 3_100].entries()) {
      expect(quiet.admit(`b${i}`, at + t)).not.toBeNull();
      expect(quiet.endsSoon(at + t)).toBe(false);
    }
    expect(quiet.admit('b2', at + 3_200)).not.toBeNull();
    expect(quiet.endsSoon(at + 3_200)).toBe(true);
    expect(quiet.remaining).toBe(1);
  });

  it('report each admission to the shard once, through reports and the return, however the answers to reports fall', () => {
    const op = fc.oneof(
      { weight: 6, arbitrary: fc.constant({ kind: 'admit' as const }) },
      {
        weight: 3,
        arbitrary: fc.record({
          kind: fc.constant('settle' as const),
          pick: fc.nat(),
          refund: fc.boolean(),
          byNumber: fc.boolean(),
        }),
      },
      { weight: 1, arbitrary: fc.constant({ kind: 'report' as const }) },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant('answer' as const), lost: fc.boolean() }) },
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 200 }), (ops) => {
        const at = START;
        const holder = freshHolder({ allotment: 1_000, at, lengthMs: 60_000 });
        // The shard's side, as AccountBook takes reports and the return: by number, in stream order.
        let taken = 0;
        const atShard: LeasedAdmission[] = [];
        const takeIn = (from: number, admitted: LeasedAdmission[]) => {
          if (from > taken) return;
          const fresh = admitted.slice(taken - from);
          atShard.push(...fresh);
          taken += fresh.length;
        };
        /** Reports sent and not answered yet, in order: each answer says how far the shard has taken in. */
        const unanswered: number[] = [];
        const admitted: string[] = [];
        const inFlight = new Set<string>();
        /** Refunds the shard must hear of (settle said the lease alone did not count them). */
        const toRelease = new Set<string>();
        const refunded = new Set<string>();
        for (const o of ops) {
          if (o.kind === 'admit') {
            const id = `r${admitted.length}`;
            if (holder.admit(id, at + admitted.length) === null) continue;
            admitted.push(id);
            inFlight.add(id);
          } else if (o.kind === 'settle') {
            const ids = [...inFlight];
            if (ids.length === 0) continue;
            const id = ids[o.pick % ids.length]!;
            inFlight.delete(id);
            // `r<k>` is the lease's admission number k.
            const number = o.byNumber ? Number(id.slice(1)) : undefined;
            const onlyHere = holder.settle(id, o.refund ? 'refunded' : 'charged', number);
            if (!o.refund) expect(onlyHere).toBe(false);
            else {
              refunded.add(id);
              if (!onlyHere) toRelease.add(id);
            }
          } else if (o.kind === 'report') {
            const report = holder.report();
            if (report === undefined) continue;
            // Only what has settled: the shard forgets what it recorded of a reported admission.
            for (const a of report.admissions) expect(inFlight.has(a.requestId)).toBe(false);
            takeIn(report.from, report.admissions);
            unanswered.push(taken);
          } else {
            const through = unanswered.shift();
            if (through !== undefined && !o.lost) holder.reportedThrough(through);
          }
          // What the lease holds in flight is what has not settled, in the order admitted.
          expect(holder.unsettled().map((a) => a.requestId)).toEqual(
            admitted.filter((id) => inFlight.has(id)),
          );
        }
        const back = holder.returned();
        takeIn(back.from, back.admitted);
        // Every admission once, in the order made; the count the holder gives agrees.
        expect(atShard.map((a) => a.requestId)).toEqual(admitted);
        expect(holder.used).toBe(admitted.length);
        // A refund the shard took in as charged-or-in-flight is one it hears of as a release.
        for (const a of atShard)
          if (refunded.has(a.requestId) && !a.refunded) expect(toRelease.has(a.requestId)).toBe(true);
        // And one it was told of as refunded needed no release (the lease alone counted it).
        for (const a of atShard) if (a.refunded) expect(toRelease.has(a.requestId)).toBe(false);
      }),
      { numRuns: 500 },
    );
  });

  it('reports only without a burst cap, once enough admissions are unreported', () => {
    const at = Date.parse('2026-12-01T06:00:00Z');
    const make = (burst: number | null) =>
      freshHolder({ allotment: 3 * REPORT_EVERY, at, lengthMs: 2_000, burst });
    const capped = make(5_000);
    const open = make(null);
    for (let i = 0; i < REPORT_EVERY; i++) {
      expect(open.reportDue()).toBe(false);
      capped.admit(`c${i}`, at);
      capped.settle(`c${i}`, 'charged');
      open.admit(`o${i}`, at);
      if (i > 0) open.settle(`o${i}`, 'charged');
    }
    // The first is still in flight: nothing after it is reported either.
    expect(open.reportDue()).toBe(false);
    expect(open.report()).toBeUndefined();
    open.settle('o0', 'charged');
    expect(open.reportDue()).toBe(true);
    expect(capped.reportDue()).toBe(false);
    expect(capped.report()).toBeUndefined();
    const report = open.report()!;
    expect(report.from).toBe(0);
    expect(report.admissions).toHaveLength(REPORT_EVERY);
    expect(open.reportDue()).toBe(false);
    // Taken in: the return starts after it; the allotment still counts every admission made.
    open.reportedThrough(REPORT_EVERY);
    open.admit('next', at + 1);
    expect(open.returned()).toMatchObject({ from: REPORT_EVERY, admitted: [{ requestId: 'next' }] });
    expect(open.remaining).toBe(2 * REPORT_EVERY - 1);
  });

  it('report admissions once they have settled, up to the first still in flight', () => {
    const at = Date.parse('2026-12-01T06:00:00Z');
    const holder = freshHolder({ allotment: 10, at, lengthMs: 2_000 });
    for (const id of ['a', 'b', 'c', 'd']) holder.admit(id, at);
    holder.settle('a', 'charged');
    holder.settle('c', 'refunded');
    const ids = (r: ReturnType<LeaseHolder['report']>) => r?.admissions.map((a) => a.requestId);
    expect(holder.report()).toMatchObject({ from: 0 });
    expect(ids(holder.report())).toBeUndefined();
    holder.settle('b', 'charged');
    const second = holder.report()!;
    expect(second.from).toBe(1);
    expect(second.admissions).toEqual([
      { requestId: 'b', at, via: 'rest', refunded: false },
      { requestId: 'c', at, via: 'rest', refunded: true },
    ]);
    // d, never reported, goes back with the lease; a refund of it is the lease's alone.
    expect(holder.settle('d', 'refunded')).toBe(true);
    expect(holder.returned()).toMatchObject({
      from: 0,
      admitted: [
        { requestId: 'a' },
        { requestId: 'b' },
        { requestId: 'c' },
        { requestId: 'd', refunded: true },
      ],
    });
  });
});
