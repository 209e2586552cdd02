import { ApiError } from '@mdp/errors';
import type { Clock } from '@mdp/nse-calendar';
import { ledger } from '@mdp/proto';
import { CellCounter, injectTraceContext, type Logger, type Registry } from '@mdp/telemetry';
import { INTERFACES, type Interface } from '@mdp/usage';
import type { Principal } from '../authenticator.ts';
import { ledgerAccount } from '../catalogue/account.ts';
import type { LedgerShards } from '../ledger-shards.ts';
import { rateLimitHeaders } from '../rate-limit-headers.ts';
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
  /** The request's W3C trace context ('' when none), carried by its settlement event too. */
  traceparent: string;
  headers: Record<string, string>;
}

type Decisions = CellCounter<'decision' | 'interface' | 'shard'>;
const DECISIONS = ['admitted', 'rate_limited', 'quota_exhausted', 'unavailable'] as const;

/** A request waiting for its shard, made once: answered with its admission or with the error to answer. */
class AdmissionRequest extends Deferred<Admission> implements AdmissionWaiter {
  constructor(
    readonly request: ledger.Admission,
    private readonly caller: Principal,
    private readonly shard: number,
    private readonly via: Interface,
    private readonly decisions: Decisions,
    private readonly clock: Clock,
  ) {
    super();
  }

  answer(res: ledger.AdmissionResult): void {
    try {
      this.decided(res);
    } catch (err) {
      this.reject(err);
    }
  }

  unavailable(): void {
    this.decisions.cell('unavailable', this.via, this.shard).inc();
    this.reject(ApiError.serviceUnavailable(5));
  }

  /** Refusals become the SPEC's 429s. */
  private decided(res: ledger.AdmissionResult): void {
    const { caller, via, shard } = this;
    const headers = rateLimitHeaders(
      res,
      caller,
      res.decision === D.ADMIT_DECISION_RATE_LIMITED,
      this.clock(),
    );
    switch (res.decision) {
      case D.ADMIT_DECISION_ADMITTED:
        this.decisions.cell('admitted', via, shard).inc();
        this.resolve({
          requestId: res.request_id,
          accountId: caller.accountId,
          shard,
          admittedAtMs: res.admitted_at_ms,
          via,
          traceparent: this.request.traceparent,
          headers,
        });
        break;
      case D.ADMIT_DECISION_RATE_LIMITED:
        this.decisions.cell('rate_limited', via, shard).inc();
        this.reject(
          new ApiError(
            'rate_limited',
            `burst cap of ${caller.burstPerMinute} requests a minute reached; wait Retry-After seconds`,
            { headers: { ...headers, 'Retry-After': res.retry_after_seconds } },
          ),
        );
        break;
      case D.ADMIT_DECISION_QUOTA_EXHAUSTED:
        this.decisions.cell('quota_exhausted', via, shard).inc();
        this.reject(
          new ApiError('quota_exhausted', 'plan quota used up; it resets at X-RateLimit-Reset', {
            headers: { ...headers, 'Retry-After': res.retry_after_seconds },
          }),
        );
        break;
      default:
        // A ledger that could not decide (or a duplicate, which ids this gateway made cannot be): never
        // guess, never charge.
        this.unavailable();
    }
  }
}

/** The caller as its shard reads it. */
interface LedgerCaller {
  shard: number;
  account: ledger.Account;
}

export interface AdmissionClientOptions {
  /** Which shard owns an account; one stream to each. */
  shards: LedgerShards;
  deadlineMs: number;
  logger: Logger;
  registry: Registry;
  clock: Clock;
  holdTtlMs?: number;
}

/**
 * Admission at the gateway: asks the shard that owns the account, over its stream, within a deadline.
 * Refusals become the SPEC's 429s; a ledger that does not answer becomes a quick 503 with nothing held.
 */
export class AdmissionClient {
  private readonly shards: ShardStream[];
  private readonly router: LedgerShards;
  private readonly clock: Clock;
  private readonly decisions: Decisions;
  private readonly callers = new WeakMap<Principal, LedgerCaller>();

  constructor(o: AdmissionClientOptions) {
    const { deadlineMs, logger, registry, clock, holdTtlMs = HOLD_TTL_MS } = o;
    this.router = o.shards;
    this.clock = clock;
    this.shards = o.shards.addresses.map((a) => new ShardStream(a, logger, deadlineMs, holdTtlMs, clock));
    this.decisions = new CellCounter({
      name: 'gateway_admissions_total',
      help: 'Admission outcomes seen by the gateway (admitted, rate_limited, quota_exhausted, unavailable) by interface (rest, mcp) and ledger shard',
      labelNames: ['decision', 'interface', 'shard'] as const,
      registers: [registry],
    });
    // Every series from the start, at 0: a shard that has never answered shows as unavailable > 0 beside
    // admitted = 0 (MdpLedgerShardUnreachable), not as a series that does not exist.
    for (let shard = 0; shard < this.shards.length; shard++)
      for (const decision of DECISIONS)
        for (const via of INTERFACES) this.decisions.cell(decision, via, shard);
  }

  /** Resolves with the admission, or rejects with the 429 or 503 to answer. */
  admit(requestId: string, caller: Principal, via: Interface): Promise<Admission> {
    const { shard, account } = this.ledgerCaller(caller);
    const carrier: Record<string, string> = {};
    injectTraceContext(carrier);
    const request: ledger.Admission = {
      request_id: requestId,
      account,
      traceparent: carrier.traceparent ?? '',
      interface: via,
    };
    const waiter = new AdmissionRequest(request, caller, shard, via, this.decisions, this.clock);
    this.shards[shard]!.admit(waiter);
    return waiter.promise;
  }

  /**
   * The caller's shard and ledger account, made once per verified principal (the token cache hands out
   * the same object for every request of a token) rather than once per request.
   */
  private ledgerCaller(caller: Principal): LedgerCaller {
    let known = this.callers.get(caller);
    if (known === undefined) {
      known = { shard: this.router.of(caller.accountId), account: ledgerAccount(caller) };
      this.callers.set(caller, known);
    }
    return known;
  }

  /** The request ended without a 200; resolves once its shard no longer counts it (bounded). */
  release(admission: Admission): Promise<void> {
    return this.shards[admission.shard]!.release({
      request_id: admission.requestId,
      account_id: admission.accountId,
    });
  }

  /** The request's 200 could not be charged durably; resolves once its shard no longer counts it (bounded). */
  voidCharge(admission: Admission): Promise<void> {
    return this.shards[admission.shard]!.voidCharge({
      request_id: admission.requestId,
      account_id: admission.accountId,
      admitted_at_ms: admission.admittedAtMs,
      interface: admission.via,
    });
  }

  /** The admission's charge is acknowledged: its shard no longer needs it restored. */
  settled(admission: Admission): void {
    this.shards[admission.shard]!.settled(admission.requestId);
  }

  close(): void {
    for (const s of this.shards) s.close();
  }
}
