import { BURST_WINDOW_MS, BurstWindow, type Caps, type Decision, decide } from '@mdp/admission';
import { istDay, istMonth } from '@mdp/nse-calendar';
import { INTERFACES, type Interface } from '@mdp/usage';

interface Hold {
  accountId: string;
  day: string;
  month: string;
  via: Interface;
  expiresAt: number;
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

/**
 * A request's key: its id within its account. The gateway makes every id, but the ledger scopes them
 * by account all the same, so no request of one account can ever meet another account's hold.
 * (Settlement events bound both parts to characters without a slash.)
 */
const holdKey = (accountId: string, requestId: string) => `${accountId}/${requestId}`;

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
  lastSeen: number;
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
 * The admission state of the accounts one shard owns, in memory. This process is the only writer for
 * these accounts, so a decision is a synchronous read-and-update: exact, with no locks. Charged counts
 * come from the projections (loaded once per account and period, then kept current by the settlement
 * consumer); holds are admitted requests still in flight, which count against the caps until their
 * settlement event arrives or they expire.
 */
export class AccountBook {
  private readonly accounts = new Map<string, AccountState>();
  /** By `holdKey`. */
  private readonly holds = new Map<string, Hold>();
  /** By `holdKey`; empty in the steady state (only charges not acknowledged in time land here). */
  private readonly withdrawn = new Map<string, Withdrawn>();
  /** When this process began admitting (`startAdmitting`); null before. */
  private admittingSince: number | null = null;
  /** True once a minute has passed since `admittingSince`: nothing admitted earlier is in any window. */
  private earlierGone = false;

  constructor(private readonly holdTtlMs: number) {}

  private state(accountId: string, now: number): AccountState {
    let s = this.accounts.get(accountId);
    if (!s) {
      s = {
        burst: new BurstWindow(),
        charged: new Map(),
        held: new Map(),
        withheld: new Map(),
        lastSeen: now,
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
    const k = holdKey(accountId, requestId);
    if (this.holds.has(k)) return 'duplicate';
    const s = this.state(accountId, now);
    const day = istDay(now);
    const month = istMonth(now);
    const cutoff = now - BURST_WINDOW_MS;
    s.burst.evictThrough(cutoff);
    const decision = decide(caps, { burst: s.burst, day: counted(s, day), month: counted(s, month) }, now);
    if (decision.kind === 'admitted') {
      // Without a burst cap there is no window to keep (a load-test account may admit thousands a second).
      if (caps.burst !== null) s.burst.push(now);
      this.holds.set(k, { accountId, day, month, via, expiresAt: now + this.holdTtlMs });
      add(s.held, day, via, 1);
      add(s.held, month, via, 1);
    }
    return decision;
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
    const k = holdKey(accountId, requestId);
    if (this.holds.has(k)) return false;
    const expiresAt = admittedAt + this.holdTtlMs;
    if (expiresAt <= now) return false;
    const s = this.state(accountId, now);
    const day = istDay(admittedAt);
    const month = istMonth(admittedAt);
    this.admittedEarlier(requestId, accountId, admittedAt, now);
    this.holds.set(k, { accountId, day, month, via, expiresAt });
    add(s.held, day, via, 1);
    add(s.held, month, via, 1);
    return true;
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
    return this.releaseHold(holdKey(accountId, requestId));
  }

  private releaseHold(k: string): boolean {
    const hold = this.holds.get(k);
    if (!hold) return false;
    this.holds.delete(k);
    const s = this.accounts.get(hold.accountId);
    if (s) {
      add(s.held, hold.day, hold.via, -1);
      add(s.held, hold.month, hold.via, -1);
    }
    return true;
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
    const k = holdKey(accountId, requestId);
    if (this.withdrawn.has(k)) return true;
    if (!this.releaseHold(k)) return false;
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
    const k = holdKey(accountId, requestId);
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
    if (this.withdrawn.size === 0) return;
    const voided = new Set<string>();
    const charged = new Set<string>();
    for (const e of events) {
      const k = holdKey(e.account_id, e.request_id);
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
    opts: { idleMs?: number; recordedThrough?: number } = {},
  ): { expired: number; evicted: number } {
    const { idleMs = 10 * 60_000 } = opts;
    const horizon = Math.min(now, opts.recordedThrough ?? now);
    let expired = 0;
    for (const [k, hold] of this.holds) {
      if (hold.expiresAt <= horizon && this.releaseHold(k)) expired++;
    }
    // A void that never came: the charge counts, as the log has it.
    for (const [k, w] of this.withdrawn) {
      if (w.expiresAt > horizon) continue;
      this.withhold(w, false, now);
      this.withdrawn.delete(k);
    }
    if (!this.earlierGone && this.admittingSince !== null && now - BURST_WINDOW_MS > this.admittingSince) {
      for (const s of this.accounts.values()) delete s.earlier;
      this.earlierGone = true;
    }
    let evicted = 0;
    const day = istDay(now);
    const month = istMonth(now);
    for (const [accountId, s] of this.accounts) {
      const holding = [...s.held.values(), ...s.withheld.values()].some((n) => n > 0);
      if (!holding && now - s.lastSeen > idleMs) {
        this.accounts.delete(accountId);
        evicted++;
        continue;
      }
      for (const [k, n] of s.withheld) if (n === 0) s.withheld.delete(k);
      // Periods that have ended are of no use to admission.
      for (const k of s.charged.keys()) {
        const period = periodOf(k);
        if (period !== day && period !== month && !s.held.get(k) && !s.withheld.get(k)) s.charged.delete(k);
      }
    }
    return { expired, evicted };
  }

  /**
   * The `n` accounts in memory with the most charged requests in `period` (an IST day or month), most
   * first. Only accounts seen since they were last evicted are in memory: this is "who is using us now".
   */
  topCharged(period: string, n: number): { accountId: string; charged: number }[] {
    const rows: { accountId: string; charged: number }[] = [];
    for (const [accountId, s] of this.accounts) {
      const charged = s.charged.get(period) ?? 0;
      if (charged > 0) rows.push({ accountId, charged });
    }
    return rows.sort((a, b) => b.charged - a.charged || a.accountId.localeCompare(b.accountId)).slice(0, n);
  }

  get inFlight(): number {
    return this.holds.size;
  }
}
