import {
  BURST_WINDOW_MS,
  BurstWindow,
  type Caps,
  type Decision,
  decide,
  extensionTerms,
  type LeasedAdmission,
  type LeaseGrant,
  leaseLife,
  leaseTerms,
} from '@mdp/admission';
import { istDay, istMonth } from '@mdp/nse-calendar';
import { INTERFACES, type Interface } from '@mdp/usage';

interface Hold {
  accountId: string;
  day: string;
  month: string;
  via: Interface;
  expiresAt: number;
  /**
   * Handed over by the shard that admitted it (`adopt`): its settlement is recorded on that shard's
   * subject, by another consumer, so it is held until that subject is recorded past its expiry, and the
   * account's charged counts are then read again from the projections.
   */
  subject?: number;
}

/**
 * A request whose charge its gateway is voiding (see `withdraw`), until its `voided` event is recorded.
 * `withheld`: its charge is recorded, so it is taken off the account's charged count meanwhile.
 */
interface Withdrawn {
  accountId: string;
  day: string;
  month: string;
  via: Interface;
  expiresAt: number;
  withheld: boolean;
}

/**
 * How long a withdrawn request waits for its `voided` event: longer than a gateway retries publishing
 * it (10 minutes). One that never comes leaves the charge counted, as the log has it.
 */
export const VOID_WAIT_MS = 15 * 60_000;

const withdrawal = (accountId: string, admittedAt: number, now: number, via: Interface): Withdrawn => ({
  accountId,
  day: istDay(admittedAt),
  month: istMonth(admittedAt),
  via,
  expiresAt: now + VOID_WAIT_MS,
  withheld: false,
});

/** Units per interface. */
export type ByInterface = Record<Interface, number>;

export const noUnits = (): ByInterface => Object.fromEntries(INTERFACES.map((i) => [i, 0])) as ByInterface;

/** An interface as a gateway names it; an older gateway names none, and only REST existed then. */
export const interfaceOf = (name: string): Interface =>
  (INTERFACES as readonly string[]).includes(name) ? (name as Interface) : 'rest';

/**
 * Counter keys: a period ('YYYY-MM-DD' or 'YYYY-MM') counts every interface, `<period>|<interface>` one
 * of them. Caps read the first; the usage document also reports the others. Each period's keys are made
 * once: a Map keyed by a string made afresh hashes it on every use, and these are used several times an
 * admission. Periods are days and months, so the table stays small; it is emptied if it ever holds too
 * many.
 */
const keys = new Map<string, Record<Interface, string>>();
const key = (period: string, via: Interface): string => {
  let byVia = keys.get(period);
  if (byVia === undefined) {
    if (keys.size >= 10_000) keys.clear();
    byVia = Object.fromEntries(INTERFACES.map((i) => [i, `${period}|${i}`])) as Record<Interface, string>;
    keys.set(period, byVia);
  }
  return byVia[via];
};
const periodOf = (k: string) => k.split('|', 1)[0]!;

const anyPositive = (counts: Map<string, number>) => {
  for (const n of counts.values()) if (n > 0) return true;
  return false;
};

/** Accounts a sweep visits at most (`AccountBook.tidyAccounts`): about a millisecond's work. */
export const TIDY_PER_SWEEP = 5_000;

/**
 * A withdrawn request's key: its id within its account. The gateway makes every id, but the ledger
 * scopes them by account all the same, so no request of one account can ever meet another's withdrawal
 * (holds are kept in their account's state for the same reason). Settlement events bound both parts to
 * characters without a slash.
 */
const withdrawnKey = (accountId: string, requestId: string) => `${accountId}/${requestId}`;

/**
 * A lease out on an account (docs/proposals/admission-leases.md): its whole allotment counts against the
 * caps of its IST day and month, and as admitted at the end of its term in the burst window, until it
 * comes back or, its holder silent, until everything its holder could have charged is recorded.
 */
interface ShardLease {
  id: string;
  /** The admission stream it went out on. */
  holder: number;
  allotment: number;
  grantedAt: number;
  expiresAt: number;
  /** The latest an extension may take it to (`leaseLife`, drawn at the grant). */
  lastEnd: number;
  /** When its present term began (the grant, or its last extension), and its holder's `used` then. */
  termFrom: number;
  termUsed: number;
  day: string;
  month: string;
  /** The plan's caps at the grant: an extension is sized against them. */
  caps: Caps;
  /**
   * Admission times added to the burst window for the allotment, at the end of the term of the grant and
   * of each extension (none when the plan has no burst cap): how many at each time.
   */
  provisional: { at: number; count: number }[];
  /**
   * The account's settlements recorded with no hold while it is out (its holder's among them), less
   * those its holder has since reported, not refunded (`takeIn`): recorded and not taken in.
   */
  recorded: Map<string, string>;
  recalled: boolean;
  /**
   * Its admissions taken in from its holder's reports (numbered below this), each held as a return's
   * would be: no longer out on the lease, so the caps count them as held or charged, not in `allotment`.
   */
  reported: number;
  /** When the last admission taken in from a report was made (the lease's rate, at its return). */
  reportedAt: number;
}

/** A lease to give back to its holder's stream. */
export interface Recall {
  leaseId: string;
  holder: number;
}

