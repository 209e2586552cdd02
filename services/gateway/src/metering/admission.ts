import {
  admissionResult,
  type Caps,
  LeaseHolder,
  leaseExtensionOf,
  leaseExtensionRequest,
  leaseGrantOf,
  leaseReturnMessage,
} from '@mdp/admission';
import { ApiError } from '@mdp/errors';
import type { PubAck } from '@mdp/nats';
import type { Clock } from '@mdp/nse-calendar';
import { ledger } from '@mdp/proto';
import {
  CellCounter,
  CellHistogram,
  type HistogramCell,
  type Logger,
  type Registry,
  type Span,
  traceparentToSend,
} from '@mdp/telemetry';
import { INTERFACES, type Interface } from '@mdp/usage';
import type { Principal } from '../authenticator.ts';
import { ledgerAccount } from '../catalogue/account.ts';
import type { LedgerShards } from '../ledger-shards.ts';
import { type PolicyHolder, RESET, rateLimitHeaders } from '../rate-limit-headers.ts';
import { Deferred } from './deferred.ts';
import { HOLD_TTL_MS } from './shard-book.ts';
import { type AdmissionWaiter, ShardStream } from './shard-stream.ts';

const D = ledger.AdmitDecision;

/** An admitted request: what settling it needs, and the rate-limit headers of its 200. */
export interface Admission {
  requestId: string;
  accountId: string;
  shard: number;
  admittedAtMs: number;
  /** The front door it came through. */
  via: Interface;
  /**
   * The request's W3C trace context, carried by its settlement event too: '' when its request id gives it
   * (`requestTraceparent`), or when it has none.
   */
  traceparent: string;
  headers: Record<string, string>;
  /** Admitted here under this lease, not by the shard, as its admission number `leaseNumber`. */
  lease?: HeldLease;
  leaseNumber?: number;
}

/** A lease this gateway holds on one account. */
interface HeldLease {
  holder: LeaseHolder;
  accountId: string;
  /** The account as its last request under the lease sent it: what a restarted shard is told of its holds. */
  account: ledger.Account;
  shard: number;
  /** Gives the lease back at its expiry (set again when it is extended). */
  timer: NodeJS.Timeout;
  /** An extension is asked and not answered, or was refused: none is asked again. */
  extending: boolean;
  /** No longer held here (returned, recalled or lost): its admissions are the shard's to hear of. */
  dropped: boolean;
  /**
   * The highest sequence, per stream, of the acknowledged charges of 200s admitted under it: a usage
   * read through this gateway waits only for these to be recorded (`leaseCharges`).
   */
  charged: Map<string, number>;
}

type Decisions = CellCounter<'decision' | 'interface' | 'shard'>;
const DECISIONS = ['admitted', 'rate_limited', 'quota_exhausted', 'unavailable'] as const;

/**
 * Who is asking: the verified caller and its ledger account, the shard asked and its own shard (the
 * metrics' label), the front door.
 */
interface Asking {
  caller: Principal;
  /** The caller as its shard reads it (its ledger account), where its answers' policy list is kept. */
  known: LedgerCaller;
  shard: number;
  owner: number;
  via: Interface;
  traceparent: string;
}

/** When the binding window resets, as the refusal's `X-RateLimit-Reset` (Unix seconds) says, in UTC. */
function resetAt(headers: Record<string, string>): string {
  const seconds = Number(headers[RESET]);
  return Number.isFinite(seconds)
    ? new Date(seconds * 1000).toISOString().replace('.000Z', 'Z')
    : 'the start of the next IST day or month';
}

