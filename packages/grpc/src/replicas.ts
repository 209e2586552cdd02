import {
  Client,
  type ClientUnaryCall,
  connectivityState,
  credentials,
  Metadata,
  type ServiceError,
  status,
} from '@grpc/grpc-js';
import { Counter, Gauge, type Registry } from '@mdp/telemetry';
import {
  type CircuitBreakerPolicy,
  CircuitState,
  ConsecutiveBreaker,
  circuitBreaker,
  ExponentialBackoff,
  handleWhen,
  type IBreaker,
  noJitterGenerator,
} from 'cockatiel';
import { parseTarget, resolveTarget, type Target } from './target.ts';

/**
 * Per-address outlier handling. A SIGSTOPped or wedged peer keeps its TCP connection (so the channel
 * stays READY) and only deadline misses show it; a peer whose connections are refused is just not
 * ready, as with grpc-js's own balancers, and is never ejected for it.
 */
export interface OutlierPolicy {
  /** Consecutive deadline misses or UNAVAILABLE answers (on a connected channel) that eject an address. */
  failures: number;
  /** The first ejection lasts this long; each failed probe in a row doubles it, up to `maxEjectionMs`. */
  baseEjectionMs: number;
  maxEjectionMs: number;
  /** Deadline of the one health probe that decides whether an ejected address comes back. */
  probeDeadlineMs: number;
  /** How often a name is looked up again (a headless Service's addresses follow its ready pods). */
  resolveEveryMs: number;
}

export const OUTLIER_POLICY: OutlierPolicy = {
  failures: 3,
  baseEjectionMs: 250,
  // Short enough that a replica back from a pause serves again within 2 s of its return.
  maxEjectionMs: 1_500,
  probeDeadlineMs: 500,
  resolveEveryMs: 5_000,
};

/** A retry on another replica needs at least this much of the request's budget left. */
const MIN_RETRY_BUDGET_MS = 50;
/** How often ejected addresses are looked at for a due probe. */
const PROBE_TICK_MS = 50;

/**
 * Channel settings for one address: detect dead peers, reconnect fast. A restarted ledger shard admits
 * its accounts only once each gateway's channel tries it again, so the backoff between attempts bounds
 * that pause: with attempts up to 2 s apart a shard ready 1.1 s after its stop got its first 200 0.25 to
 * 0.8 s later (29 November 2026). An attempt on a refused port costs next to nothing.
 */
export const ADDRESS_CHANNEL_OPTIONS = {
  'grpc.keepalive_time_ms': 20_000,
  'grpc.keepalive_timeout_ms': 5_000,
  'grpc.keepalive_permit_without_calls': 1,
  'grpc.initial_reconnect_backoff_ms': 100,
  'grpc.max_reconnect_backoff_ms': 250,
  'grpc.max_receive_message_length': 16 * 1024 * 1024,
};

export function replicaMetrics(registry: Registry) {
  return {
    calls: new Counter({
      name: 'grpc_client_address_calls_total',
      help: 'Calls sent to an upstream address, retries included and health probes not (none while it is ejected)',
      labelNames: ['target', 'address'] as const,
      registers: [registry],
    }),
    ejections: new Counter({
      name: 'grpc_client_address_ejections_total',
      help: 'Times an upstream address was ejected after consecutive deadline misses or UNAVAILABLE answers',
      labelNames: ['target', 'address'] as const,
      registers: [registry],
    }),
    ejected: new Gauge({
      name: 'grpc_client_address_ejected',
      help: '1 while the upstream address is ejected (no calls but one probe at a time)',
      labelNames: ['target', 'address'] as const,
      registers: [registry],
    }),
    open: new Gauge({
      name: 'grpc_client_breaker_open',
      help: '1 while no address of the upstream can take a call: its calls fail at once (as seen by the last call)',
      labelNames: ['target'] as const,
      registers: [registry],
    }),
  };
}
export type ReplicaMetrics = ReturnType<typeof replicaMetrics>;

/** A failure that fails over: the request may go to another replica when its budget allows. */
const failover = new WeakSet<object>();
/** Failures the address's breaker counts. */
const outlier = new WeakSet<object>();
/** Calls that never left: no connection to the address (any call may go to another address). */
const unsent = new WeakSet<object>();

function unavailable(details: string): ServiceError {
  const err = Object.assign(new Error(`${status.UNAVAILABLE} UNAVAILABLE: ${details}`), {
    code: status.UNAVAILABLE,
    details,
    metadata: new Metadata(),
  });
  failover.add(err);
  return err;
}

