import { Client, type ClientDuplexStream, credentials, Metadata } from '@grpc/grpc-js';
import { ApiError } from '@mdp/errors';
import { CHANNEL_OPTIONS } from '@mdp/grpc';
import { ledger } from '@mdp/proto';
import { Counter, injectTraceContext, type Logger, type Registry } from '@mdp/telemetry';
import { type Interface, shardOf } from '@mdp/usage';
import type { Principal } from './authenticator.ts';
import { ledgerAccount } from './catalogue/account.ts';
import { rateLimitHeaders } from './rate-limit-headers.ts';

const D = ledger.AdmitDecision;
/** After a stream fails, refuse at once for this long instead of re-dialling on every request. */
const REDIAL_PAUSE_MS = 250;
/** How long the ledger holds an admitted request that never settles (its HOLD_TTL_MS default). */
export const HOLD_TTL_MS = 30_000;
/** Restored holds per message. */
const RESTORE_BATCH = 2_000;

/**
 * Entries by request id that expire a hold TTL after they were added, oldest first; the gateway keeps
 * two such sets per shard (below), both bounded by the request rate times the TTL.
 */
export class ExpiringByRequest<T> {
  private readonly entries = new Map<string, { value: T; expiresAt: number }>();

  constructor(private readonly ttlMs = HOLD_TTL_MS) {}

  add(requestId: string, value: T, now: number): void {
    this.prune(now);
    this.entries.delete(requestId);
    this.entries.set(requestId, { value, expiresAt: now + this.ttlMs });
  }

  /** Removes the entry and returns its value, if it was there and has not expired. */
  take(requestId: string, now: number): T | undefined {
    const e = this.entries.get(requestId);
    if (!e) return undefined;
    this.entries.delete(requestId);
    return e.expiresAt > now ? e.value : undefined;
  }

  /** The live values, oldest first. */
  values(now: number): T[] {
    this.prune(now);
    return [...this.entries.values()].map((e) => e.value);
  }

  get size(): number {
    return this.entries.size;
  }

  private prune(now: number): void {
    for (const [id, e] of this.entries) {
      if (e.expiresAt > now) break;
      this.entries.delete(id);
    }
  }
}

/** A request waiting for its shard's answer; `answered` once resolved or refused, so nothing refuses it twice. */
interface Pending {
  resolve(res: ledger.AdmissionResult): void;
  reject(err: ApiError): void;
  answered: boolean;
  accountId: string;
}

/** One long-lived admission stream to one ledger shard, multiplexing every request of this gateway. */
class ShardStream {
  private stream: ClientDuplexStream<ledger.AdmitRequest, ledger.AdmitResponse> | null = null;
  private readonly pending = new Map<string, Pending>();
  /** Requests of this turn of the event loop, sent together as one message. */
  private queue: ledger.Admission[] = [];
  private queuedPending: Pending[] = [];
  /** Releases of this turn, sent with the admissions; each waits for the shard's acknowledgement. */
  private releases: ledger.RequestKey[] = [];
  /** Voids of this turn, sent and acknowledged as the releases are. */
  private voids: ledger.VoidedRequest[] = [];
  /** Requests pending when a stream broke: released in the first message of the next one. */
  private orphaned: ledger.RequestKey[] = [];
  private readonly releasing = new Map<string, () => void>();
  private flushScheduled = false;
  private pausedUntil = 0;
  private readonly client: Client;
  /**
   * The requests this shard admitted that this gateway has not settled yet, so that a new stream can
   * hand them to the shard again (a restarted shard has lost its holds). An entry goes when its
   * settlement is acknowledged, or after the hold TTL at most. A request settled while the stream is
   * down stays until its TTL: the restarted shard may not have consumed its settlement yet, and drops it
   * if it has.
   */
  private readonly outstanding: ExpiringByRequest<ledger.RestoredHold>;
  /**
   * Requests answered 503 before the shard decided them (the deadline passed, or the stream broke), by
   * id, with their account. The shard may still admit one: its hold would then count in usage and
   * against the caps until it expires, for a request that was never served. So a late ADMITTED for one
   * of these is released at once, and a broken stream's are released on the next one.
   */
  private readonly abandoned: ExpiringByRequest<string>;