/** A decision (the shard's, or this gateway's under a lease) as the admission or the SPEC's 429 to answer. */
function answerOf(
  res: ledger.AdmissionResult,
  a: Asking,
  decisions: Decisions,
  now: number,
): Admission | ApiError | null {
  const { caller, via, shard, owner } = a;
  const rateLimited = res.decision === D.ADMIT_DECISION_RATE_LIMITED;
  const headers = rateLimitHeaders(res, caller, rateLimited, now, a.known);
  switch (res.decision) {
    case D.ADMIT_DECISION_ADMITTED:
      decisions.cell('admitted', via, owner).inc();
      return {
        requestId: res.request_id,
        accountId: caller.accountId,
        shard,
        admittedAtMs: res.admitted_at_ms,
        via,
        traceparent: a.traceparent,
        headers,
      };
    case D.ADMIT_DECISION_RATE_LIMITED:
      decisions.cell('rate_limited', via, owner).inc();
      return new ApiError(
        'rate_limited',
        `burst cap of ${caller.burstPerMinute} requests a minute reached; retry in ${res.retry_after_seconds} s`,
        { headers: { ...headers, 'Retry-After': res.retry_after_seconds } },
      );
    case D.ADMIT_DECISION_QUOTA_EXHAUSTED:
      decisions.cell('quota_exhausted', via, owner).inc();
      return new ApiError('quota_exhausted', `plan quota used up; it resets at ${resetAt(headers)}`, {
        headers: { ...headers, 'Retry-After': res.retry_after_seconds },
      });
    default:
      // A ledger that could not decide (or a duplicate, which ids this gateway made cannot be): never
      // guess, never charge.
      return null;
  }
}

/** A request waiting for its shard, made once: answered with its admission or with the error to answer. */
class AdmissionRequest extends Deferred<Admission> implements AdmissionWaiter {
  constructor(
    readonly request: ledger.Admission,
    private readonly asking: Asking,
    private readonly client: AdmissionClient,
  ) {
    super();
  }

  /** Sent again once: the shard left it to a lease this gateway had already given back. */
  private resent = false;
  /** When the shard was asked (a monotonic ms clock: a metric's, never a decision's). */
  private readonly asked = performance.now();

  answer(res: ledger.AdmissionResult): void {
    if (!this.resent) this.client.shardWaited(this.asking.shard, performance.now() - this.asked);
    try {
      const answer = this.client.decided(res, this.asking);
      if (answer === 'resend' && !this.resent) {
        this.resent = true;
        // Not wanting a lease, so the shard decides it (any lease it holds for this gateway is newer).
        this.request.want_lease = false;
        this.client.resend(this, this.asking.shard);
      } else if (answer === null || answer === 'resend') this.unavailable();
      else if (answer instanceof ApiError) this.reject(answer);
      else this.resolve(answer);
    } catch (err) {
      this.reject(err);
    }
  }

  unavailable(): void {
    this.client.unavailable(this.asking);
    this.reject(ApiError.serviceUnavailable());
  }
}

/** The caller as its shard reads it, and its `RateLimit-Policy` as last made. */
interface LedgerCaller extends PolicyHolder {
  shard: number;
  account: ledger.Account;
  caps: Caps;
}

export interface AdmissionClientOptions {
  /** Which shard owns an account; one stream to each. */
  shards: LedgerShards;
  deadlineMs: number;
  logger: Logger;
  registry: Registry;
  clock: Clock;
  holdTtlMs?: number;
  /** Ask shards for leases (docs/proposals/admission-leases.md); default true. */
  leases?: boolean;
  /**
   * Whether the charges of a shard's accounts can be made now (`Settler.available`): while they cannot,
   * an admission is refused 503 before anything is held or asked. Default: always.
   */
  chargeable?: (shard: number) => boolean;
}

const LEASE_EVENTS = ['granted', 'extended', 'returned', 'recalled', 'lost'] as const;

/**
 * Admission at the gateway: under a lease on the account, decided here with the shard's own rules and
 * state (no round trip); otherwise asked of the shard that owns the account, over its stream, within a
 * deadline, asking for a lease with it. Refusals become the SPEC's 429s; a ledger that does not answer
 * becomes a quick 503 with nothing held.
 */
