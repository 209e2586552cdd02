import { istDay, istNextDayStart } from '@mdp/nse-calendar';
import { BurstWindow } from './burst-window.ts';
import { BURST_LIMIT, BURST_WINDOW_MS, type Caps, type Decision, decide } from './decide.ts';

/**
 * Admission leases (docs/proposals/admission-leases.md): a shard hands one gateway at a time the state
 * `decide` needs for one account and an allotment of admissions, and that gateway decides locally
 * with the same function until the allotment is used, the lease expires or the shard recalls it. Pure:
 * the clock is every method's `now`.
 */

/** A request of the account in flight at the grant: a unit counted until it settles. */
export interface LeasedHold {
  requestId: string;
  /** Whether it counts in the grant's IST day (it may be from the day before) and month. */
  inDay: boolean;
  inMonth: boolean;
}

/** What a grant carries: the account's caps and counts, its burst window, and how far it may go. */
export interface LeaseGrant {
  leaseId: string;
  caps: Caps;
  /** Units counted against the day's and the month's caps at the grant: charged and in flight. */
  day: number;
  month: number;
  /** The account's admission times within the minute before the grant, oldest first. */
  burst: readonly number[];
  /** The requests in flight among `day` and `month`, which the holder sees settle. */
  inFlight: readonly LeasedHold[];
  /** Admissions the holder may make. */
  allotment: number;
  grantedAt: number;
  /** Never past the IST day (nor so the month) of the grant: its counts are that day's. */
  expiresAt: number;
}

/** How long and how much a grant is for. */
export interface LeaseTerms {
  allotment: number;
  expiresAt: number;
}

/**
 * The most admissions a lease may have out at once, whatever the account's rate: allotted and not yet
 * reported to its shard (`LeaseHolder.report`). A return carries at most that many.
 */
export const MAX_ALLOTMENT = 10_000;

/**
 * Admissions made and not reported that make a report due (`LeaseHolder.reportDue`): a busy account's
 * admissions reach its shard in reports of about this many, each a few tens of kilobytes, where a
 * lease used up at `MAX_ALLOTMENT` came back with 10,000 in one message (about 0.5 MB, which took each
 * side milliseconds to encode and decode while the account's requests waited for the shard).
 */
export const REPORT_EVERY = 1_000;

/** The requests a term is long enough for, at the account's rate, where a lease length is not. */
export const TERM_REQUESTS = 4;
/** The longest a term may be, in lease lengths (and never longer than the shortest life, `leaseLife`). */
export const MAX_TERM_LENGTHS = 4;

/**
 * How long a term (a grant's, or an extension's) lasts for an account used at `ratePerSecond`: a lease
 * length, or long enough for about `TERM_REQUESTS` of its requests, up to `MAX_TERM_LENGTHS` lease
 * lengths. An account calling about once a second or less (a `business` account within its burst cap)
 * would otherwise need an extension with nearly every request, each a message both ways and the shard's
 * work, to stay on its lease (6 December 2026: 880 extensions a 1,000 requests in `make bench`'s `steady`
 * row). What a silent holder strands stays small: the allotment is for about those few requests (a
 * quarter more), counted against the caps until the term ends; another gateway asking for the account
 * still waits at most a lease length for it (`afterLease`), then is admitted per request beside it.
 */
export function termMs(leaseMs: number, ratePerSecond: number): number {
  const most = Math.min(MAX_TERM_LENGTHS * leaseMs, MAX_LEASE_MS / 2);
  if (!(ratePerSecond > 0)) return leaseMs;
  return Math.max(leaseMs, Math.min(most, Math.ceil((TERM_REQUESTS * 1000) / ratePerSecond)));
}