/** Fewer admissions than this are not worth a lease: the account is admitted per request. */
const MIN_ALLOTMENT = 2;

interface AccountState {
  /**
   * Admission times of the last burst window, oldest first, in a ring buffer: O(1) per admission however
   * large the plan's burst cap (an array with `shift()` and a copy per decision cost the window's size).
   */
  burst: BurstWindow;
  /**
   * The requests of `burst` admitted before this process admitted anything (`admittedEarlier`), by id,
   * so that each counts once however often it is learnt of. Gone once none can be within a minute.
   */
  earlier?: Set<string>;
  /** The account moved here and its window was read from the log (`seedBurst`). */
  seeded?: boolean;
  /** Charged requests per counter key, as loaded from the projections and updated since. */
  charged: Map<string, number>;
  /** Requests admitted but not yet settled, per counter key. */
  held: Map<string, number>;
  /** Charges recorded whose void is on its way (`Withdrawn.withheld`), per counter key: not counted. */
  withheld: Map<string, number>;
  /**
   * Its requests held now, by id (`hold`, `releaseHold`). Kept in the account's state, not in one map of
   * the book's keyed by account and id: a key made of two ids is a new string to hash at every hold and
   * every release, which cost 1 to 3 µs an admission over 1,000 accounts (`bench/admission-book.ts`).
   */
  holds: Map<string, Hold>;
  lastSeen: number;
  lease?: ShardLease;
  /** The admission stream that last asked for it request by request, and when. */
  askedOn?: number;
  askedAt?: number;
  /** Seen on two streams within a lease's length: no lease before then. */
  contendedUntil?: number;
  /** Admissions in the current second (`rateSecond`) and the one before: its recent rate. */
  rateSecond: number;
  rateNow: number;
  ratePrev: number;
  /** What its last lease's holder admitted a second, and when the lease came back. */
  leasedRate?: { perSecond: number; at: number };
  /** The IST day `sweep` last dropped its counts of ended periods on. */
  prunedOn?: string;
}

/** A change of an account's charged count, as the projections just recorded it. */
export interface ChargeDelta {
  accountId: string;
  day: string;
  month: string;
  via: Interface;
  delta: number;
}

function add(counts: Map<string, number>, period: string, via: Interface, n: number): void {
  counts.set(period, (counts.get(period) ?? 0) + n);
  const k = key(period, via);
  counts.set(k, (counts.get(k) ?? 0) + n);
}

/** What a counter key counts against the caps and in usage: charged and in flight, less what is withheld. */
const counted = (s: AccountState | undefined, k: string) =>
  (s?.charged.get(k) ?? 0) + (s?.held.get(k) ?? 0) - (s?.withheld.get(k) ?? 0);

/**
 * Of a lease's admissions numbered from `from`, those the shard has not taken in from a report yet; a
 * holder never admits more than its allotment, so none past it is believed.
 */
const notTakenIn = (lease: ShardLease, from: number, admitted: readonly LeasedAdmission[]) =>
  admitted.slice(lease.reported - from, Math.max(0, lease.allotment - from));

/** What a period counts against the caps: `counted`, and what a lease out in it still has out. */
const admissionCount = (s: AccountState, period: string) =>
  counted(s, period) +
  (s.lease !== undefined && (s.lease.day === period || s.lease.month === period)
    ? s.lease.allotment - s.lease.reported
    : 0);

/** Admissions a second, from the last whole second's count (or this one's, when higher). */
const rateOf = (s: AccountState, now: number) => {
  const second = Math.floor(now / 1000);
  const tallied =
    second === s.rateSecond ? Math.max(s.rateNow, s.ratePrev) : second === s.rateSecond + 1 ? s.rateNow : 0;
  // The admissions its last lease's holder made count too: the shard saw none of them.
  const leased = s.leasedRate !== undefined && now - s.leasedRate.at < 10_000 ? s.leasedRate.perSecond : 0;
  return Math.max(tallied, leased);
};

/**
 * The admission state of the accounts one shard owns, in memory. This process is the only writer for
 * these accounts, so a decision is a synchronous read-and-update: exact, with no locks. Charged counts
 * come from the projections (loaded once per account and period, then kept current by the settlement
 * consumer); holds are admitted requests still in flight, which count against the caps until their
 * settlement event arrives or they expire.
 */
export class AccountBook {
  private readonly accounts = new Map<string, AccountState>();
  /** Accounts with a request held (`AccountState.holds`), and how many requests are held in all. */
  private readonly holding = new Set<AccountState>();
  private heldCount = 0;
  /** By `withdrawnKey`; empty in the steady state (only charges not acknowledged in time land here). */
  private readonly withdrawn = new Map<string, Withdrawn>();
  /** Accounts with a lease out, by id. */
  private readonly leased = new Map<string, AccountState>();
  private leases = 0;
  /** When this process began admitting (`startAdmitting`); null before. */
  private admittingSince: number | null = null;
  /** True once a minute has passed since `admittingSince`: nothing admitted earlier is in any window. */
  private earlierGone = false;

  /**
   * `draw`: a number in [0, 1) each grant draws its life with (`leaseLife`): `Math.random` in a shard, a
   * fixed one in a test, so that no test's outcome rests on chance (one did, and failed a CI run once in
   * about 170: contributors.md, "Ctrl-C under load, and two tests that read chance as a failure").
   */
  constructor(
    private readonly holdTtlMs: number,
    private readonly draw: () => number,
  ) {}