export class AdmissionClient {
  private readonly shards: ShardStream[];
  private readonly router: LedgerShards;
  private readonly clock: Clock;
  private readonly decisions: Decisions;
  private readonly leaseEvents: CellCounter<'event'>;
  private readonly callers = new WeakMap<Principal, LedgerCaller>();
  /** The leases held, by account, and by lease id. */
  private readonly leases = new Map<string, HeldLease>();
  private readonly leaseIds = new Map<string, HeldLease>();
  private readonly leasing: boolean;
  private readonly chargeable: (shard: number) => boolean;
  private readonly relieved: CellCounter<'shard'>;
  private readonly shardWaits: HistogramCell[] = [];

  constructor(o: AdmissionClientOptions) {
    const { deadlineMs, logger, registry, clock, holdTtlMs = HOLD_TTL_MS } = o;
    this.router = o.shards;
    this.clock = clock;
    this.leasing = o.leases ?? true;
    this.chargeable = o.chargeable ?? (() => true);
    this.shards = o.shards.addresses.map(
      (a, shard) =>
        new ShardStream(a, logger, deadlineMs, holdTtlMs, clock, {
          recalled: (ids) => {
            for (const id of ids) {
              const held = this.leaseIds.get(id);
              if (held) this.giveBack(held, 'recalled');
            }
          },
          extended: (extensions) => {
            const now = this.clock();
            for (const e of extensions) {
              const held = this.leaseIds.get(e.lease_id);
              if (held) this.extended(held, leaseExtensionOf(e, now), now);
            }
          },
          lost: () => {
            for (const held of [...this.leases.values()]) if (held.shard === shard) this.drop(held, 'lost');
          },
        }),
    );
    this.decisions = new CellCounter({
      name: 'gateway_admissions_total',
      help: "Admission outcomes seen by the gateway (admitted, rate_limited, quota_exhausted, unavailable) by interface (rest, mcp) and its account's ledger shard (also when its relief decided), whether the shard decided or this gateway under a lease",
      labelNames: ['decision', 'interface', 'shard'] as const,
      registers: [registry],
    });
    // Every series from the start, at 0: a shard that has never answered shows as unavailable > 0 beside
    // admitted = 0 (MdpLedgerShardUnreachable), not as a series that does not exist.
    for (let shard = 0; shard < this.shards.length; shard++)
      for (const decision of DECISIONS)
        for (const via of INTERFACES) this.decisions.cell(decision, via, shard);
    this.leaseEvents = new CellCounter({
      name: 'gateway_leases_total',
      help: 'Admission leases at this gateway: granted by a shard, extended by it (asked while in use), returned (expired or used up), recalled by the shard, lost (its stream broke)',
      labelNames: ['event'] as const,
      registers: [registry],
    });
    for (const event of LEASE_EVENTS) this.leaseEvents.cell(event);
    this.relieved = new CellCounter({
      name: 'gateway_admissions_relieved_total',
      help: 'Admissions sent to the shard that relieves their own, by their own shard, while it was out of reach (restarting)',
      labelNames: ['shard'] as const,
      registers: [registry],
    });
    for (let shard = 0; shard < this.shards.length; shard++) this.relieved.cell(String(shard));
    const shardWaits = new CellHistogram({
      name: 'gateway_shard_admission_seconds',
      help: "Time from asking a ledger shard to admit a request to the shard's answer, by the shard asked: the admissions a shard decides (an account with no lease here, such as its first request); those under a lease never wait",
      labelNames: ['shard'] as const,
      buckets: [0.0005, 0.001, 0.002, 0.004, 0.006, 0.008, 0.01, 0.015, 0.02, 0.05, 0.1, 0.25, 1],
      registers: [registry],
    });
    for (let shard = 0; shard < this.shards.length; shard++) this.shardWaits.push(shardWaits.cell(shard));
    o.shards.watch((shard) => this.shards[shard]!.unreachable());
  }