/** What the counts leave under the smallest of the day's, the month's and the burst window's caps. */
function headroomOf(o: { caps: Caps; day: number; month: number; recentAdmissions: number }): number {
  const burst = o.caps.burst === undefined ? BURST_LIMIT : o.caps.burst;
  return Math.min(
    o.caps.daily === null ? Number.POSITIVE_INFINITY : o.caps.daily - o.day,
    o.caps.monthly === null ? Number.POSITIVE_INFINITY : o.caps.monthly - o.month,
    burst === null ? Number.POSITIVE_INFINITY : burst - o.recentAdmissions,
  );
}

/**
 * A grant's terms: enough admissions for the account's recent rate over the lease (a quarter more, so
 * a lease is seldom renewed early), never more than the smallest headroom of its day, month and burst
 * windows, and at most half of that headroom, so a holder that dies strands little of it; ending after a
 * term (`termMs`) or at the next IST midnight, whichever is first. No lease (allotment 0) without
 * headroom: the shard's own decision says why.
 */
export function leaseTerms(opts: {
  caps: Caps;
  day: number;
  month: number;
  /** Admissions within the minute before `now`. */
  recentAdmissions: number;
  /** The account's recent admissions a second. */
  ratePerSecond: number;
  leaseMs: number;
  now: number;
}): LeaseTerms {
  const expiresAt = Math.min(opts.now + termMs(opts.leaseMs, opts.ratePerSecond), istNextDayStart(opts.now));
  const headroom = headroomOf(opts);
  if (!(headroom > 0)) return { allotment: 0, expiresAt };
  const wanted = Math.ceil(opts.ratePerSecond * ((expiresAt - opts.now) / 1000) * 1.25);
  const allotment = Math.min(MAX_ALLOTMENT, Math.max(1, wanted), Math.max(1, Math.floor(headroom / 2)));
  return { allotment, expiresAt };
}

/**
 * How long a lease may last in all, its extensions included: a minute, the burst window. What the shard
 * keeps of a lease out, and what comes back with it, is bounded by what the lease has out, not by how
 * long it lasts: at most `MAX_ALLOTMENT` admissions not taken in from a report (a lease with a burst
 * cap does not report, so it allots no more than that in all). A busy account's requests reach its
 * shard once every half minute to a minute (`leaseLife`), for a grant with its counts read afresh. (Four
 * lease lengths, 8 s, until 6 December 2026: a steady account's requests reached its shard every 8 s.)
 */
export const MAX_LEASE_MS = BURST_WINDOW_MS;

/**
 * How long a lease granted now may last in all (its last end after its grant), from a draw in [0, 1)
 * made at the grant: between half of `MAX_LEASE_MS` and all of it. Leases granted together (every
 * account's after a shard starts, or a re-shard, or a pool of callers that start at once) would otherwise
 * all end together, and again a minute later, each account's next request then waiting for its shard at
 * the same moment: in `make bench`'s `steady` row, 2,000 in about a second and a half, those waits' p99
 * 172 ms and the row's 114 ms (6 December 2026).
 */
export const leaseLife = (draw: number): number =>
  MAX_LEASE_MS - Math.floor((Math.min(Math.max(draw, 0), 1) * MAX_LEASE_MS) / 2);

/**
 * An extension's terms, for a lease its holder is using (`used` of `allotment` admitted since
 * `grantedAt`; `termUsed` of them when its present term began at `termFrom`, its last extension): it may
 * last another term from `now` (`termMs` at the rate it has been used at, over its life or over its
 * present term, whichever is higher; not past
 * its `lastEnd`, nor `MAX_LEASE_MS` from the grant, nor the IST day; and no sooner than it ends now),
 * with enough admissions for that rate over that time, as a grant's (`leaseTerms`). The units added come
 * out of the headroom that the counts (`day`, `month`, `recentAdmissions`: with the whole allotment
 * already in them) leave, at most half of it. Null when the lease may not last longer (its life or the
 * IST day).
 */