  private state(accountId: string, now: number): AccountState {
    let s = this.accounts.get(accountId);
    if (!s) {
      // Every field from the start, and none deleted later: one shape for every account's state, so the
      // code that reads them stays monomorphic (a property added or deleted later gives V8 another shape,
      // or a dictionary).
      s = {
        burst: new BurstWindow(),
        earlier: undefined,
        seeded: undefined,
        charged: new Map(),
        held: new Map(),
        withheld: new Map(),
        holds: new Map(),
        lastSeen: now,
        lease: undefined,
        askedOn: undefined,
        askedAt: undefined,
        contendedUntil: undefined,
        rateSecond: 0,
        rateNow: 0,
        ratePrev: 0,
        leasedRate: undefined,
        prunedOn: undefined,
      };
      this.accounts.set(accountId, s);
    }
    s.lastSeen = now;
    return s;
  }

  /**
   * An account that has just moved here from another shard: its previous owner's admissions of the last
   * minute (from the log), for its burst window; once per account, each request once however else it
   * was learnt of (a late settlement of a retired shard's subject recorded here).
   */
  seedBurst(accountId: string, admitted: readonly { requestId: string; at: number }[], now: number): void {
    const s = this.state(accountId, now);
    if (s.seeded) return;
    s.seeded = true;
    s.earlier ??= new Set();
    for (const { requestId, at } of admitted) {
      if (at <= now - BURST_WINDOW_MS || s.earlier.has(requestId)) continue;
      s.earlier.add(requestId);
      s.burst.insert(at);
    }
  }

  /** Whether the account's burst window was read from the log after it moved here (`seedBurst`). */
  seeded(accountId: string): boolean {
    return this.accounts.get(accountId)?.seeded === true;
  }

  /** Periods of `now` whose charged count is not in memory yet (load them before deciding). */
  missingPeriods(accountId: string, now: number): { day: string; month: string } | null {
    const s = this.accounts.get(accountId);
    const day = istDay(now);
    const month = istMonth(now);
    return s?.charged.has(day) && s.charged.has(month) ? null : { day, month };
  }

  /** Records a charged count read from the projections; a count already held (and kept current) wins. */
  loaded(
    accountId: string,
    counts: { day: string; dayCharged: ByInterface; month: string; monthCharged: ByInterface },
    now: number,
  ) {
    const s = this.state(accountId, now);
    for (const [period, charged] of [
      [counts.day, counts.dayCharged],
      [counts.month, counts.monthCharged],
    ] as const) {
      if (s.charged.has(period)) continue;
      s.charged.set(period, 0);
      for (const via of INTERFACES) add(s.charged, period, via, charged[via]);
    }
  }

  /** Decides one request. Assumes the periods of `now` are loaded. A request already held is a duplicate. */
  admit(
    requestId: string,
    accountId: string,
    caps: Caps,
    now: number,
    via: Interface = 'rest',
  ): Decision | 'duplicate' {
    if (this.accounts.get(accountId)?.holds.has(requestId)) return 'duplicate';
    const s = this.state(accountId, now);
    const day = istDay(now);
    const month = istMonth(now);
    const cutoff = now - BURST_WINDOW_MS;
    s.burst.evictThrough(cutoff);
    const decision = decide(
      caps,
      { burst: s.burst, day: admissionCount(s, day), month: admissionCount(s, month) },
      now,
    );
    if (decision.kind === 'admitted') {
      // Without a burst cap there is no window to keep (a load-test account may admit thousands a second).
      if (caps.burst !== null) s.burst.push(now);
      this.hold(s, requestId, { accountId, day, month, via, expiresAt: now + this.holdTtlMs });
      const second = Math.floor(now / 1000);
      if (second !== s.rateSecond) {
        s.ratePrev = second === s.rateSecond + 1 ? s.rateNow : 0;
        s.rateSecond = second;
        s.rateNow = 0;
      }
      s.rateNow++;
    }
    return decision;
  }

  private hold(s: AccountState, requestId: string, hold: Hold): void {
    if (s.holds.size === 0) this.holding.add(s);
    s.holds.set(requestId, hold);
    this.heldCount++;
    add(s.held, hold.day, hold.via, 1);
    add(s.held, hold.month, hold.via, 1);
  }

  /**
   * The account was asked for request by request on admission stream `holder`: seen on another stream
   * within `leaseMs`, it is not leased for a while, and a lease out to another stream is to be recalled
   * (returned: once).
   */
  askedOn(accountId: string, holder: number, now: number, leaseMs: number): Recall | null {
    const s = this.accounts.get(accountId);
    if (!s) return null;
    if (s.askedOn !== undefined && s.askedOn !== holder && now - (s.askedAt ?? 0) < leaseMs)
      s.contendedUntil = now + 10 * leaseMs;
    s.askedOn = holder;
    s.askedAt = now;
    const lease = s.lease;
    if (!lease || lease.holder === holder || lease.recalled || lease.expiresAt <= now) return null;
    s.contendedUntil = Math.max(s.contendedUntil ?? 0, now + 10 * leaseMs);
    lease.recalled = true;
    return { leaseId: lease.id, holder: lease.holder };
  }