/**
 * cockatiel's consecutive breaker, plus one sign a wedged peer gives before `failures` calls have
 * each waited out their deadline: a deadline miss by a peer that has answered nothing since that call
 * began, while at least `failures - 1` more calls wait on it (they are as good as missed). A healthy
 * peer that is slow on one call keeps answering the others, and is not ejected for it.
 */
class OutlierBreaker extends ConsecutiveBreaker implements IBreaker {
  /** Set by the replica just before it reports a silent peer's deadline miss. */
  silent = false;

  override failure(): boolean {
    const silent = this.silent;
    this.silent = false;
    return super.failure() || silent;
  }
}

class Replica {
  readonly channel: Client;
  readonly breaker: CircuitBreakerPolicy;
  readonly outliers: OutlierBreaker;
  readonly calls = new Set<ClientUnaryCall>();
  /** When the peer last answered anything (a deadline miss or a refused connection is no answer). */
  lastAnswer = 0;
  readonly cancelled = new WeakSet<ClientUnaryCall>();
  removed = false;

  constructor(
    readonly address: string,
    policy: OutlierPolicy,
  ) {
    this.channel = new Client(
      `${address.startsWith('[') ? 'ipv6' : 'ipv4'}:${address}`,
      credentials.createInsecure(),
      ADDRESS_CHANNEL_OPTIONS,
    );
    this.channel.getChannel().getConnectivityState(true);
    this.outliers = new OutlierBreaker(policy.failures);
    this.breaker = circuitBreaker(
      handleWhen((err) => outlier.has(err)),
      {
        halfOpenAfter: new ExponentialBackoff({
          generator: noJitterGenerator,
          initialDelay: policy.baseEjectionMs,
          maxDelay: policy.maxEjectionMs,
        }),
        breaker: this.outliers,
      },
    );
  }

  /** Connected (READY), on its way (IDLE, CONNECTING: a call waits for the connection), or refused. */
  connection(): 'ready' | 'connecting' | 'down' {
    const s = this.channel.getChannel().getConnectivityState(true);
    if (s === connectivityState.READY) return 'ready';
    return s === connectivityState.IDLE || s === connectivityState.CONNECTING ? 'connecting' : 'down';
  }

  /** Calls still on their way end at once, as failures that may go to another replica. */
  cutInFlight(): void {
    for (const call of this.calls) {
      this.cancelled.add(call);
      call.cancel();
    }
  }

  close(): void {
    this.removed = true;
    if (this.calls.size === 0) this.channel.close();
  }
}

export interface UnaryCall<Req, Res> {
  path: string;
  requestSerialize(value: Req): Buffer;
  responseDeserialize(value: Buffer): Res;
}

/**
 * The addresses one target resolves to, each with its own channel and breaker (cockatiel): after
 * `failures` consecutive deadline misses or UNAVAILABLE answers an address is ejected, its calls in
 * flight are cut, and calls go round robin to the other ready addresses; while ejected, one health
 * probe at a time (after a growing interval) decides when it comes back. With no address left, a call
 * fails UNAVAILABLE at once. A read may be retried once on another replica (`unary`'s `retry`).
 */
export class ReplicaSet {
  private readonly target: Target;
  private readonly replicas = new Map<string, Replica>();
  private list: Replica[] = [];
  private next = 0;
  private readonly resolved: Promise<void>;
  private readonly timers: NodeJS.Timeout[] = [];
  /** Ticks only while an address is ejected: an idle gateway's four sets woke 80 times a second for nothing. */
  private probing: NodeJS.Timeout | undefined;
  private lastResolve = 0;

  constructor(
    target: string,
    private readonly label: string,
    private readonly policy: OutlierPolicy = OUTLIER_POLICY,
    private readonly metrics?: ReplicaMetrics,
  ) {
    this.target = parseTarget(target);
    this.resolved = this.resolve();
    if (this.target.kind === 'name') {
      this.timers.push(setInterval(() => void this.resolve(), policy.resolveEveryMs).unref());
    }
  }

  /** The addresses held now, each with whether it is ejected. */
  addresses(): { address: string; ejected: boolean }[] {
    return this.list.map((r) => ({ address: r.address, ejected: r.breaker.state !== CircuitState.Closed }));
  }