  constructor(
    address: string,
    private readonly logger: Logger,
    private readonly deadlineMs: number,
    holdTtlMs: number,
  ) {
    this.client = new Client(address, credentials.createInsecure(), CHANNEL_OPTIONS);
    this.outstanding = new ExpiringByRequest(holdTtlMs);
    this.abandoned = new ExpiringByRequest(holdTtlMs);
  }

  /** The shard said ADMITTED: remember the request until it settles. */
  admitted(req: ledger.Admission, admittedAtMs: number): void {
    this.outstanding.add(
      req.request_id,
      {
        request_id: req.request_id,
        account: req.account,
        admitted_at_ms: admittedAtMs,
        interface: req.interface,
      },
      Date.now(),
    );
  }

  /**
   * The request's settlement is acknowledged. While the stream is down it is kept (until its TTL), so
   * that a restarted shard that has not consumed the settlement yet still counts it.
   */
  settled(requestId: string): void {
    if (this.stream) this.outstanding.take(requestId, Date.now());
  }

  private open(): ClientDuplexStream<ledger.AdmitRequest, ledger.AdmitResponse> {
    const def = ledger.QuotaLedgerServiceService.admit;
    const stream = this.client.makeBidiStreamRequest(
      def.path,
      def.requestSerialize,
      def.responseDeserialize,
      new Metadata(),
    );
    stream.on('data', (response: ledger.AdmitResponse) => {
      for (const id of response.released) this.releasing.get(id)?.();
      for (const res of response.results) {
        const p = this.pending.get(res.request_id);
        if (!p) {
          this.lateResult(res);
          continue;
        }
        this.pending.delete(res.request_id);
        p.answered = true;
        p.resolve(res);
      }
    });
    const broken = (why: string) => {
      if (this.stream !== stream) return;
      this.stream = null;
      this.pausedUntil = Date.now() + REDIAL_PAUSE_MS;
      this.logger.warn({ why }, 'admission stream to the ledger closed');
      for (const [id, p] of this.pending) {
        p.answered = true;
        p.reject(ApiError.serviceUnavailable(5));
        this.pending.delete(id);
        // The shard may have admitted it before the stream broke (and may still be running).
        this.orphaned.push({ request_id: id, account_id: p.accountId });
      }
      // A release the shard may not have applied: the settlement event on the stream will.
      for (const done of [...this.releasing.values()]) done();
    };
    stream.on('error', (err) => broken(err.message));
    stream.on('end', () => broken('ended by the ledger'));
    this.stream = stream;
    // Before any new admission: the holds the shard may have lost with the previous stream.
    // (In messages of RESTORE_BATCH, well under gRPC's message size limit; the shard applies them in order.)
    const restored = this.outstanding.values(Date.now());
    for (let i = 0; i < restored.length; i += RESTORE_BATCH)
      stream.write({
        admissions: [],
        restored: restored.slice(i, i + RESTORE_BATCH),
        releases: [],
        voids: [],
      });
    if (this.orphaned.length > 0) {
      stream.write({ admissions: [], restored: [], releases: this.orphaned, voids: [] });
      this.orphaned = [];
    }
    return stream;
  }

  /**
   * A result for a request no longer waiting: one this gateway gave up on. If the shard admitted it, its
   * hold goes now (sent on the same ordered stream, after the admission the shard has decided).
   */
  private lateResult(res: ledger.AdmissionResult): void {
    const accountId = this.abandoned.take(res.request_id, Date.now());
    if (accountId === undefined || res.decision !== D.ADMIT_DECISION_ADMITTED) return;
    this.releases.push({ request_id: res.request_id, account_id: accountId });
    this.scheduleFlush();
  }

