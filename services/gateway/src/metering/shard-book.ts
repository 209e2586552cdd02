import { ledger } from '@mdp/proto';

/** After a stream fails, refuse at once for this long instead of re-dialling on every request. */
export const REDIAL_PAUSE_MS = 250;
/** How long the ledger holds an admitted request that never settles (its HOLD_TTL_MS default). */
export const HOLD_TTL_MS = 30_000;
/** Restored holds per message, well under gRPC's message size limit. */
export const RESTORE_BATCH = 2_000;

const ADMITTED = ledger.AdmitDecision.ADMIT_DECISION_ADMITTED;

interface Expiring<T> {
  value: T;
  expiresAt: number;
}

/**
 * Entries by request id that expire a hold TTL after they were added, oldest first; the book keeps two
 * such sets (below), both bounded by the request rate times the TTL.
 */
export class ExpiringByRequest<T> {
  private readonly entries = new Map<string, Expiring<T>>();

  constructor(private readonly ttlMs = HOLD_TTL_MS) {}

  add(requestId: string, value: T, now: number): void {
    this.prune(now);
    // Added again, it goes to the end: the oldest stay first.
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

  delete(requestId: string): void {
    this.entries.delete(requestId);
  }

  /** The live values, oldest first. */
  values(now: number): T[] {
    this.prune(now);
    const values: T[] = [];
    for (const e of this.entries.values()) values.push(e.value);
    return values;
  }

  /** Removes every entry and returns the live values, oldest first. */
  takeAll(now: number): T[] {
    const values = this.values(now);
    this.entries.clear();
    return values;
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

const keyOf = (req: ledger.Admission): ledger.RequestKey => ({
  request_id: req.request_id,
  account_id: req.account?.account_id ?? '',
});

/** What the book needs of a request waiting for its shard's answer. */
export interface Waiting {
  readonly request: ledger.Admission;
}

/** One message to the shard, and the waiters of the admissions it carries (answered 503 at its deadline). */
export interface Turn<A> {
  readonly message: ledger.AdmitRequest;
  readonly waiting: readonly A[];
}

/** Requests to answer 503, and withdrawals to stop waiting for. */
export interface Ended<A, D> {
  readonly unavailable: readonly A[];
  readonly withdrawn: readonly D[];
}

/**
 * Where an admission goes: into this turn's message, into the first message of a stream to dial now, or
 * nowhere (a 503).
 */
export type Admitting = 'queued' | 'dial' | 'refused';

/**
 * What a gateway knows of one ledger shard's admission stream, as events in and decisions out: no
 * socket, timer or promise, and the time is passed in. `A` waits for an admission's answer, `D` for a
 * withdrawal's acknowledgement; the book only hands them back, saying which to answer and how.
 *
 * A request the shard may hold is accounted for until the shard no longer counts it: answered in time
 * and admitted, it is outstanding until settled (and handed to a new stream again: a restarted shard has
 * lost its holds); answered 503 before the shard decided (deadline passed, stream broke), it is released
 * once the shard admits it after all, or on the next stream if this one breaks first.
 */
export class ShardBook<A extends Waiting, D> {
  /** A stream is up: messages flushed now are written. */
  private connected = false;
  private pausedUntil = 0;
  /** Requests sent (or queued this turn) that the shard has not answered, by id. */
  private readonly pending = new Map<string, A>();
  /** This turn's admissions, releases and voids, sent together as one message. */
  private queue: A[] = [];
  private releases: ledger.RequestKey[] = [];
  private voids: ledger.VoidedRequest[] = [];
  private returns: ledger.LeaseReturn[] = [];
  private extensions: ledger.LeaseExtensionRequest[] = [];
  /** Requests the shard may hold after a stream broke: released in the first message of the next one. */
  private orphaned: ledger.RequestKey[] = [];
  /** Releases and voids sent, until the shard acknowledges them (or their message's deadline). */
  private readonly withdrawing = new Map<string, D>();
  /**
   * The requests this shard admitted that this gateway has not settled yet, restored on a new stream.
   * An entry goes when its settlement is acknowledged, or after the hold TTL at most. A request settled
   * while the stream is down stays until its TTL: the restarted shard may not have consumed its
   * settlement yet, and drops it if it has.
   */
  private readonly outstanding: ExpiringByRequest<ledger.RestoredHold>;
  /**
   * Requests answered 503 before the shard decided them (the deadline passed), by id. The shard may still
   * admit one: its hold would then count in usage and against the caps until it expires, for a request
   * that was never served. So a late ADMITTED for one of these is released at once, and if the stream
   * breaks first, they are released on the next one.
   */
  private readonly abandoned: ExpiringByRequest<ledger.RequestKey>;

  constructor(holdTtlMs = HOLD_TTL_MS) {
    this.outstanding = new ExpiringByRequest(holdTtlMs);
    this.abandoned = new ExpiringByRequest(holdTtlMs);
  }

  /** No stream is up and one broke a moment ago: a request now would be refused. */
  refusing(now: number): boolean {
    return !this.connected && now < this.pausedUntil;
  }

  /** A request to decide: queued for this turn's message, unless a stream broke a moment ago. */
  admit(waiter: A, now: number): Admitting {
    if (this.refusing(now)) return 'refused';
    this.pending.set(waiter.request.request_id, waiter);
    this.queue.push(waiter);
    return this.connected ? 'queued' : 'dial';
  }

  /** Something waits to be sent this turn. */
  get due(): boolean {
    return (
      this.queue.length > 0 ||
      this.releases.length > 0 ||
      this.voids.length > 0 ||
      this.returns.length > 0 ||
      this.extensions.length > 0
    );
  }

  /** The turn ends: its message, if it has anything to say. */
  flush(): Turn<A> | undefined {
    if (!this.due) return undefined;
    const waiting = this.queue;
    const message = {
      admissions: waiting.map((w) => w.request),
      restored: [],
      releases: this.releases,
      voids: this.voids,
      lease_returns: this.returns,
      lease_extensions: this.extensions,
    };
    this.queue = [];
    this.releases = [];
    this.voids = [];
    this.returns = [];
    this.extensions = [];
    return { message, waiting };
  }

  /**
   * The shard decided a request: its waiter, to answer. None for one given up on already; if the shard
   * admitted that one, its release goes in this turn's message (after the admission the shard decided,
   * on the same ordered stream).
   */
  answered(res: ledger.AdmissionResult, now: number): A | undefined {
    const id = res.request_id;
    const waiter = this.pending.get(id);
    if (waiter === undefined) {
      const key = this.abandoned.take(id, now);
      if (key !== undefined && res.decision === ADMITTED) this.releases.push(key);
      // A lease granted with it goes back unused, so the shard does not count it until it expires.
      if (key !== undefined && res.lease)
        this.returns.push({
          lease_id: res.lease.lease_id,
          account_id: key.account_id,
          admitted: [],
          admitted_from: 0,
        });
      return undefined;
    }
    this.pending.delete(id);
    if (res.decision === ADMITTED) {
      const req = waiter.request;
      const hold = {
        request_id: id,
        account: req.account,
        admitted_at_ms: res.admitted_at_ms,
        interface: req.interface,
      };
      this.outstanding.add(id, hold, now);
    }
    return waiter;
  }

  /**
   * The turn's deadline: its requests still unanswered get a 503 (and are released if the shard admits
   * them later), and its withdrawals stop waiting (their settlement events release them then).
   */
  expire(turn: Turn<A>, now: number): Ended<A, D> {
    const unavailable: A[] = [];
    for (const waiter of turn.waiting) {
      const req = waiter.request;
      if (this.pending.get(req.request_id) !== waiter) continue;
      this.pending.delete(req.request_id);
      this.abandoned.add(req.request_id, keyOf(req), now);
      unavailable.push(waiter);
    }
    const withdrawn: D[] = [];
    for (const { request_id } of turn.message.releases) this.stopWaiting(request_id, withdrawn);
    for (const { request_id } of turn.message.voids) this.stopWaiting(request_id, withdrawn);
    return { unavailable, withdrawn };
  }

  private stopWaiting(requestId: string, withdrawn: D[]): void {
    const done = this.acknowledged(requestId);
    if (done !== undefined) withdrawn.push(done);
  }

  /**
   * The request ended without a 200: the shard drops its hold, so that usage read after the error never
   * counts it. It is never charged, so it needs no restoring either. True: wait with `done` for the
   * shard's word; false: no stream is up (its settlement event releases it).
   */
  release(key: ledger.RequestKey, done: D): boolean {
    if (!this.withdraw(key.request_id, done)) return false;
    this.releases.push(key);
    return true;
  }

  /**
   * The request's 200 could not be charged durably (its `voided` event follows): as `release`, and the
   * shard does not count its charge either, should it be (or have been) recorded before the void.
   */
  voidCharge(v: ledger.VoidedRequest, done: D): boolean {
    if (!this.withdraw(v.request_id, done)) return false;
    this.voids.push(v);
    return true;
  }

  private withdraw(requestId: string, done: D): boolean {
    this.outstanding.delete(requestId);
    if (!this.connected) return false;
    this.withdrawing.set(requestId, done);
    return true;
  }

  /**
   * A lease goes back, in this turn's message (before its admissions). False: no stream is up; the shard
   * writes the lease off on its own once it has expired.
   */
  returnLease(r: ledger.LeaseReturn): boolean {
    if (!this.connected) return false;
    this.returns.push(r);
    return true;
  }

  /**
   * The holder of a lease would keep it longer: asked in this turn's message. False: no stream is up
   * (the lease went with it).
   */
  extendLease(e: ledger.LeaseExtensionRequest): boolean {
    if (!this.connected) return false;
    this.extensions.push(e);
    return true;
  }

  /**
   * Requests admitted here under a lease that ended before they settled: outstanding until settled, as
   * ones the shard admitted, so a restarted shard holds them again. (While the lease is held its holder
   * keeps them: a stream that breaks ends the lease first.)
   */
  outlivedLease(holds: readonly ledger.RestoredHold[], now: number): void {
    for (const hold of holds) this.outstanding.add(hold.request_id, hold, now);
  }

  /** The shard applied a release or void: who waited for it, if anyone still does. */
  acknowledged(requestId: string): D | undefined {
    const done = this.withdrawing.get(requestId);
    if (done !== undefined) this.withdrawing.delete(requestId);
    return done;
  }

  /**
   * The request's settlement is acknowledged. While no stream is up it is kept (until its TTL), so that
   * a restarted shard that has not consumed the settlement yet still counts it.
   */
  settled(requestId: string): void {
    if (this.connected) this.outstanding.delete(requestId);
  }

  /**
   * A new stream is up: what to write before any admission. The holds the shard may have lost with the
   * previous stream, in messages of RESTORE_BATCH (the shard applies them in order), then the releases
   * of requests it may hold for nobody.
   */
  opened(now: number): ledger.AdmitRequest[] {
    this.connected = true;
    const messages: ledger.AdmitRequest[] = [];
    const restored = this.outstanding.values(now);
    for (let i = 0; i < restored.length; i += RESTORE_BATCH)
      messages.push({
        admissions: [],
        restored: restored.slice(i, i + RESTORE_BATCH),
        releases: [],
        voids: [],
        lease_returns: [],
        lease_extensions: [],
      });
    if (this.orphaned.length > 0) {
      messages.push({
        admissions: [],
        restored: [],
        releases: this.orphaned,
        voids: [],
        lease_returns: [],
        lease_extensions: [],
      });
      this.orphaned = [];
    }
    return messages;
  }

  /**
   * The stream broke: every unanswered request gets a 503, and every withdrawal stops waiting (the
   * settlement event releases it). Of those, what the shard may hold is released on the next stream:
   * requests it was sent, requests given up on that it has not answered, and releases not sent yet.
   */
  broken(now: number): Ended<A, D> {
    this.connected = false;
    this.pausedUntil = now + REDIAL_PAUSE_MS;
    // Queued this turn, never sent: nothing to release.
    for (const waiter of this.queue) this.pending.delete(waiter.request.request_id);
    const unavailable = this.queue;
    for (const waiter of this.pending.values()) {
      this.orphaned.push(keyOf(waiter.request));
      unavailable.push(waiter);
    }
    this.pending.clear();
    this.orphaned.push(...this.abandoned.takeAll(now), ...this.releases);
    const withdrawn = [...this.withdrawing.values()];
    this.withdrawing.clear();
    this.queue = [];
    this.releases = [];
    this.voids = [];
    this.returns = [];
    this.extensions = [];
    return { unavailable, withdrawn };
  }
}
