import { ensureStream, type NatsConnection } from '@mdp/nats';
import { Counter, Gauge, Histogram, injectTraceContext, type Logger, type Registry } from '@mdp/telemetry';
import {
  type SettlementEvent,
  type SettlementKind,
  settlementMsgId,
  settlementSubject,
  usageStreamSpec,
} from '@mdp/usage';
import { headers, type JetStreamClient } from 'nats';
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

/**
 * Settlement at the gateway: exactly one event per admitted request, with the request id as the
 * JetStream message id so that a retried publish is stored once. A charge is awaited (the 200 waits for
 * the ack); refunds go in the background. A charge that cannot be confirmed is followed by a `voided`
 * event, so a charge that did land after all is reversed: the client got a 503, not a 200.
 */
export class Settler {
  private readonly js: JetStreamClient;
  private readonly background = new Set<Promise<void>>();
  private readonly published: Counter<'kind' | 'outcome'>;
  private readonly publishSeconds: Histogram<'kind'>;
  private settledListener: (a: Admission) => void = () => {};
  /** False while the NATS connection is down: nothing can be charged, so nothing should be admitted. */
  private connected = true;
  /** Charges waiting for an ack, failed at once when the connection drops rather than at their timeout. */
  private readonly awaitingAck = new Set<(err: Error) => void>();

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
    for (const fail of this.awaitingAck) fail(lost);
    this.awaitingAck.clear();
  }

  connectionRestored(): void {
    this.connected = true;
  }

  /** Called once an admission's settlement (charge, refund or void) is acknowledged by JetStream. */
  onSettled(listener: (a: Admission) => void): void {
    this.settledListener = listener;
  }

  private event(a: Admission, kind: SettlementKind, route: string, status: number): SettlementEvent {
    return {
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
  }

  private async publish(event: SettlementEvent, shard: number, timeoutMs: number): Promise<void> {
    const h = headers();
    const carrier: Record<string, string> = {};
    injectTraceContext(carrier);
    for (const [k, v] of Object.entries(carrier)) h.set(k, v);
    const end = this.publishSeconds.startTimer({ kind: event.kind });
    const ack = await this.js
      .publish(settlementSubject(this.opts.subjectPrefix, shard, event.kind), JSON.stringify(event), {
        msgID: settlementMsgId(event),
        timeout: timeoutMs,
        headers: h,
      })
      .finally(end);
    this.published.inc({ kind: event.kind, outcome: ack.duplicate ? 'duplicate' : 'acked' });
  }

  /**
   * Charges a 200; resolves true once JetStream has it. False: answer 503 (a void has been queued). A
   * dropped connection fails the charge at once: the publish may still land when NATS returns, and the
   * void that follows it reverses it.
   */
  async charge(a: Admission, route: string): Promise<boolean> {
    const event = this.event(a, 'charged', route, 200);
    const deadline = Date.now() + this.opts.ackTimeoutMs;
    let fail: (err: Error) => void = () => {};
    const dropped = new Promise<never>((_, reject) => {
      fail = reject;
    });
    dropped.catch(() => {});
    this.awaitingAck.add(fail);
    try {
      for (;;) {
        try {
          if (!this.connected) throw new Error('NATS connection lost');
          await Promise.race([this.publish(event, a.shard, Math.max(100, deadline - Date.now())), dropped]);
          this.settledListener(a);
          return true;
        } catch (err) {
          if (!this.connected || Date.now() + 50 >= deadline) {
            this.published.inc({ kind: 'charged', outcome: 'failed' });
            this.opts.logger.warn(
              { err: (err as Error).message, reqId: a.requestId },
              'charge not acknowledged; voiding',
            );
            this.inBackground({ ...event, kind: 'voided', settled_at_ms: Date.now() }, a);
            return false;
          }
          await new Promise((r) => setTimeout(r, 50));
        }
      }
    } finally {
      this.awaitingAck.delete(fail);
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
          await this.publish(event, a.shard, 2_000);
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