  /** The stream holding a live lease (not expired at `now`) on the account, if any. */
  liveLeaseHolder(accountId: string, now: number): number | null {
    const lease = this.accounts.get(accountId)?.lease;
    return lease !== undefined && lease.expiresAt > now ? lease.holder : null;
  }

  /** The id of the lease out on the account (live, or its holder silent and not yet written off), if any. */
  leaseOut(accountId: string): string | null {
    return this.accounts.get(accountId)?.lease?.id ?? null;
  }

  /**
   * A lease for stream `holder`, just after one of its requests for the account was admitted at `now`
   * (so the periods of `now` are loaded): none while one is out, while the account is seen on several
   * streams, or when the terms (`leaseTerms`) come to fewer than MIN_ALLOTMENT admissions.
   */
  grant(accountId: string, caps: Caps, holder: number, now: number, leaseMs: number): LeaseGrant | null {
    const s = this.accounts.get(accountId);
    if (!s || s.lease || (s.contendedUntil ?? 0) > now) return null;
    const day = istDay(now);
    const month = istMonth(now);
    s.burst.evictThrough(now - BURST_WINDOW_MS);
    const dayCount = counted(s, day);
    const monthCount = counted(s, month);
    const terms = leaseTerms({
      caps,
      day: dayCount,
      month: monthCount,
      recentAdmissions: caps.burst === null ? 0 : s.burst.length,
      ratePerSecond: rateOf(s, now),
      leaseMs,
      now,
    });
    if (terms.allotment < MIN_ALLOTMENT) return null;
    const inFlight = [...s.holds].map(([requestId, h]) => ({
      requestId,
      inDay: h.day === day,
      inMonth: h.month === month,
    }));
    const grant: LeaseGrant = {
      leaseId: `${holder}.${++this.leases}.${now}`,
      caps,
      day: dayCount,
      month: monthCount,
      burst: caps.burst === null ? [] : s.burst.toArray(),
      inFlight,
      allotment: terms.allotment,
      grantedAt: now,
      expiresAt: terms.expiresAt,
    };
    // At the term's end, the latest its holder can use them: a silent holder's entries then leave the
    // minute no sooner than any admission it made (stamped at the grant, they could leave up to a lease
    // length sooner, and the shard admit past the burst cap meanwhile).
    const provisional = caps.burst === null ? [] : [{ at: terms.expiresAt, count: terms.allotment }];
    for (let i = 0; i < terms.allotment && caps.burst !== null; i++) s.burst.push(terms.expiresAt);
    s.lease = {
      id: grant.leaseId,
      holder,
      caps,
      allotment: terms.allotment,
      grantedAt: now,
      expiresAt: terms.expiresAt,
      lastEnd: now + leaseLife(this.draw()),
      termFrom: now,
      termUsed: 0,
      day,
      month,
      provisional,
      recorded: new Map(),
      recalled: false,
      reported: 0,
      reportedAt: now,
    };
    this.leased.set(accountId, s);
    return grant;
  }

  /**
   * A lease comes back from its holder with what it admitted and had not reported (numbered from
   * `from`): the allotment's provisional entries give way to the real ones, in the burst window, and
   * as holds for those that may have been charged and whose settlement is not recorded yet. Applied
   * once; a lease unknown here (back already, written off, or from before a restart) changes nothing,
   * nor does one that leaves out admissions not taken in from a report (it is written off instead,
   * counted until all its holder could have charged is recorded). Returns how many of the allotment
   * were used, or null.
   */
  returnLease(
    accountId: string,
    holder: number,
    leaseId: string,
    admitted: readonly LeasedAdmission[],
    now: number,
    from = 0,
  ): { used: number; allotment: number } | null {
    const s = this.accounts.get(accountId);
    const lease = s?.lease;
    if (!s || !lease || lease.id !== leaseId || lease.holder !== holder || from > lease.reported) return null;
    this.endLease(accountId, s);
    for (const p of lease.provisional) s.burst.removeEach(p.at, p.count);
    const used = notTakenIn(lease, from, admitted);
    const usedInAll = lease.reported + used.length;
    // The rate while the account was busy: until the lease was used up (it comes back with the request
    // that found it so), else until its last admission. A lease that went back at its expiry after a
    // burst would otherwise shrink the next grant for every quiet moment that followed the burst.
    let end = now;
    if (usedInAll < lease.allotment) {
      end = lease.reported > 0 ? lease.reportedAt : lease.grantedAt;
      for (const a of used) if (a.at > end && a.at <= now) end = a.at;
    }
    s.leasedRate = { perSecond: usedInAll / Math.max(0.25, (end - lease.grantedAt) / 1000), at: now };
    for (const a of used) {
      if (lease.caps.burst !== null && a.at > now - BURST_WINDOW_MS) s.burst.insert(a.at);
      this.takeIn(accountId, s, lease, a);
    }
    return { used: usedInAll, allotment: lease.allotment };
  }