  /**
   * Resolves with the admission, or rejects with the 429 or 503 to answer. `span`: the request's, whose
   * trace the shard's decision and the settlement event join.
   */
  admit(requestId: string, caller: Principal, via: Interface, span: Span | undefined): Promise<Admission> {
    const known = this.ledgerCaller(caller);
    const owner = known.shard;
    const shard = this.router.route(owner);
    if (!this.chargeable(shard)) return Promise.reject(ApiError.serviceUnavailable());
    if (shard !== owner) this.relieved.cell(String(owner)).inc();
    const asking: Asking = {
      caller,
      known,
      shard,
      owner,
      via,
      traceparent: traceparentToSend(span),
    };
    const held = this.leases.get(caller.accountId);
    // A plan changed since the grant (the token's verification dropped and made again): the lease's caps
    // are the old plan's, so it goes back with this request, which its shard decides on the new ones.
    if (held && !sameCaps(held.holder.grant.caps, known.caps)) this.giveBack(held, 'returned');
    else if (held) {
      const now = this.clock();
      const answer = this.underLease(requestId, held, asking, now);
      if (answer instanceof ApiError) return Promise.reject(answer);
      if (answer !== null) return Promise.resolve(answer);
    }
    const request: ledger.Admission = {
      request_id: requestId,
      account: known.account,
      traceparent: asking.traceparent,
      interface: via,
      // A relief ends while its process runs on: it leases nothing.
      want_lease: this.leasing && shard === owner,
      relief: shard !== owner,
    };
    const waiter = new AdmissionRequest(request, asking, this);
    this.shards[shard]!.admit(waiter);
    return waiter.promise;
  }

  /** A shard answered an admission asked of it `ms` before. */
  shardWaited(shard: number, ms: number): void {
    this.shardWaits[shard]?.observe(ms / 1000);
  }

  /** The shard `caller`'s next admission is asked of, and its charge settled through, now. */
  shardFor(caller: Principal): number {
    return this.router.route(this.ledgerCaller(caller).shard);
  }

  /** Whether `shard`'s ledger reads compact settlement batches, by its admission stream (`Settler`). */
  readsCompact(shard: number): boolean {
    return this.shards[shard]?.readsCompact ?? false;
  }

  resend(waiter: AdmissionRequest, shard: number): void {
    this.shards[shard]!.admit(waiter);
  }

  /**
   * Decided here under the lease held on the account; null when the lease cannot answer (expired, or
   * its allotment used): it goes back with the request the shard is then asked, in one message.
   */
  private underLease(
    requestId: string,
    held: HeldLease,
    asking: Asking,
    now: number,
  ): Admission | ApiError | null {
    const leaseNumber = held.holder.used;
    const decision = held.holder.admit(requestId, now, asking.via);
    if (decision === null) {
      this.giveBack(held, 'returned');
      return null;
    }
    const answer = answerOf(admissionResult(requestId, decision, now), asking, this.decisions, now)!;
    if (answer instanceof ApiError) return answer;
    answer.lease = held;
    answer.leaseNumber = leaseNumber;
    // Asked before it runs out, so that no request of a busy account waits for its shard at the lease's
    // end; and with a report of what it admitted, so that the lease never has to come back for that.
    if (!held.extending && (held.holder.endsSoon(now) || held.holder.reportDue())) {
      const holder = held.holder;
      held.extending = this.shards[held.shard]!.extendLease(
        leaseExtensionRequest(held.accountId, holder.grant.leaseId, holder.used, holder.report()),
      );
    }
    held.account = asking.known.account;
    return answer;
  }