  /**
   * One unary call within `budgetMs`. With `retry` (reads only) and another replica able to take it,
   * the first attempt gets half the budget, and a deadline miss, UNAVAILABLE or ejection sends it
   * once to another replica with what is left; never a third attempt. Any call refused before a
   * connection was made goes once to another address.
   */
  async unary<Req, Res>(
    method: UnaryCall<Req, Res>,
    request: Req,
    metadata: Metadata,
    budgetMs: number,
    retry: boolean,
  ): Promise<Res> {
    await this.resolved;
    const deadlineAt = Date.now() + budgetMs;
    const first = this.pick(undefined, true, retry);
    if (!first) throw this.noAddress();
    const alternative = retry && this.pick(first, false, false) !== undefined;
    try {
      return await this.attempt(
        first,
        method,
        request,
        metadata,
        alternative ? Date.now() + budgetMs / 2 : deadlineAt,
      );
    } catch (err) {
      const again = unsent.has(err as object) || (alternative && failover.has(err as object));
      if (!again || deadlineAt - Date.now() < MIN_RETRY_BUDGET_MS) throw err;
      const second = this.pick(first, true, retry);
      if (!second) throw err;
      return this.attempt(second, method, request, metadata.clone(), deadlineAt);
    }
  }

  close(): void {
    for (const t of this.timers) clearInterval(t);
    clearInterval(this.probing);
    this.probing = undefined;
    for (const r of this.list) r.close();
  }

  private attempt<Req, Res>(
    r: Replica,
    method: UnaryCall<Req, Res>,
    request: Req,
    metadata: Metadata,
    deadline: number,
  ): Promise<Res> {
    const connection = r.connection();
    const connected = connection === 'ready';
    if (connection === 'down') {
      metadata = metadata.clone();
      metadata.setOptions({ waitForReady: true });
    }
    const began = Date.now();
    return r.breaker.execute(
      () =>
        new Promise<Res>((resolve, reject) => {
          this.metrics?.calls.inc({ target: this.label, address: r.address });
          const call = r.channel.makeUnaryRequest(
            method.path,
            method.requestSerialize,
            method.responseDeserialize,
            request,
            metadata,
            { deadline },
            (err: ServiceError | null, value?: Res) => {
              r.calls.delete(call);
              if (r.removed && r.calls.size === 0) r.channel.close();
              const missed = err?.code === status.DEADLINE_EXCEEDED;
              if (!err || (!missed && err.code !== status.UNAVAILABLE && err.code !== status.CANCELLED)) {
                r.lastAnswer = Date.now();
              }
              if (!err) return resolve(value as Res);
              if (r.cancelled.has(call)) return reject(unavailable(`${this.label} address ejected`));
              // A refused connection is not an outlier (the address is just not ready); a deadline
              // miss, or UNAVAILABLE from a peer we were connected to, is.
              if (missed || (err.code === status.UNAVAILABLE && connected)) outlier.add(err);
              // The silent sign needs another address to take the calls: a lone replica slow to start is
              // not ejected before `failures` misses of its own.
              if (
                missed &&
                r.lastAnswer < began &&
                r.calls.size >= this.policy.failures - 1 &&
                this.hasOther(r)
              ) {
                r.outliers.silent = true;
              }
              if (err.code === status.DEADLINE_EXCEEDED || err.code === status.UNAVAILABLE) failover.add(err);
              // grpc-js's words for a call refused before any connection (e.g. localhost's ::1 when the
              // server listens on IPv4 only): nothing was sent, so even a write may go elsewhere.
              if (err.code === status.UNAVAILABLE && err.details?.startsWith('No connection established')) {
                unsent.add(err);
              }
              reject(err);
            },
          );
          r.calls.add(call);
        }),
    );
  }