  /** Within the deadline (one timer per flushed message, not one per request) or a 503. */
  admit(req: ledger.Admission): Promise<ledger.AdmissionResult> {
    if (!this.stream && Date.now() < this.pausedUntil) return Promise.reject(ApiError.serviceUnavailable(5));
    if (!this.stream) this.open();
    return new Promise((resolve, reject) => {
      const p: Pending = { resolve, reject, answered: false, accountId: req.account?.account_id ?? '' };
      this.pending.set(req.request_id, p);
      this.queue.push(req);
      this.queuedPending.push(p);
      this.scheduleFlush();
    });
  }

  /**
   * The request ended without a 200: the shard drops its hold now, so that usage read after the error
   * response never counts it. Resolves when the shard has applied it, or after `deadlineMs` (the
   * settlement event releases it then). It is never charged, so it needs no restoring either.
   */
  release(requestId: string, accountId: string, deadlineMs: number): Promise<void> {
    return this.withdraw(requestId, deadlineMs, () =>
      this.releases.push({ request_id: requestId, account_id: accountId }),
    );
  }

  /**
   * The request's 200 could not be charged durably (its `voided` event follows): as `release`, and the
   * shard does not count its charge either should it be (or have been) recorded before the void.
   */
  voidCharge(admission: Admission, deadlineMs: number): Promise<void> {
    return this.withdraw(admission.requestId, deadlineMs, () =>
      this.voids.push({
        request_id: admission.requestId,
        account_id: admission.accountId,
        admitted_at_ms: admission.admittedAtMs,
        interface: admission.via,
      }),
    );
  }

  /** Queues what `enqueue` adds for this turn's message; resolves when the shard says it is applied, or at the deadline. */
  private withdraw(requestId: string, deadlineMs: number, enqueue: () => void): Promise<void> {
    this.outstanding.take(requestId, Date.now());
    if (!this.stream) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.releasing.delete(requestId);
        resolve();
      };
      const timer = setTimeout(done, deadlineMs);
      this.releasing.set(requestId, done);
      enqueue();
      this.scheduleFlush();
    });
  }

  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => this.flush());
  }

  private flush(): void {
    this.flushScheduled = false;
    const admissions = this.queue;
    const waiting = this.queuedPending;
    const releases = this.releases;
    const voids = this.voids;
    this.queue = [];
    this.queuedPending = [];
    this.releases = [];
    this.voids = [];
    // A stream that broke since these were queued has already failed (or resolved) their promises.
    if (this.stream && (admissions.length > 0 || releases.length > 0 || voids.length > 0))
      this.stream.write({ admissions, restored: [], releases, voids });
    if (admissions.length > 0) setTimeout(() => this.expire(admissions, waiting), this.deadlineMs).unref();
  }

  /**
   * Those the shard has not answered within the deadline get a 503. No error is built for an answered
   * one: in the steady state every timer finds all answered, and an error per request (with its stack)
   * was a measurable share of the gateway's CPU.
   */
  private expire(admissions: ledger.Admission[], waiting: Pending[]): void {
    for (let i = 0; i < admissions.length; i++) {
      const w = waiting[i]!;
      if (w.answered) continue;
      const id = admissions[i]!.request_id;
      this.pending.delete(id);
      this.abandoned.add(id, w.accountId, Date.now());
      w.answered = true;
      w.reject(ApiError.serviceUnavailable(5));
    }
  }

  close(): void {
    this.stream?.end();
    this.client.close();
  }
}

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

/**
 * Admission at the gateway: asks the shard that owns the account, over its stream, within a deadline.
 * Refusals become the SPEC's 429s; a ledger that does not answer becomes a quick 503 with nothing held.
 */
export class AdmissionClient {
  private readonly shards: ShardStream[];
  private readonly decisions: Counter<'decision' | 'interface'>;
  private readonly shardByPrincipal = new WeakMap<Principal, number>();