  /**
   * Admissions its holder reports while the lease stays out (numbered from `from`; only on a plan
   * without a burst cap, where nothing of the lease is in the burst window): each is taken in as a
   * return would take it (held until its settlement is recorded), and no longer counts in the lease's
   * allotment. Reports come in order on the holder's stream, so one that starts past what was taken in
   * is not applied (the return, which starts no later, then decides). Returns how many of the lease's
   * admissions are taken in (`through`) and how many of them this report added, or null for a lease not
   * out to this holder.
   */
  takeReport(
    accountId: string,
    holder: number,
    leaseId: string,
    from: number,
    admitted: readonly LeasedAdmission[],
  ): { through: number; taken: number } | null {
    const s = this.accounts.get(accountId);
    const lease = s?.lease;
    if (!s || !lease || lease.id !== leaseId || lease.holder !== holder) return null;
    if (lease.caps.burst !== null || from > lease.reported) return { through: lease.reported, taken: 0 };
    const fresh = notTakenIn(lease, from, admitted);
    for (const a of fresh) {
      this.takeIn(accountId, s, lease, a);
      if (a.at > lease.reportedAt) lease.reportedAt = a.at;
    }
    lease.reported += fresh.length;
    return { through: lease.reported, taken: fresh.length };
  }

  /**
   * An admission its holder made under the lease, held until its settlement is recorded (if it may be
   * charged). One recorded already needs no hold, and what was recorded of it is forgotten: holders
   * report an admission only once it has settled (`LeaseHolder.report`), so no void can follow one that
   * is not marked refunded, and the lease keeps only what is recorded and not yet taken in (a busy
   * account's lease otherwise kept about one in six of its requests, some 20,000 ids, for its whole life).
   */
  private takeIn(accountId: string, s: AccountState, lease: ShardLease, a: LeasedAdmission): void {
    if (a.refunded || s.holds.has(a.requestId) || lease.recorded.delete(a.requestId)) return;
    this.hold(s, a.requestId, {
      accountId,
      day: istDay(a.at),
      month: istMonth(a.at),
      via: interfaceOf(a.via),
      expiresAt: Math.max(a.at, lease.grantedAt) + this.holdTtlMs,
    });
  }

  /**
   * Its holder would keep a lease it is using (`used` admissions so far) past its expiry or allotment:
   * it lasts another term from `now` (`extensionTerms`: a term for the rate it has been used at, never
   * shorter than it has left, within the life drawn at its grant, `leaseLife`, and its IST day), and its
   * allotment grows by what that rate wants, out of the headroom its whole allotment leaves, the units
   * added counted as the grant's are (against the caps, and at the new term's end in the burst window,
   * where the units not used yet move too). Only the live lease of that holder, not recalled, on an
   * account seen on no other stream. Returns the lease's terms now, or null (not extended: it ends as it
   * was).
   */
  extendLease(
    accountId: string,
    holder: number,
    leaseId: string,
    used: number,
    now: number,
    leaseMs: number,
  ): { allotment: number; expiresAt: number; added: number } | null {
    const s = this.accounts.get(accountId);
    const lease = s?.lease;
    if (!s || !lease || lease.id !== leaseId || lease.holder !== holder) return null;
    if (lease.recalled || lease.expiresAt <= now || (s.contendedUntil ?? 0) > now) return null;
    if (lease.day !== istDay(now) || lease.month !== istMonth(now)) return null;
    s.burst.evictThrough(now - BURST_WINDOW_MS);
    const terms = extensionTerms({
      caps: lease.caps,
      day: admissionCount(s, lease.day),
      month: admissionCount(s, lease.month),
      recentAdmissions: lease.caps.burst === null ? 0 : s.burst.length,
      used,
      allotment: lease.allotment,
      reported: lease.reported,
      grantedAt: lease.grantedAt,
      termFrom: lease.termFrom,
      termUsed: lease.termUsed,
      expiresAt: lease.expiresAt,
      lastEnd: lease.lastEnd,
      leaseMs,
      now,
    });
    if (!terms) return null;
    lease.termFrom = now;
    lease.termUsed = Math.min(Math.max(0, used), lease.allotment);
    const added = terms.allotment - lease.allotment;
    if (lease.caps.burst !== null) {
      // The units not used yet (the newest entries: units are used oldest first) move to the new term's
      // end with those added: no unit's entry is older than its use, however long the lease lasts.
      const unused = lease.allotment - Math.min(Math.max(0, used), lease.allotment);
      let moving = unused;
      for (let i = lease.provisional.length - 1; i >= 0 && moving > 0; i--) {
        const p = lease.provisional[i]!;
        const k = Math.min(p.count, moving);
        s.burst.removeEach(p.at, k);
        p.count -= k;
        moving -= k;
      }
      lease.provisional = lease.provisional.filter((p) => p.count > 0);
      for (let i = 0; i < unused + added; i++) s.burst.push(terms.expiresAt);
      if (unused + added > 0) lease.provisional.push({ at: terms.expiresAt, count: unused + added });
    }
    lease.allotment = terms.allotment;
    lease.expiresAt = terms.expiresAt;
    return { ...terms, added };
  }

  private endLease(accountId: string, s: AccountState): void {
    s.lease = undefined;
    this.leased.delete(accountId);
  }