export function extensionTerms(opts: {
  caps: Caps;
  day: number;
  month: number;
  recentAdmissions: number;
  used: number;
  allotment: number;
  /** Admissions of the lease its shard has taken in from reports: no longer out on it. */
  reported?: number;
  grantedAt: number;
  /**
   * When its present term began (its last extension) and how many it had used then: a lease granted to
   * an account's first request, then used in a burst after a quiet spell, was extended at its life's
   * rate, the quiet spell in it, ran out and sent the burst's next request to its shard (7 December 2026).
   */
  termFrom?: number;
  termUsed?: number;
  expiresAt: number;
  /** The latest it may end, drawn at the grant (`leaseLife`); `MAX_LEASE_MS` from the grant if absent. */
  lastEnd?: number;
  leaseMs: number;
  now: number;
}): LeaseTerms | null {
  const { now, leaseMs, grantedAt } = opts;
  const used = Math.min(Math.max(0, opts.used), opts.allotment);
  const rateSince = (from: number, n: number) => n / Math.max(0.25, (now - from) / 1000);
  const rate = Math.max(
    rateSince(grantedAt, used),
    opts.termFrom === undefined ? 0 : rateSince(opts.termFrom, used - Math.min(opts.termUsed ?? 0, used)),
  );
  const lastEnd = Math.min(opts.lastEnd ?? Number.POSITIVE_INFINITY, grantedAt + MAX_LEASE_MS);
  const latest = Math.min(lastEnd, istNextDayStart(now));
  if (latest <= opts.expiresAt || istDay(now) !== istDay(grantedAt)) return null;
  // Never shorter: a burst under a lease granted for a slower rate wants a shorter term than it has
  // left, and units for that rate until it ends. (Refused, the holder stopped asking, the lease was used
  // up, and the account's next request waited for its shard.)
  const expiresAt = Math.min(Math.max(now + termMs(leaseMs, rate), opts.expiresAt), latest);
  const wanted = used + Math.ceil(rate * ((expiresAt - now) / 1000) * 1.25);
  const headroom = headroomOf(opts);
  const added = Math.max(0, Math.min(wanted - opts.allotment, Math.floor(headroom / 2)));
  const most = (opts.reported ?? 0) + MAX_ALLOTMENT;
  return { allotment: Math.max(opts.allotment, Math.min(most, opts.allotment + added)), expiresAt };
}

/** An admission made under a lease, as it goes back to the shard. */
export interface LeasedAdmission {
  requestId: string;
  at: number;
  /** The front door it came through (the usage document counts units by it). */
  via: string;
  /**
   * It ended without a 200 (refunded, or its charge voided): it stays in the burst window and counts
   * nowhere else. Any other may have been charged, and is held until the shard records its settlement.
   */
  refunded: boolean;
}

/** A unit the shard admitted, counted until its request settles (the lease's own are in `admitted`). */
interface Hold {
  inDay: boolean;
  inMonth: boolean;
}

/**
 * What goes back to the shard: the admissions made under the lease that it has not taken in from a
 * report, oldest first, numbered from `from` (the lease's admissions are numbered from 0 as made).
 */
export interface LeaseReturn {
  leaseId: string;
  from: number;
  admitted: LeasedAdmission[];
}

/** Admissions made under a lease and not reported before, numbered from `from`. */
export interface LeaseReport {
  from: number;
  admissions: LeasedAdmission[];
}

/**
 * The holder's side of one lease. `admit` answers what the shard would have answered for a request at
 * `now`, or null when this lease may not answer it (expired, or its allotment used by an admission):
 * the holder then returns the lease and asks the shard. Exact while every request and settlement of the
 * account passes through this holder, as affinity routes them; anything else (a hold the shard expires)
 * only frees units, so the holder's answers can be stricter than the shard's, never laxer.
 */
