import { randomUUID } from 'node:crypto';
import { AckedPublisher, type NatsConnection, type PubAck } from '@mdp/nats';
import type { Clock } from '@mdp/nse-calendar';
import { Counter, Gauge, Histogram, type Logger, type Registry } from '@mdp/telemetry';
import { compactBatch, type SettlementEvent, type SettlementKind, settlementMsgId } from '@mdp/usage';
import {
  BrokenCircuitError,
  type CircuitBreakerPolicy,
  CircuitState,
  ConsecutiveBreaker,
  circuitBreaker,
  handleAll,
} from 'cockatiel';
import type { Admission } from './admission.ts';
import { Deferred } from './deferred.ts';
import { type ChargeBatch, RETRY_PAUSE_MS, SettlementBook } from './settlement-book.ts';
import { SettlementStreams } from './settlement-streams.ts';

type Batch = ChargeBatch<Deferred<PubAck | null>>;

export interface SettlerOptions {
  nc: NatsConnection;
  stream: string;
  subjectPrefix: string;
  retentionDays?: number;
  replicas?: number;
  /** How long a 200 may wait for JetStream to acknowledge its charge. */
  ackTimeoutMs: number;
  /** How long one publish attempt waits before it is sent again; the breaker counts its timeouts. */
  attemptTimeoutMs: number;
  /** How long a breaker stays open before a probe (default 1 s). */
  breakerOpenMs?: number;
  /** How many ledger shards there are (LEDGER_ADDR's addresses): each one's stream has a breaker. */
  shards: number;
  /**
   * How long a shard's charges may keep gathering while its previous batch awaits its acknowledgement
   * (default 0: each turn's charges are published when the turn ends).
   */
  lingerMs?: number;
  /**
   * Whether a shard's ledger reads compact batches now (`AdmissionClient.readsCompact`): its batches
   * are published so, else as version 1. Absent: version 1 always.
   */
  compactTo?: (shard: number) => boolean;
  logger: Logger;
  registry: Registry;
  /** Event times, deadlines and the background retries' budget. */
  clock: Clock;
}

/** How long refunds and voids keep being retried in the background (holds expire long before). */
const BACKGROUND_RETRY_MS = 10 * 60_000;
const CONNECTION_LOST = 'NATS connection lost';
const BREAKER_OPEN = 'charges are not acknowledged (settlement breaker open)';
const NOT_CHARGED: Promise<null> = Promise.resolve(null);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The breaker in front of one shard's settlement stream. Opens after three charge publishes in a row
 * time out or fail (a stream without a leader, a stalled server): that shard's charges waiting then, and
 * its metered requests after, get a fast 503 instead of each waiting out its acknowledgement, so no answer
 * takes much over one attempt's timeout; after `breakerOpenMs` one publish probes, and its acknowledgement
 * closes it. One a shard, since on a JetStream cluster each shard's stream has its own leader: a server's
 * loss stops only the shards whose streams it led.
 */
interface ShardBreaker {
  readonly policy: CircuitBreakerPolicy;
  openedAt: number;
}

/**
 * Settlement at the gateway: exactly one event per admitted request, each keyed by its request id. A
 * charge is awaited (the 200 waits for the ack); the charges of one event-loop turn for one shard (and,
 * with a linger, of the turns while its previous message awaits its acknowledgement) travel as one
 * JetStream message (a batch, message id `batch:<uuid>`; a lone charge is sent as itself with
 * the request id as message id), so that a publish, an ack and a delivery are paid per batch, not per
 * request; a retried publish is stored once either way. Refunds go in the background. A charge that
 * cannot be confirmed is followed by a `voided` event, so a charge that did land after all is reversed:
 * the client got a 503, not a 200.
 */
export class Settler {
  private readonly publisher: AckedPublisher;
  private readonly background = new Set<Promise<void>>();
  private readonly published: Counter<'kind' | 'outcome'>;
  private readonly publishSeconds: Histogram<'kind'>;
  private readonly batchSize: Histogram;
  private readonly forms: Counter<'form'>;
  /** What is charged and what is still to be answered: the pure part (settlement-book.ts). */
  private readonly book: SettlementBook<Deferred<PubAck | null>>;
  /** By shard. */
  private readonly breakers: ShardBreaker[];
  private lingerTimer: NodeJS.Timeout | null = null;
  private readonly flushTurn = () => this.flush();
  private readonly lingerOver = () => {
    this.lingerTimer = null;
    this.flush();
  };