  constructor(
    addresses: string[],
    private readonly deadlineMs: number,
    logger: Logger,
    registry: Registry,
    holdTtlMs = HOLD_TTL_MS,
  ) {
    this.shards = addresses.map((a) => new ShardStream(a, logger, deadlineMs, holdTtlMs));
    this.decisions = new Counter({
      name: 'gateway_admissions_total',
      help: 'Admission outcomes seen by the gateway (admitted, rate_limited, quota_exhausted, unavailable) by interface (rest, mcp)',
      labelNames: ['decision', 'interface'] as const,
      registers: [registry],
    });
  }

  async admit(requestId: string, caller: Principal, via: Interface): Promise<Admission> {
    const shard = this.shardOf(caller);
    const carrier: Record<string, string> = {};
    injectTraceContext(carrier);
    const req: ledger.Admission = {
      request_id: requestId,
      account: ledgerAccount(caller),
      traceparent: carrier.traceparent ?? '',
      interface: via,
    };
    let res: ledger.AdmissionResult;
    try {
      res = await this.shards[shard]!.admit(req);
    } catch (err) {
      this.decisions.inc({ decision: 'unavailable', interface: via });
      throw err;
    }
    const headers = rateLimitHeaders(res, caller, res.decision === D.ADMIT_DECISION_RATE_LIMITED, Date.now());
    switch (res.decision) {
      case D.ADMIT_DECISION_ADMITTED:
        this.decisions.inc({ decision: 'admitted', interface: via });
        this.shards[shard]!.admitted(req, res.admitted_at_ms);
        return {
          requestId,
          accountId: caller.accountId,
          shard,
          admittedAtMs: res.admitted_at_ms,
          via,
          traceparent: req.traceparent,
          headers,
        };
      case D.ADMIT_DECISION_RATE_LIMITED:
        this.decisions.inc({ decision: 'rate_limited', interface: via });
        throw new ApiError(
          'rate_limited',
          `burst cap of ${caller.burstPerMinute} requests a minute reached; wait Retry-After seconds`,
          {
            headers: { ...headers, 'Retry-After': res.retry_after_seconds },
          },
        );
      case D.ADMIT_DECISION_QUOTA_EXHAUSTED:
        this.decisions.inc({ decision: 'quota_exhausted', interface: via });
        throw new ApiError('quota_exhausted', 'plan quota used up; it resets at X-RateLimit-Reset', {
          headers: { ...headers, 'Retry-After': res.retry_after_seconds },
        });
      default:
        // A ledger that could not decide (or a duplicate, which ids this gateway made cannot be): never
        // guess, never charge.
        this.decisions.inc({ decision: 'unavailable', interface: via });
        throw ApiError.serviceUnavailable(5);
    }
  }

  /**
   * The caller's shard, hashed once per verified principal (the token cache hands out the same object
   * for every request of a token) rather than once per request.
   */
  private shardOf(caller: Principal): number {
    let shard = this.shardByPrincipal.get(caller);
    if (shard === undefined) {
      shard = shardOf(caller.accountId, this.shards.length);
      this.shardByPrincipal.set(caller, shard);
    }
    return shard;
  }

  /** The request ended without a 200; resolves once its shard no longer counts it (bounded). */
  release(admission: Admission): Promise<void> {
    return (
      this.shards[admission.shard]?.release(admission.requestId, admission.accountId, this.deadlineMs) ??
      Promise.resolve()
    );
  }

  /** The request's 200 could not be charged durably; resolves once its shard no longer counts it (bounded). */
  voidCharge(admission: Admission): Promise<void> {
    return this.shards[admission.shard]?.voidCharge(admission, this.deadlineMs) ?? Promise.resolve();
  }

  /** The admission's settlement event is acknowledged (charged, refunded or voided). */
  settled(admission: Admission): void {
    this.shards[admission.shard]?.settled(admission.requestId);
  }

  close(): void {
    for (const s of this.shards) s.close();
  }
}
