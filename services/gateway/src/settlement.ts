import { randomUUID } from 'node:crypto';
import { ensureStream, type NatsConnection } from '@mdp/nats';
import { Counter, Gauge, Histogram, type Logger, type Registry } from '@mdp/telemetry';
import {
  MAX_BATCH_EVENTS,
  type SettlementEvent,
  type SettlementKind,
  settlementMsgId,
  settlementSubject,
  usageStreamSpec,
} from '@mdp/usage';
import type { JetStreamClient } from 'nats';
import type { Admission } from './admission.ts';

export interface SettlerOptions {
  nc: NatsConnection;
  stream: string;
  subjectPrefix: string;
  retentionDays?: number;
  replicas?: number;
  /** How long a 200 may wait for JetStream to acknowledge its charge. */
  ackTimeoutMs: number;
  logger: Logger;
  registry: Registry;
}

/** How long refunds and voids keep being retried in the background (holds expire long before). */
const BACKGROUND_RETRY_MS = 10 * 60_000;

interface QueuedCharge {
  event: SettlementEvent;
  /** When the client's 200 stops waiting for the acknowledgement. */
  deadline: number;
  done(err?: Error): void;
}

/**
 * Settlement at the gateway: exactly one event per admitted request, each keyed by its request id. A
 * charge is awaited (the 200 waits for the ack); the charges of one event-loop turn for one shard travel
 * as one JetStream message (a batch, message id `batch:<uuid>`; a lone charge is sent as itself with
 * the request id as message id), so that a publish, an ack and a delivery are paid per batch, not per
 * request; a retried publish is stored once either way. Refunds go in the background. A charge that
 * cannot be confirmed is followed by a `voided` event, so a charge that did land after all is reversed:
 * the client got a 503, not a 200.
 */
export class Settler {
  private readonly js: JetStreamClient;
  private readonly background = new Set<Promise<void>>();
  private readonly published: Counter<'kind' | 'outcome'>;
  private readonly publishSeconds: Histogram<'kind'>;
  private settledListener: (a: Admission) => void = () => {};
  /** False while the NATS connection is down: nothing can be charged, so nothing should be admitted. */
  private connected = true;
  /** Charges of the current turn, by shard, published together when the turn ends. */
  private readonly queued = new Map<number, QueuedCharge[]>();
  /** Batches published and not acknowledged yet: failed at once when the connection drops, not at their timeout. */
  private readonly unacked = new Set<QueuedCharge[]>();
  private flushScheduled = false;
  private readonly batchSize: Histogram;

