import { randomBytes } from 'node:crypto';
import { connectNats, deleteStreamFamily, type NatsConnection } from '@mdp/nats';
import { createLogger, createRegistry, type Registry } from '@mdp/telemetry';
import { settlementMsgId, settlementSubject } from '@mdp/usage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Mutex } from '../src/mutex.ts';
import type { SettlementConsumer } from '../src/settlement/settlement-consumer.ts';
import { settlementEvent, startTestConsumer } from './settlement-event.ts';

// A shard whose recording waits longer than the consumer's ack_wait (5 s): a Postgres that stalls, or a
// starved machine. The messages it holds are marked in progress meanwhile, so JetStream does not deliver
// them again: each event reaches the recorder once.

const NATS_URL = process.env.NATS_URL ?? 'nats://localhost:4222';
const tag = randomBytes(5).toString('hex');
const stream = `USAGE_SLOW_${tag.toUpperCase()}`;
const prefix = `usage_slow_${tag}`;
const logger = createLogger('test', 'silent');
/** Longer than ack_wait by more than a redelivery takes. */
const STALL_MS = 8_000;

let nc: NatsConnection;
let consumer: SettlementConsumer;
let registry: Registry;
const mutex = new Mutex();
/** Request ids in the order the recorder was handed them. */
const applied: string[] = [];

const event = (request_id: string) => settlementEvent(request_id, 'refunded');

beforeAll(async () => {
  nc = await connectNats({ url: NATS_URL, name: 'settlement-slow-record-test', logger });
  registry = createRegistry('quota-ledger');
  consumer = await startTestConsumer({
    nc,
    stream,
    prefix,
    mutex,
    apply: async (events) => {
      for (const e of events) applied.push(e.request_id);
    },
    registry,
  });
});
afterAll(async () => {
  await consumer?.stop();
  await deleteStreamFamily(nc, stream).catch(() => {});
  await nc?.close();
});

describe('settlement consumer behind a stalled recorder', () => {
  it('holds its messages past ack_wait without JetStream delivering them again', async () => {
    let release!: () => void;
    // The recorder's mutex is taken (as by a projection load on a database that stopped answering).
    void mutex.run(() => new Promise<void>((r) => (release = r)));
    const ids = [`slow-${tag}-1`, `slow-${tag}-2`];
    const before = consumer.recordedThrough();
    const published: number[] = [];
    for (const id of ids) {
      const e = event(id);
      await nc
        .jetstream()
        .publish(settlementSubject(prefix, 0, 'refunded'), JSON.stringify(e), { msgID: settlementMsgId(e) });
      published.push(Date.now());
    }
    await new Promise((r) => setTimeout(r, STALL_MS));
    // Nothing recorded yet: the horizon that hold expiry follows has not moved, however long it waits.
    expect(consumer.recordedThrough()).toBe(before);
    expect(consumer.idleNow()).toBe(false);
    release();
    await consumer.idle();
    // Recorded through the second message's publish time (JetStream's clock: allow it a little skew).
    expect(consumer.recordedThrough()).toBeGreaterThan(published[0]! - 1_000);
    expect(consumer.recordedThrough()).toBeLessThanOrEqual(published[1]! + 1_000);
    // Anything delivered again would be recorded again after the first batch.
    await new Promise((r) => setTimeout(r, 500));
    await consumer.idle();
    expect(applied).toEqual(ids);
    const redeliveries = (await registry.getSingleMetric('ledger_settlement_redeliveries_total')?.get())
      ?.values[0]?.value;
    expect(redeliveries).toBe(0);
    expect(await consumer.lag()).toEqual({ pending: 0, ackPending: 0 });
  }, 30_000);
});