export class LeaseHolder {
  private readonly times = new BurstWindow();
  /**
   * Without a burst cap there is no window to keep, as at the shard: a load-test account admits
   * thousands a second, a minute of which the window would hold for nothing.
   */
  private readonly windowed: boolean;
  private day: number;
  private month: number;
  /**
   * The units the shard admitted (in flight at the grant, or `external`), by request id, until they
   * settle. The lease's own admissions are not here: they are found by their number (`settle`), so an
   * admission costs no hashing of its id and no entry in a table that is cold on a pool of accounts.
   */
  private readonly holds = new Map<string, Hold>();
  /** Admissions made here, oldest first, from number `taken` on: those before it the shard has taken in. */
  private readonly admitted: LeasedAdmission[] = [];
  /** Whether each of `admitted` (the same positions) is still in flight. */
  private readonly open: boolean[] = [];
  /** Admissions made here in all. */
  private made = 0;
  /** Admissions the shard has taken in from reports (numbers below this). */
  private taken = 0;
  /** Admissions sent in a report (numbers below this), taken in or not yet. */
  private sent = 0;
  /**
   * Admissions settled, with every one before them (numbers below this; moved on as they settle): what
   * a report may carry. One whose charge is not acknowledged yet may still be voided, and the shard
   * forgets what it recorded of an admission once a report has brought it (`AccountBook.takeIn`), so
   * none is reported before then.
   */
  private settledThrough = 0;
  /** The IST day the grant's counts are of. */
  private readonly grantDay: string;
  /** The grant's, until an extension raises them. */
  private allotment: number;
  private ends: number;
  /** When the lease's present term began: the grant, or the last extension. */
  private termFrom: number;
  /**
   * The admissions left when the present term began: what a lease with a burst cap has out, for the
   * units rule of `endsSoon`. Such a lease never reports, so its allotment grows with every extension for
   * its whole life; a quarter of that is soon more than a term's share, and asked on it, a steady account
   * asked for an extension with every request. (A lease that reports has out its allotment less what the
   * shard took in.)
   */
  private termUnits: number;
  /**
   * The admissions made from which the units rule of `endsSoon` may ask again: 0 after an extension that
   * added admissions (or before any); after one that added none (the caps, the most a lease has out, or
   * a rate read while the account was quiet), once three quarters of what was left then are used. So a
   * capped lease asks a few times more in all, not with every request (asking again would only move its
   * expiry), and an account that bursts after a quiet spell is asked for at its burst's rate before its
   * lease runs out (a lease granted to a first request, then extended in the quiet: 0.4 more grants an
   * account in `make bench`'s pool, each with a request decided by its shard; 7 December 2026).
   */
  private askAt = 0;
  /** When the latest admission here was made (the grant's, decided by the shard, before any). */
  private lastAt: number;
  /** The time between the latest two admissions (0 before there were two). */
  private lastGap = 0;
  /**
   * The longer of the last two times between admissions: how soon after the latest the account's next
   * request may come. The last alone was too short a guess for a caller whose requests, every 1.5 s on
   * average, come 1 s and 2 s apart in turn (a one-second timer): its lease ended before every 2 s gap.
   */
  private gap = Number.POSITIVE_INFINITY;

  constructor(readonly grant: LeaseGrant) {
    this.allotment = grant.allotment;
    this.ends = grant.expiresAt;
    this.termFrom = grant.grantedAt;
    this.termUnits = grant.allotment;
    this.lastAt = grant.grantedAt;
    this.windowed = grant.caps.burst !== null;
    if (this.windowed) for (const t of grant.burst) this.times.push(t);
    this.day = grant.day;
    this.month = grant.month;
    for (const h of grant.inFlight) this.holds.set(h.requestId, { inDay: h.inDay, inMonth: h.inMonth });
    this.grantDay = istDay(grant.grantedAt);
  }

  /** Admissions still allowed under the lease. */
  get remaining(): number {
    return this.allotment - this.made;
  }

  /** Admissions made under the lease so far. */
  get used(): number {
    return this.made;
  }

  /**
   * Whether enough admissions are unreported to send a report (with an extension request). Only a lease
   * on a plan without a burst cap reports: with one, the shard places the allotment in the burst window
   * until the lease is back, and a lease allots at most the cap a minute anyway.
   */
  reportDue(): boolean {
    return !this.windowed && this.settledThrough - this.sent >= REPORT_EVERY;
  }