  private constructor(private readonly opts: SettlerOptions) {
    this.js = opts.nc.jetstream();
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

  static async create(opts: SettlerOptions): Promise<Settler> {
    await ensureStream(
      opts.nc,
      usageStreamSpec(opts.stream, opts.subjectPrefix, opts.retentionDays, opts.replicas),
    );
    return new Settler(opts);
  }

  get available(): boolean {
    return this.connected;
  }

  connectionLost(): void {
    this.connected = false;
    const lost = new Error('NATS connection lost');
    for (const charges of [...this.queued.values(), ...this.unacked]) for (const c of charges) c.done(lost);
    this.unacked.clear();
  }

  connectionRestored(): void {
    this.connected = true;
  }

  /** Called once an admission's settlement (charge, refund or void) is acknowledged by JetStream. */
  onSettled(listener: (a: Admission) => void): void {
    this.settledListener = listener;
  }

  private event(a: Admission, kind: SettlementKind, route: string, status: number): SettlementEvent {
    // A literal of one shape (no conditional spread): this runs for every request.
    const event: SettlementEvent = {
      v: 1,
      request_id: a.requestId,
      account_id: a.accountId,
      kind,
      admitted_at_ms: a.admittedAtMs,
      settled_at_ms: Date.now(),
      route,
      status,
      interface: a.via,
    };
    if (a.traceparent) event.traceparent = a.traceparent;
    return event;
  }

  /** One message of `events` (all of one kind and shard), acknowledged by JetStream or thrown. */
  private async publish(
    events: SettlementEvent[],
    shard: number,
    timeoutMs: number,
    batchId?: string,
  ): Promise<void> {
    const kind = events[0]!.kind;
    const single = events.length === 1;
    const end = this.publishSeconds.startTimer({ kind });
    const ack = await this.js
      .publish(
        settlementSubject(this.opts.subjectPrefix, shard, kind),
        JSON.stringify(single ? events[0] : { v: 1, events }),
        {
          msgID: single ? settlementMsgId(events[0]!) : `batch:${batchId ?? randomUUID()}`,
          timeout: timeoutMs,
        },
      )
      .finally(end);
    this.published.inc({ kind, outcome: ack.duplicate ? 'duplicate' : 'acked' }, events.length);
  }

  /** Queues a charge for this turn's message to its shard; resolves when JetStream acknowledged it. */
  private enqueue(event: SettlementEvent, shard: number, deadline: number): Promise<void> {
    return new Promise((resolve, reject) => {
      let queue = this.queued.get(shard);
      if (!queue) {
        queue = [];
        this.queued.set(shard, queue);
      }
      queue.push({ event, deadline, done: (err) => (err ? reject(err) : resolve()) });
      if (this.flushScheduled) return;
      this.flushScheduled = true;
      setImmediate(() => this.flush());
    });
  }

  private flush(): void {
    this.flushScheduled = false;
    for (const [shard, queue] of this.queued) {
      this.queued.delete(shard);
      for (let i = 0; i < queue.length; i += MAX_BATCH_EVENTS)
        void this.publishBatch(shard, queue.slice(i, i + MAX_BATCH_EVENTS));
    }
  }

  /** Publishes one batch, retrying (the same message) until the earliest deadline among its charges. */
  private async publishBatch(shard: number, charges: QueuedCharge[]): Promise<void> {
    this.batchSize.observe(charges.length);
    const deadline = Math.min(...charges.map((c) => c.deadline));
    // One message id for every retry of this batch, so JetStream stores it once.
    const events = charges.map((c) => c.event);
    const batchId = randomUUID();
    this.unacked.add(charges);
    for (;;) {
      try {
        if (!this.connected) throw new Error('NATS connection lost');
        await this.publish(events, shard, Math.max(100, deadline - Date.now()), batchId);
        // (A charge the dropped connection failed already stays failed: settling a promise twice does nothing.)
        for (const c of charges) c.done();
        this.unacked.delete(charges);
        return;
      } catch (err) {
        if (!this.connected || Date.now() + 50 >= deadline) {
          for (const c of charges) c.done(err as Error);
          this.unacked.delete(charges);
          return;
        }
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  }

  /**
   * Charges a 200; resolves true once JetStream has it. False: answer 503 (a void has been queued). A
   * dropped connection fails the charge at once: the publish may still land when NATS returns, and the
   * void that follows it reverses it.
   */
  async charge(a: Admission, route: string): Promise<boolean> {
    const event = this.event(a, 'charged', route, 200);
    try {
      if (!this.connected) throw new Error('NATS connection lost');
      await this.enqueue(event, a.shard, Date.now() + this.opts.ackTimeoutMs);
      this.settledListener(a);
      return true;
    } catch (err) {
      this.published.inc({ kind: 'charged', outcome: 'failed' });
      this.opts.logger.warn(
        { err: (err as Error).message, reqId: a.requestId },
        'charge not acknowledged; voiding',
      );
      this.inBackground({ ...event, kind: 'voided', settled_at_ms: Date.now() }, a);
      return false;
    }
  }

  /** Refunds a request that did not end in a 200. Never delays the response. */
  refund(a: Admission, route: string, status: number): void {
    this.inBackground(this.event(a, 'refunded', route, status), a);
  }

  private inBackground(event: SettlementEvent, a: Admission): void {
    const task = (async () => {
      const until = Date.now() + BACKGROUND_RETRY_MS;
      for (let wait = 100; Date.now() < until; wait = Math.min(wait * 2, 5_000)) {
        try {
          await this.publish([event], a.shard, 2_000);
          this.settledListener(a);
          return;
        } catch {
          await new Promise((r) => setTimeout(r, wait));
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

  /** Waits (up to `ms`) for background settlements, e.g. before shutting down. */
  async drain(ms: number): Promise<void> {
    await Promise.race([Promise.all(this.background), new Promise((r) => setTimeout(r, ms))]);
  }
}