  /**
   * Holds again a request admitted before this process started (a gateway remembered it and has not
   * settled it yet): it counts against the periods of `admittedAt` and, if recent, the burst window, and
   * expires like any hold, `holdTtl` after its admission. Assumes the account's periods of `now` are
   * loaded. A request already held, or a hold that would already have expired, changes nothing.
   */
  restore(
    requestId: string,
    accountId: string,
    admittedAt: number,
    now: number,
    via: Interface = 'rest',
  ): boolean {
    if (this.accounts.get(accountId)?.holds.has(requestId)) return false;
    const expiresAt = admittedAt + this.holdTtlMs;
    if (expiresAt <= now) return false;
    const s = this.state(accountId, now);
    const day = istDay(admittedAt);
    const month = istMonth(admittedAt);
    this.admittedEarlier(requestId, accountId, admittedAt, now);
    this.hold(s, requestId, { accountId, day, month, via, expiresAt });
    return true;
  }

  /**
   * Requests in flight that an account's previous owner handed over when it stopped: held here until
   * their settlements, recorded on `subject`, would have been, as `sweep` says. Assumes the account's
   * periods are loaded (after them: a hold's settlement recorded before the load is in its counts).
   */
  adopt(
    accountId: string,
    holds: readonly { requestId: string; admittedAt: number; via: string }[],
    subject: number,
    now: number,
  ): number {
    const s = this.state(accountId, now);
    let n = 0;
    for (const h of holds) {
      const expiresAt = h.admittedAt + this.holdTtlMs;
      if (s.holds.has(h.requestId) || expiresAt <= now) continue;
      this.hold(s, h.requestId, {
        accountId,
        day: istDay(h.admittedAt),
        month: istMonth(h.admittedAt),
        via: interfaceOf(h.via),
        expiresAt,
        subject,
      });
      n++;
    }
    return n;
  }

  /** Every request held now (a stopping shard's hand-over). */
  heldRequests(): { accountId: string; requestId: string; admittedAt: number; via: string }[] {
    const held: { accountId: string; requestId: string; admittedAt: number; via: string }[] = [];
    for (const s of this.holding)
      for (const [requestId, h] of s.holds)
        held.push({
          accountId: h.accountId,
          requestId,
          admittedAt: h.expiresAt - this.holdTtlMs,
          via: h.via,
        });
    return held;
  }

  /**
   * From `now` on this process admits; every admission it learns of from before then was made by another
   * process (the one this replaced, or the account's previous owner): see `admittedEarlier`.
   */
  startAdmitting(now: number): void {
    this.admittingSince ??= now;
  }

  /**
   * A request admitted at `admittedAt` by a process before this one (read from the log when this one
   * starts admitting, restored by a gateway, or its settlement recorded late). Within the last minute it
   * counts in the account's burst window, once however often it is learnt of, so a restarted shard
   * decides from the minute's real admissions. This process's own admissions (from `startAdmitting` on)
   * are in the window already and change nothing. Kept in order, oldest first (O(window): this happens
   * only in the first minute after a start).
   */
  admittedEarlier(requestId: string, accountId: string, admittedAt: number, now: number): void {
    if (this.earlierGone || admittedAt <= now - BURST_WINDOW_MS) return;
    if (this.admittingSince !== null && admittedAt >= this.admittingSince) return;
    const s = this.state(accountId, now);
    s.earlier ??= new Set();
    if (s.earlier.has(requestId)) return;
    s.earlier.add(requestId);
    s.burst.insert(admittedAt);
  }

  /** The request has settled (whatever the outcome): it no longer counts as in flight. */
  release(requestId: string, accountId: string): boolean {
    const s = this.accounts.get(accountId);
    return s !== undefined && this.releaseHold(s, requestId);
  }

  private releaseHold(s: AccountState, requestId: string): boolean {
    const hold = s.holds.get(requestId);
    if (!hold) return false;
    s.holds.delete(requestId);
    if (s.holds.size === 0) this.holding.delete(s);
    this.heldCount--;
    add(s.held, hold.day, hold.via, -1);
    add(s.held, hold.month, hold.via, -1);
    return true;
  }

  /**
   * A batch the projections just recorded, as the book takes it in one step: the charged counts move by
   * the recorded deltas, a withdrawn or leased request's settlement is noted (`recorded`), the batch's
   * holds are released, and its admissions from before this process count in the burst window.
   */
  recordedBatch(
    deltas: readonly ChargeDelta[],
    events: readonly { request_id: string; account_id: string; kind: string; admitted_at_ms: number }[],
    now: number,
  ): void {
    for (const delta of deltas) this.charge(delta);
    this.recorded(events, now);
    for (const e of events) {
      this.release(e.request_id, e.account_id);
      this.admittedEarlier(e.request_id, e.account_id, e.admitted_at_ms, now);
    }
  }

  /** Applies what the projections recorded, to accounts whose period is in memory. */
  charge(delta: ChargeDelta): void {
    const s = this.accounts.get(delta.accountId);
    if (!s) return;
    for (const period of [delta.day, delta.month])
      if (s.charged.has(period)) add(s.charged, period, delta.via, delta.delta);
  }