  /**
   * The settled admissions not reported yet, up to the first still in flight (none with a burst cap);
   * from now on a refund of any is the shard's to hear.
   */
  report(): LeaseReport | undefined {
    if (this.windowed) return undefined;
    const through = this.settledThrough;
    if (through === this.sent) return undefined;
    const from = this.sent;
    this.sent = through;
    // The records themselves, not copies: a settled admission's record never changes again.
    return { from, admissions: this.admitted.slice(from - this.taken, through - this.taken) };
  }

  /** The shard has taken in the admissions numbered below `through`: they are not returned with the lease. */
  reportedThrough(through: number): void {
    const upTo = Math.min(through, this.sent);
    if (upTo <= this.taken) return;
    this.admitted.splice(0, upTo - this.taken);
    this.open.splice(0, upTo - this.taken);
    this.taken = upTo;
  }

  /** When the lease ends, on this holder's clock (the grant's expiry, or an extension's). */
  get expiresAt(): number {
    return this.ends;
  }

  /**
   * Whether to ask the shard for an extension now: under a quarter of the lease's present term is left
   * (from its grant or its last extension); or the account's next request, as far after this one as the
   * longer of the last two gaps (a quarter more, for jitter), would find the lease over, and an extension
   * (a term from now) would still be on when it comes; or a quarter of what it has out is left (its
   * allotment less what the shard has taken in from reports; with a burst cap, which never reports, what
   * was left at the term's start; one admission, of a small one), once `askAt` admissions are made. The
   * second keeps a steady account that calls less often than once a quarter term (a `business`
   * account within its burst cap, about once a second) on its lease: asked only in a term's last quarter,
   * its lease ended between two requests, and every other one was decided by its shard, with a grant and
   * a return besides.
   */
  endsSoon(now: number): boolean {
    const left = this.ends - now;
    const term = this.ends - this.termFrom;
    if (left < term / 4) return true;
    if (this.gap < term && left < this.gap * 1.25) return true;
    const out = this.windowed ? this.termUnits : this.allotment - this.taken;
    return this.made >= this.askAt && this.remaining <= Math.max(1, out / 4);
  }

  /**
   * The shard extended the lease at `now`: its whole allotment and its expiry (on this holder's clock)
   * now. An answer with fewer admissions is not applied. One with an earlier expiry than the holder's
   * keeps the holder's: each is the shard's moved by its own message's transit, so an extension that
   * keeps the shard's expiry (`extensionTerms`, a burst) reads earlier whenever its answer came back
   * faster than the grant did; refused, the gateway stopped asking and the lease was used up, its
   * account's next request waiting for its shard (in `make bench`'s pool, about 0.3 more grants an
   * account in the warm-up).
   */
  extend(allotment: number, expiresAt: number, now: number): boolean {
    if (allotment < this.allotment) return false;
    this.askAt =
      allotment > this.allotment ? 0 : this.made + Math.ceil(((this.allotment - this.made) * 3) / 4);
    this.allotment = allotment;
    this.ends = Math.max(this.ends, expiresAt);
    this.termFrom = now;
    this.termUnits = this.remaining;
    return true;
  }

  admit(requestId: string, now: number, via = 'rest'): Decision | null {
    if (now >= this.ends || now < this.grant.grantedAt || istDay(now) !== this.grantDay) return null;
    if (this.windowed) this.times.evictThrough(now - BURST_WINDOW_MS);
    const decision = decide(this.grant.caps, { burst: this.times, day: this.day, month: this.month }, now);
    if (decision.kind !== 'admitted') return decision;
    if (this.remaining <= 0) return null;
    if (this.windowed) this.times.push(now);
    this.gap = Math.max(now - this.lastAt, this.lastGap);
    this.lastGap = now - this.lastAt;
    this.lastAt = now;
    this.day++;
    this.month++;
    this.admitted.push({ requestId, at: now, via, refunded: false });
    this.open.push(true);
    this.made++;
    return decision;
  }