  private constructor(
    private readonly opts: SettlerOptions,
    private readonly streams: SettlementStreams,
  ) {
    this.publisher = new AckedPublisher(opts.nc);
    this.book = new SettlementBook(
      opts.ackTimeoutMs,
      () => new Deferred<PubAck | null>(),
      opts.lingerMs ?? 0,
    );
    this.breakers = Array.from({ length: opts.shards }, (_, shard) => this.breakerOf(shard));
    const breakers = this.breakers;
    new Gauge({
      name: 'gateway_settlement_breaker_open',
      help: "Whether a shard's settlement breaker is open: its charges are not being acknowledged by JetStream, and its accounts' metered requests get a fast 503",
      labelNames: ['shard'] as const,
      registers: [opts.registry],
      collect() {
        breakers.forEach((b, shard) => {
          this.set({ shard: String(shard) }, b.policy.state === CircuitState.Open ? 1 : 0);
        });
      },
    });
    this.published = new Counter({
      name: 'gateway_settlements_total',
      help: 'Settlement events published by the gateway, by kind and outcome (acked, duplicate, failed)',
      labelNames: ['kind', 'outcome'] as const,
      registers: [opts.registry],
    });
    this.publishSeconds = new Histogram({
      name: 'gateway_settlement_publish_seconds',
      help: 'Time for JetStream to acknowledge one settlement publish attempt (acknowledged or failed)',
      labelNames: ['kind'] as const,
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [opts.registry],
    });
    this.batchSize = new Histogram({
      name: 'gateway_settlement_batch_events',
      help: 'Charges per published settlement message (the charges of one gateway turn for one shard)',
      buckets: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000],
      registers: [opts.registry],
    });
    this.forms = new Counter({
      name: 'gateway_settlement_messages_total',
      help: 'Charge messages published, by form: compact (a batch to a ledger that reads them), v1 (a batch to one that does not say so), single (one charge)',
      labelNames: ['form'] as const,
      registers: [opts.registry],
    });
    for (const form of ['compact', 'v1', 'single']) this.forms.inc({ form }, 0);
    const background = this.background;
    new Gauge({
      name: 'gateway_settlements_pending',
      help: 'Refunds and voids still being retried in the background',
      registers: [opts.registry],
      collect() {
        this.set(background.size);
      },
    });
  }

  private breakerOf(shard: number): ShardBreaker {
    const { opts } = this;
    const policy = circuitBreaker(handleAll, {
      halfOpenAfter: opts.breakerOpenMs ?? 1_000,
      breaker: new ConsecutiveBreaker(3),
    });
    const breaker: ShardBreaker = { policy, openedAt: 0 };
    policy.onBreak(() => {
      breaker.openedAt = opts.clock();
      opts.logger.warn({ shard }, 'charges are not acknowledged: settlement breaker open');
      // The shard's charges still waiting are answered now (503, voided), not each at its own deadline.
      for (const batch of this.book.failShard(shard)) this.notCharged(batch, batch.events, BREAKER_OPEN);
    });
    policy.onReset(() =>
      opts.logger.info({ shard }, 'charges are acknowledged again: settlement breaker closed'),
    );
    return breaker;
  }

  /** Resolves once JetStream answers and shard 0's events have a stream to go to. */
  static async create(opts: SettlerOptions): Promise<Settler> {
    const streams = new SettlementStreams(opts);
    await streams.subject(0, 'charged');
    return new Settler(opts, streams);
  }

  /**
   * `shard`'s charges can be made now: connected, and its breaker not open, or open long enough that the
   * next charge is its probe (cockatiel moves to half-open only when called).
   */
  available(shard: number): boolean {
    const breaker = this.breakers[shard]!;
    return (
      this.book.available &&
      (breaker.policy.state !== CircuitState.Open ||
        this.opts.clock() - breaker.openedAt >= (this.opts.breakerOpenMs ?? 1_000))
    );
  }

  /**
   * The usage of `shard`'s accounts can be read now: connected, and their charges acknowledged (its
   * breaker closed). While it is open a read says 503 as admission does, since the usage it would read
   * may still change with what is being voided. Once a probe is due the read makes one itself (the
   * stream answering for its information, through the breaker), so a gateway that gets only usage reads
   * still sees JetStream back.
   */
  async readable(shard: number): Promise<boolean> {
    if (!this.book.available) return false;
    const { policy } = this.breakers[shard]!;
    if (policy.state === CircuitState.Closed) return true;
    try {
      await policy.execute(() => this.streams.answers(shard, this.opts.attemptTimeoutMs));
      return true;
    } catch {
      return false;
    }
  }

  connectionLost(): void {
    for (const batch of this.book.connectionLost()) this.notCharged(batch, batch.events, CONNECTION_LOST);
    this.publisher.failAll(CONNECTION_LOST);
  }

  connectionRestored(): void {
    this.book.connectionRestored();
  }

  /**
   * Charges a 200; resolves with JetStream's acknowledgement of its batch once JetStream has it. Null:
   * answer 503 (a void has been queued). A dropped connection fails the charge at once: the publish may
   * still land when NATS returns, and the void that follows it reverses it.
   */
  charge(a: Admission, route: string): Promise<PubAck | null> {
    const event = this.event(a, 'charged', route, 200);
    const charging = this.book.charge(event, a.shard);
    if (charging === null) {
      this.voidEach([event], a.shard, CONNECTION_LOST);
      return NOT_CHARGED;
    }
    if (charging.first) setImmediate(this.flushTurn);
    return charging.batch.waiter.promise;
  }

  /** Refunds a request that did not end in a 200. Never delays the response. */
  refund(a: Admission, route: string, status: number): void {
    this.inBackground(this.event(a, 'refunded', route, status), a.shard);
  }

  /** Waits (up to `ms`) for background settlements, e.g. before shutting down. */
  async drain(ms: number): Promise<void> {
    await Promise.race([Promise.all(this.background), sleep(ms)]);
  }

  private event(a: Admission, kind: SettlementKind, route: string, status: number): SettlementEvent {
    // A literal of one shape (no conditional spread): this runs for every request.
    const event: SettlementEvent = {
      v: 1,
      request_id: a.requestId,
      account_id: a.accountId,
      kind,
      admitted_at_ms: a.admittedAtMs,
      settled_at_ms: this.opts.clock(),
      route,
      status,
      interface: a.via,
    };
    if (a.traceparent) event.traceparent = a.traceparent;
    return event;
  }

  private flush(): void {
    for (const batch of this.book.flush(this.opts.clock())) void this.publishBatch(batch);
    const at = this.book.nextFlushAt();
    if (at !== null && this.lingerTimer === null)
      this.lingerTimer = setTimeout(this.lingerOver, Math.max(0, at - this.opts.clock()));
  }

  /** A batch was answered: what gathered behind it goes now. */
  private answered(): void {
    if (this.book.lingering) this.flush();
  }

  /** Publishes one batch, retrying (the same message) until the book says it has failed. */
  private async publishBatch(batch: Batch): Promise<void> {
    const { events, shard, deadline } = batch;
    this.batchSize.observe(events.length);
    const single = events.length === 1;
    // One payload and message id for every retry of this batch, so JetStream stores it once.
    const form = single ? 'single' : this.opts.compactTo?.(shard) ? 'compact' : 'v1';
    this.forms.inc({ form });
    const payload =
      form === 'single'
        ? JSON.stringify(events[0])
        : form === 'compact'
          ? compactBatch(events)
          : JSON.stringify({ v: 1, events });
    const msgID = single ? settlementMsgId(events[0]!) : `batch:${randomUUID()}`;
    for (;;) {
      try {
        if (!this.book.available) throw new Error(CONNECTION_LOST);
        const timeoutMs = Math.max(20, Math.min(this.opts.attemptTimeoutMs, deadline - this.opts.clock()));
        const ack = await this.breakers[shard]!.policy.execute(() =>
          this.publish('charged', events.length, shard, payload, msgID, timeoutMs),
        );
        if (this.book.acknowledged(batch)) {
          batch.waiter.resolve(ack);
          this.answered();
        }
        return;
      } catch (err) {
        const failed = this.book.failed(batch, this.opts.clock(), !(err instanceof BrokenCircuitError));
        if (failed === 'retry') {
          await sleep(RETRY_PAUSE_MS);
          continue;
        }
        if (failed !== null) {
          this.notCharged(batch, failed, (err as Error).message);
          this.answered();
        }
        return;
      }
    }
  }

  /** A batch's 200s are not to be sent: each charge is voided. */
  private notCharged(batch: Batch, events: readonly SettlementEvent[], why: string | undefined): void {
    this.voidEach(events, batch.shard, why);
    batch.waiter.resolve(null);
  }

  private voidEach(events: readonly SettlementEvent[], shard: number, why: string | undefined): void {
    for (const event of events) {
      this.published.inc({ kind: 'charged', outcome: 'failed' });
      this.opts.logger.warn({ err: why, reqId: event.request_id }, 'charge not acknowledged; voiding');
      this.inBackground({ ...event, kind: 'voided', settled_at_ms: this.opts.clock() }, shard);
    }
  }

  /** One message of `count` events of one kind, acknowledged by JetStream or thrown. */
  private async publish(
    kind: SettlementKind,
    count: number,
    shard: number,
    payload: string,
    msgID: string,
    timeoutMs: number,
  ): Promise<PubAck> {
    const end = this.publishSeconds.startTimer({ kind });
    const subject = await this.streams.subject(shard, kind);
    const ack = await this.publisher.publish(subject, payload, msgID, timeoutMs).finally(end);
    this.published.inc({ kind, outcome: ack.duplicate ? 'duplicate' : 'acked' }, count);
    return ack;
  }

  private inBackground(event: SettlementEvent, shard: number): void {
    const payload = JSON.stringify(event);
    const msgID = settlementMsgId(event);
    const task = (async () => {
      const until = this.opts.clock() + BACKGROUND_RETRY_MS;
      for (let wait = 100; this.opts.clock() < until; wait = Math.min(wait * 2, 5_000)) {
        try {
          await this.publish(event.kind, 1, shard, payload, msgID, 2_000);
          return;
        } catch {
          await sleep(wait);
        }
      }
      this.published.inc({ kind: event.kind, outcome: 'failed' });
      this.opts.logger.error(
        { reqId: event.request_id, kind: event.kind },
        'gave up publishing a settlement',
      );
    })();
    this.background.add(task);
    void task.finally(() => this.background.delete(task));
  }
}