  /**
   * The gateway answered 503 for this admitted request: JetStream did not acknowledge its charge in time,
   * and a `voided` event follows. The charge may still be recorded before the void; usage must not count
   * it meanwhile (the client got no 200), nor the caps. A request still held has no charge recorded (the
   * consumer turns a hold into a charge in one step): its hold goes, and a charge recorded later is not
   * counted (`recorded`). Returns false when the request is not held: the caller asks the log whether
   * its charge is recorded and, if so, calls `withholdCharge`.
   */
  withdraw(requestId: string, accountId: string, admittedAt: number, now: number, via: Interface): boolean {
    const k = withdrawnKey(accountId, requestId);
    if (this.withdrawn.has(k)) return true;
    const s = this.accounts.get(accountId);
    if (!s || !this.releaseHold(s, requestId)) {
      // A request admitted under a lease out now is held by nobody here: the lease knows what of the
      // account is recorded, so the log need not be asked.
      const lease = this.accounts.get(accountId)?.lease;
      if (!lease) return false;
      const kind = lease.recorded.get(requestId);
      if (kind === 'voided') return true;
      const w = withdrawal(accountId, admittedAt, now, via);
      this.withdrawn.set(k, w);
      if (kind === 'charged') this.withhold(w, true, now);
      return true;
    }
    this.withdrawn.set(k, withdrawal(accountId, admittedAt, now, via));
    return true;
  }

  /** The log holds this withdrawn request's charge and not its void yet: not counted until the void is. */
  withholdCharge(
    requestId: string,
    accountId: string,
    admittedAt: number,
    now: number,
    via: Interface,
  ): void {
    const k = withdrawnKey(accountId, requestId);
    if (this.withdrawn.has(k)) return;
    const w = withdrawal(accountId, admittedAt, now, via);
    this.withdrawn.set(k, w);
    this.withhold(w, true, now);
  }

  private withhold(w: Withdrawn, on: boolean, now: number): void {
    if (w.withheld === on) return;
    w.withheld = on;
    const s = this.state(w.accountId, now);
    for (const period of [w.day, w.month]) add(s.withheld, period, w.via, on ? 1 : -1);
  }

  /**
   * Settlement events the projections just recorded (after their deltas were applied with `charge`):
   * a withdrawn request's charge is withheld from then on, and its void ends the withdrawal (the
   * projections no longer count the charge). A charge and its void in one batch cancel out.
   */
  recorded(events: readonly { request_id: string; account_id: string; kind: string }[], now: number): void {
    // Called before the events release their holds: one with no hold may be a lease holder's.
    if (this.leased.size > 0)
      for (const e of events) {
        const s = this.leased.get(e.account_id);
        if (s?.lease && !s.holds.has(e.request_id)) s.lease.recorded.set(e.request_id, e.kind);
      }
    if (this.withdrawn.size === 0) return;
    const voided = new Set<string>();
    const charged = new Set<string>();
    for (const e of events) {
      const k = withdrawnKey(e.account_id, e.request_id);
      if (!this.withdrawn.has(k)) continue;
      if (e.kind === 'voided') voided.add(k);
      else if (e.kind === 'charged') charged.add(k);
    }
    for (const k of voided) {
      this.withhold(this.withdrawn.get(k)!, false, now);
      this.withdrawn.delete(k);
    }
    for (const k of charged) if (!voided.has(k)) this.withhold(this.withdrawn.get(k)!, true, now);
  }

  /** Requests withdrawn whose void is not recorded yet. */
  get withdrawing(): number {
    return this.withdrawn.size;
  }

  /**
   * What the account has used in the windows containing `now`: charged (settled) plus held (admitted, not
   * settled yet). Counting holds is what makes usage read-your-writes: a 200 already sent is held until
   * its charge is consumed, and the consumer turns the hold into a charge in one step. A request that
   * ends in an error is released as soon as the gateway says so, before the client sees the error.
   */
  usage(
    accountId: string,
    now: number,
  ): {
    used: { day: number; month: number };
    byInterface: { day: ByInterface; month: ByInterface };
    inFlight: number;
  } {
    const s = this.accounts.get(accountId);
    const day = istDay(now);
    const month = istMonth(now);
    const used = (k: string) => counted(s, k);
    const byInterface = (period: string) =>
      Object.fromEntries(INTERFACES.map((via) => [via, used(key(period, via))])) as ByInterface;
    return {
      used: { day: used(day), month: used(month) },
      byInterface: { day: byInterface(day), month: byInterface(month) },
      inFlight: s?.held.get(day) ?? 0,
    };
  }