  /**
   * A request of this account the shard admitted after the grant (sent before the grant reached this
   * holder): the shard counted it beside the allotment, so it counts here too, outside the allotment.
   * Returns this holder's decision of it, whose figures are the account's: the shard's counted the
   * allotment out on the lease as used, and an allotment is never reported as used. Null when it is not
   * this lease's to count, or when the holder would not have admitted it (the shard's figures stand).
   */
  external(requestId: string, at: number): Decision | null {
    if (this.holds.has(requestId) || at < this.grant.grantedAt || istDay(at) !== this.grantDay) return null;
    if (this.windowed) this.times.evictThrough(at - BURST_WINDOW_MS);
    const decision = decide(this.grant.caps, { burst: this.times, day: this.day, month: this.month }, at);
    if (this.windowed) this.times.push(at);
    this.day++;
    this.month++;
    this.holds.set(requestId, { inDay: true, inMonth: true });
    return decision.kind === 'admitted' ? decision : null;
  }

  /**
   * A request of this account settled: a charge keeps its unit, a refund (or void) frees it, as the
   * shard's counts do. A request the lease does not know is not its to count. True when the request was
   * admitted here and not reported: nobody but this lease counts it, so the shard need not hear of its
   * refund (it goes back marked refunded, if at all); false when the shard may hold it. `admittedAs`:
   * its number among this lease's admissions (`used` just before it was admitted here), which finds it
   * at once; without it, one admitted here is looked for among those in flight.
   */
  settle(requestId: string, outcome: 'charged' | 'refunded', admittedAs?: number): boolean {
    const i = this.openIndex(requestId, admittedAs);
    if (i < 0) return this.settleHold(requestId, outcome);
    this.open[i] = false;
    if (i === this.settledThrough - this.taken) {
      let n = this.settledThrough + 1;
      while (n < this.made && !this.open[n - this.taken]) n++;
      this.settledThrough = n;
    }
    if (outcome === 'charged') return false;
    this.admitted[i]!.refunded = true;
    this.day--;
    this.month--;
    return i + this.taken >= this.sent;
  }

  /** Where in `admitted` the request is, admitted here and in flight; -1 if it is not. */
  private openIndex(requestId: string, admittedAs: number | undefined): number {
    if (admittedAs !== undefined) {
      const i = admittedAs - this.taken;
      return i >= 0 && i < this.admitted.length && this.open[i] && this.admitted[i]!.requestId === requestId
        ? i
        : -1;
    }
    if (this.holds.size > 0 && this.holds.has(requestId)) return -1;
    for (let i = this.settledThrough - this.taken; i < this.admitted.length; i++)
      if (this.open[i] && this.admitted[i]!.requestId === requestId) return i;
    return -1;
  }

  /** A request the shard admitted settled: its unit counted here goes, and a refund frees it. */
  private settleHold(requestId: string, outcome: 'charged' | 'refunded'): false {
    const hold = this.holds.get(requestId);
    if (!hold) return false;
    this.holds.delete(requestId);
    if (outcome === 'charged') return false;
    if (hold.inDay) this.day--;
    if (hold.inMonth) this.month--;
    return false;
  }

  /**
   * The admissions made under this lease whose requests have not settled, oldest first: when the lease
   * ends, the shard that takes them in (or a restart of it) must be told of them again until they do.
   */
  unsettled(): LeasedAdmission[] {
    const open: LeasedAdmission[] = [];
    for (let i = this.settledThrough - this.taken; i < this.admitted.length; i++)
      if (this.open[i]) open.push(plain(this.admitted[i]!));
    return open;
  }

  /** The lease as it goes back to the shard. */
  returned(): LeaseReturn {
    return { leaseId: this.grant.leaseId, from: this.taken, admitted: this.admitted.map(plain) };
  }
}

const plain = (a: LeasedAdmission): LeasedAdmission => ({
  requestId: a.requestId,
  at: a.at,
  via: a.via,
  refunded: a.refunded,
});