  /**
   * The next address round robin whose breaker is closed: a connected one first, else one still
   * connecting, else (`orRefused`: reads, whose budget is seconds) the refused one that answered
   * last, which the call then waits on within its deadline (a service just restarted, or started after
   * the gateway, while its channel waits out a reconnect backoff: refusing at once would turn that
   * backoff into 502s). A refused address is never ejected for refusing, but a deadline missed on it
   * counts, so an upstream that stays down is ejected after `failures` misses and its calls then fail
   * at once. Auth and the ledger (writes, deadlines of a few hundred ms on the admission path) are
   * refused at once: the gateway answers 503 with Retry-After rather than hold the request.
   * `count` false: only asks whether there is one (no turn taken, no gauge set).
   */
  private pick(except: Replica | undefined, count: boolean, orRefused: boolean): Replica | undefined {
    const n = this.list.length;
    let waiting: Replica | undefined;
    let refused: Replica | undefined;
    for (let i = 0; i < n; i++) {
      const r = this.list[(this.next + i) % n]!;
      if (r === except || r.breaker.state !== CircuitState.Closed) continue;
      const c = r.connection();
      if (c === 'ready') {
        if (count) {
          this.next = (this.next + i + 1) % n;
          this.metrics?.open.set({ target: this.label }, 0);
        }
        return r;
      }
      if (c === 'connecting') waiting ??= r;
      else if (orRefused && (!refused || r.lastAnswer > refused.lastAnswer)) refused = r;
    }
    const chosen = waiting ?? refused;
    if (count) this.metrics?.open.set({ target: this.label }, chosen || except ? 0 : 1);
    return chosen;
  }

  private hasOther(r: Replica): boolean {
    return this.list.some(
      (o) => o !== r && o.breaker.state === CircuitState.Closed && o.connection() !== 'down',
    );
  }

  private noAddress(): ServiceError {
    // Addresses may have changed since the last look-up (a pod replaced): look again, at most once a second.
    if (this.target.kind === 'name' && Date.now() - this.lastResolve > 1_000) void this.resolve();
    return unavailable(`no address of ${this.label} can take calls`);
  }

  private async resolve(): Promise<void> {
    this.lastResolve = Date.now();
    let addresses: string[];
    try {
      addresses = await resolveTarget(this.target);
    } catch {
      return; // keep what we have; looked up again on the next tick
    }
    if (addresses.length === 0) return;
    for (const a of addresses) if (!this.replicas.has(a)) this.add(a);
    for (const [a, r] of this.replicas) {
      if (addresses.includes(a)) continue;
      this.replicas.delete(a);
      r.close();
      this.metrics?.ejected.remove({ target: this.label, address: a });
      this.metrics?.ejections.remove({ target: this.label, address: a });
      this.metrics?.calls.remove({ target: this.label, address: a });
    }
    this.list = [...this.replicas.values()];
  }

  private add(address: string): void {
    const r = new Replica(address, this.policy);
    const labels = { target: this.label, address };
    this.metrics?.ejected.set(labels, 0);
    this.metrics?.ejections.inc(labels, 0);
    this.metrics?.calls.inc(labels, 0);
    let previous = CircuitState.Closed;
    r.breaker.onStateChange((state) => {
      if (state === CircuitState.Open && previous === CircuitState.Closed) {
        this.metrics?.ejections.inc(labels);
        this.metrics?.ejected.set(labels, 1);
        r.cutInFlight();
        this.probing ??= setInterval(() => this.probeDue(), PROBE_TICK_MS).unref();
      }
      if (state === CircuitState.Closed) this.metrics?.ejected.set(labels, 0);
      previous = state;
    });
    this.replicas.set(address, r);
  }

  /**
   * Each ejected address whose interval has passed gets its one probe (cockatiel's half-open call); the
   * ticks stop once every address is back (or gone).
   */
  private probeDue(): void {
    let ejected = false;
    for (const r of this.list) {
      if (r.breaker.state === CircuitState.Closed) continue;
      ejected = true;
      if (r.breaker.state !== CircuitState.Open) continue;
      // Throws BrokenCircuitError at once while the interval lasts.
      r.breaker.execute(() => this.probe(r)).catch(() => {});
    }
    if (!ejected) {
      clearInterval(this.probing);
      this.probing = undefined;
    }
  }

  /** grpc.health.v1.Health/Check for the whole server: SERVING or a failure the breaker counts. */
  private probe(r: Replica): Promise<void> {
    return new Promise((resolve, reject) => {
      r.channel.makeUnaryRequest(
        '/grpc.health.v1.Health/Check',
        () => EMPTY,
        (b: Buffer) => b,
        {},
        new Metadata(),
        { deadline: Date.now() + this.policy.probeDeadlineMs },
        (err: ServiceError | null, value?: Buffer) => {
          if (!err && value?.equals(SERVING)) return resolve();
          const failure = err ?? unavailable('not serving');
          outlier.add(failure);
          reject(failure);
        },
      );
    });
  }
}

/** An empty HealthCheckRequest (service "": the whole server). */
const EMPTY = Buffer.alloc(0);
/** HealthCheckResponse { status: SERVING (1) } on the wire: field 1, varint 1. */
const SERVING = Buffer.from([0x08, 0x01]);