  /**
   * Releases holds whose request never settled (a gateway died with it) and forgets idle accounts, which
   * are loaded again from the projections when next seen.
   *
   * A hold expires when its TTL has passed in recorded time: once the settlements published before its
   * expiry are recorded (`recordedThrough`, the consumer's horizon), its own would have released it had
   * its gateway published one. A consumer that is behind (a backlog, a stalled Postgres, a restart
   * catching up) holds the horizon back, so no hold expires while its settlement may still be waiting
   * in JetStream and caps never overshoot for it. The horizon is never ahead of `now`.
   */
  sweep(
    now: number,
    opts: {
      idleMs?: number;
      recordedThrough?: number;
      /** How far another shard's subject is recorded (for holds handed over: `adopt`). */
      subjectRecordedThrough?: (subject: number) => number;
    } = {},
  ): { expired: number; evicted: number; leasesWrittenOff: number; stranded: number } {
    const { idleMs = 10 * 60_000 } = opts;
    const horizon = Math.min(now, opts.recordedThrough ?? now);
    // A lease never returned: once everything its holder could have charged is recorded (a hold TTL past
    // its expiry, in recorded time), the charges are counted and the allotment is not. Its provisional
    // burst entries stay until they leave the minute.
    let leasesWrittenOff = 0;
    let stranded = 0;
    for (const [accountId, s] of this.leased) {
      const lease = s.lease!;
      if (lease.expiresAt + this.holdTtlMs > horizon) continue;
      this.endLease(accountId, s);
      leasesWrittenOff++;
      stranded += Math.max(0, lease.allotment - lease.reported - lease.recorded.size);
    }
    let expired = 0;
    for (const s of this.holding)
      for (const [requestId, hold] of s.holds) {
        if (hold.subject === undefined) {
          if (hold.expiresAt <= horizon && this.releaseHold(s, requestId)) expired++;
          continue;
        }
        const through = Math.min(now, opts.subjectRecordedThrough?.(hold.subject) ?? 0);
        if (hold.expiresAt > through || !this.releaseHold(s, requestId)) continue;
        // Its settlement, if any, is in the projections now: read the counts again on the next decision.
        s.charged.clear();
      }
    // A void that never came: the charge counts, as the log has it.
    for (const [k, w] of this.withdrawn) {
      if (w.expiresAt > horizon) continue;
      this.withhold(w, false, now);
      this.withdrawn.delete(k);
    }
    if (!this.earlierGone && this.admittingSince !== null && now - BURST_WINDOW_MS > this.admittingSince) {
      for (const s of this.accounts.values()) s.earlier = undefined;
      this.earlierGone = true;
    }
    return { expired, evicted: this.tidyAccounts(now, idleMs), leasesWrittenOff, stranded };
  }

  /**
   * Where the last `tidyAccounts` stopped. A Map's iterator is live: it skips entries deleted since and
   * reaches those added, so a pass spread over several ticks still visits every account.
   */
  private tidying: MapIterator<[string, AccountState]> | undefined;

  /**
   * Forgets idle accounts and drops counts of ended periods, visiting at most `TIDY_PER_SWEEP` accounts,
   * from where the last call stopped: the shard decides admissions on the same event loop, so a sweep
   * must not take time in proportion to every account in memory (100,000 of them took 69 to 74 ms a
   * sweep, median, when each was visited every second). An account is forgotten at most one pass later.
   */
  private tidyAccounts(now: number, idleMs: number): number {
    const day = istDay(now);
    const month = istMonth(now);
    let evicted = 0;
    for (let visited = 0; visited < TIDY_PER_SWEEP; visited++) {
      this.tidying ??= this.accounts.entries();
      const next = this.tidying.next();
      if (next.done) {
        // The pass is over; the next sweep starts another.
        this.tidying = undefined;
        break;
      }
      const [accountId, s] = next.value;
      if (
        s.lease === undefined &&
        !anyPositive(s.held) &&
        !anyPositive(s.withheld) &&
        now - s.lastSeen > idleMs
      ) {
        this.accounts.delete(accountId);
        evicted++;
        continue;
      }
      if (s.prunedOn === day) continue;
      for (const [k, n] of s.withheld) if (n === 0) s.withheld.delete(k);
      // Periods that have ended are of no use to admission; one still counting a request in flight or
      // withheld stays, and is looked at again next pass.
      let kept = false;
      for (const k of s.charged.keys()) {
        const period = periodOf(k);
        if (period === day || period === month) continue;
        if (!s.held.get(k) && !s.withheld.get(k)) s.charged.delete(k);
        else kept = true;
      }
      if (!kept) s.prunedOn = day;
    }
    return evicted;
  }

  /**
   * The `n` accounts in memory with the most charged requests in `period` (an IST day or month), most
   * first. Only accounts seen since they were last evicted are in memory: this is "who is using us now".
   */
  topCharged(period: string, n: number): { accountId: string; charged: number }[] {
    // One pass keeping the n busiest, not a sort of every account: this runs on the shard's event loop,
    // and over 100,000 accounts a sort took about 100 ms.
    const top: { accountId: string; charged: number }[] = [];
    const busier = (charged: number, accountId: string, than: { accountId: string; charged: number }) =>
      charged > than.charged || (charged === than.charged && accountId < than.accountId);
    for (const [accountId, s] of this.accounts) {
      const charged = s.charged.get(period) ?? 0;
      if (charged <= 0 || n <= 0 || (top.length === n && !busier(charged, accountId, top[n - 1]!))) continue;
      if (top.length === n) top.pop();
      let i = top.length;
      while (i > 0 && busier(charged, accountId, top[i - 1]!)) i--;
      top.splice(i, 0, { accountId, charged });
    }
    return top;
  }

  get inFlight(): number {
    return this.heldCount;
  }

  /** Leases out now (live, or their holder silent and not yet written off). */
  get leasesOut(): number {
    return this.leased.size;
  }

  /** Leases not yet expired at `now`. */
  leasesOutLive(now: number): number {
    let n = 0;
    for (const s of this.leased.values()) if (s.lease!.expiresAt > now) n++;
    return n;
  }

  /** The ids of the leases out, by the stream they went out on. */
  leasesByHolder(): Map<number, string[]> {
    const by = new Map<number, string[]>();
    for (const s of this.leased.values()) {
      const { holder, id } = s.lease!;
      by.set(holder, [...(by.get(holder) ?? []), id]);
    }
    return by;
  }
}