  /**
   * The shard's answer to `asking` (called by its waiter, in the order the shard decided). 'resend': the
   * shard left it to a lease on the account that this gateway no longer holds; ask again.
   */
  decided(res: ledger.AdmissionResult, asking: Asking): Admission | ApiError | null | 'resend' {
    const now = this.clock();
    const accountId = asking.caller.accountId;
    if (res.decision === D.ADMIT_DECISION_LEASED) {
      const held = this.leases.get(accountId);
      return (held && this.underLease(res.request_id, held, asking, now)) ?? 'resend';
    }
    // Decided by the shard after it granted a lease held here: counted there beside the allotment, and
    // by the holder, whose figures are the ones to send (the shard's count the allotment as used).
    const holdersFigures =
      res.decision === D.ADMIT_DECISION_ADMITTED && !res.lease
        ? this.leases.get(accountId)?.holder.external(res.request_id, now)
        : null;
    const answer = answerOf(
      holdersFigures ? admissionResult(res.request_id, holdersFigures, res.admitted_at_ms) : res,
      asking,
      this.decisions,
      now,
    );
    if (res.lease) this.take(res.lease, asking, now);
    return answer;
  }

  unavailable(asking: Asking): void {
    this.decisions.cell('unavailable', asking.via, asking.owner).inc();
  }

  private take(grant: ledger.LeaseGrant, asking: Asking, now: number): void {
    const { accountId } = asking.caller;
    const lease = leaseGrantOf(grant, asking.known.caps, now);
    const held: HeldLease = {
      holder: new LeaseHolder(lease),
      accountId,
      account: asking.known.account,
      shard: asking.shard,
      timer: this.returnAt(() => held, lease.expiresAt, now),
      extending: false,
      dropped: false,
      charged: new Map(),
    };
    this.leaseEvents.cell('granted').inc();
    const previous = this.leases.get(accountId);
    if (previous) this.giveBack(previous, 'returned');
    this.leases.set(accountId, held);
    this.leaseIds.set(lease.leaseId, held);
  }

  /** Given back when it ends, used or not, so the shard never waits to write it off. */
  private returnAt(held: () => HeldLease, expiresAt: number, now: number): NodeJS.Timeout {
    return setTimeout(() => this.giveBack(held(), 'returned'), Math.max(0, expiresAt - now)).unref();
  }

  /**
   * The shard's answer to an extension asked of it: what it took in of the report, then the terms
   * applied, or (allotment 0) none is asked again.
   */
  private extended(
    held: HeldLease,
    terms: { allotment: number; expiresAt: number; reportedThrough: number },
    now: number,
  ): void {
    held.holder.reportedThrough(terms.reportedThrough);
    if (terms.allotment === 0 || !held.holder.extend(terms.allotment, terms.expiresAt, now)) return;
    clearTimeout(held.timer);
    held.timer = this.returnAt(() => held, held.holder.expiresAt, now);
    held.extending = false;
    this.leaseEvents.cell('extended').inc();
  }

  /** The lease goes back to its shard with what was admitted under it. */
  private giveBack(held: HeldLease, why: 'returned' | 'recalled'): void {
    if (!this.drop(held, why)) return;
    this.shards[held.shard]!.returnLease(leaseReturnMessage(held.accountId, held.holder.returned()));
  }

  /**
   * Stops admitting under the lease; false if it was not held. Its admissions still unsettled become its
   * shard's to restore on a new stream, as one the shard admitted: from here on the shard holds them
   * (returned or recalled: taken in with the return; lost: restored when a stream is up again).
   */
  private drop(held: HeldLease, why: (typeof LEASE_EVENTS)[number]): boolean {
    if (this.leaseIds.get(held.holder.grant.leaseId) !== held) return false;
    this.leaseIds.delete(held.holder.grant.leaseId);
    held.dropped = true;
    if (this.leases.get(held.accountId) === held) this.leases.delete(held.accountId);
    clearTimeout(held.timer);
    const { account } = held;
    this.shards[held.shard]!.outlivedLease(
      held.holder.unsettled().map((a) => ({
        request_id: a.requestId,
        account,
        admitted_at_ms: a.at,
        interface: a.via,
      })),
    );
    this.leaseEvents.cell(why).inc();
    return true;
  }

  /**
   * The lease an admission's account is held under here, if one is: the one it was admitted under while
   * that is still held (one account, one lease at a time), else whichever is held now.
   */
  private leaseOf(admission: Admission): HeldLease | undefined {
    const lease = admission.lease;
    return lease !== undefined && !lease.dropped ? lease : this.leases.get(admission.accountId);
  }

  /** Its number under the lease it settles on: known when that is the lease it was admitted under. */
  private static numberUnder(held: HeldLease | undefined, admission: Admission): number | undefined {
    return held !== undefined && held === admission.lease ? admission.leaseNumber : undefined;
  }

  /**
   * The caller's shard, ledger account and caps, made once per verified principal (the token cache hands
   * out the same object for every request of a token) rather than once per request.
   */
  private ledgerCaller(caller: Principal): LedgerCaller {
    let known = this.callers.get(caller);
    if (known === undefined) {
      known = {
        shard: this.router.of(caller.accountId),
        account: ledgerAccount(caller),
        caps: { daily: caller.dailyCap, monthly: caller.monthlyCap, burst: caller.burstPerMinute },
      };
      this.callers.set(caller, known);
    }
    return known;
  }

  /**
   * The request ended without a 200; resolves once its shard no longer counts it (bounded). One admitted
   * under a lease still held here and not reported is counted by nobody else: the lease frees its unit,
   * no round trip.
   */
  release(admission: Admission): Promise<void> {
    const held = this.leaseOf(admission);
    const onlyHere =
      held?.holder.settle(admission.requestId, 'refunded', AdmissionClient.numberUnder(held, admission)) ??
      false;
    if (onlyHere && admission.lease !== undefined && held === admission.lease) return RELEASED;
    return this.shards[admission.shard]!.release({
      request_id: admission.requestId,
      account_id: admission.accountId,
    });
  }

  /** The request's 200 could not be charged durably; resolves once its shard no longer counts it (bounded). */
  voidCharge(admission: Admission): Promise<void> {
    const held = this.leaseOf(admission);
    held?.holder.settle(admission.requestId, 'refunded', AdmissionClient.numberUnder(held, admission));
    return this.shards[admission.shard]!.voidCharge({
      request_id: admission.requestId,
      account_id: admission.accountId,
      admitted_at_ms: admission.admittedAtMs,
      interface: admission.via,
    });
  }

  /** The admission's charge is acknowledged (`ack`): its shard no longer needs it restored. */
  settled(admission: Admission, ack: PubAck): void {
    const held = this.leaseOf(admission);
    held?.holder.settle(admission.requestId, 'charged', AdmissionClient.numberUnder(held, admission));
    if (held !== undefined && admission.lease === held) {
      const seq = held.charged.get(ack.stream);
      if (seq === undefined || ack.seq > seq) held.charged.set(ack.stream, ack.seq);
      // Admitted under a lease still held: never among the shard's outstanding (`drop` puts them there).
      return;
    }
    this.shards[admission.shard]!.settled(admission.requestId);
  }

  /**
   * What the lease held here on the account has charged, for a usage read to send its shard: the shard
   * cannot see admissions made under a lease, and with these it waits only for their charges to be
   * recorded instead of for everything its stream holds. Undefined when no lease is held here.
   */
  leaseCharges(accountId: string): ledger.LeaseCharges | undefined {
    const held = this.leases.get(accountId);
    if (held === undefined) return undefined;
    const charged = [...held.charged].map(([stream, seq]) => ({ stream, seq }));
    return { lease_id: held.holder.grant.leaseId, charged };
  }

  close(): void {
    for (const held of [...this.leases.values()]) this.giveBack(held, 'returned');
    for (const s of this.shards) s.close();
  }
}

const RELEASED: Promise<void> = Promise.resolve();

/** The same object for every request of a token (its caller's record), compared field by field across tokens. */
const sameCaps = (a: Caps, b: Caps) =>
  a === b || (a.daily === b.daily && a.monthly === b.monthly && a.burst === b.burst);
