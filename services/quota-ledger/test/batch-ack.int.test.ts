import { randomBytes } from 'node:crypto';
import { connectNats, deleteStreamFamily, ensureStream, type NatsConnection } from '@mdp/nats';
import { createLogger } from '@mdp/telemetry';
import { shardStreamName, shardStreamSpec } from '@mdp/usage';
import { AckPolicy, DeliverPolicy, nanos } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../../../test/until.ts';
import { publishCharges, startTestConsumer } from './settlement-event.ts';

// A shard's own stream holds only its events, so its consumer acknowledges a recorded batch once
// (AckAll), and never past a delivery it has not recorded itself: a killed predecessor's messages are
// acknowledged only once they come back and are recorded here.

const NATS_URL = process.env.NATS_URL ?? 'nats://localhost:4222';
const logger = createLogger('test', 'silent');
let nc: NatsConnection;
const streams: string[] = [];

beforeAll(async () => {
  nc = await connectNats({ url: NATS_URL, name: 'batch-ack-test', logger });
});
afterAll(async () => {
  for (const s of streams) await deleteStreamFamily(nc, s).catch(() => {});
  await nc?.close();
});

/** A fresh stream family for one test, its shard 0's own stream made, and what its consumers recorded. */
async function family() {
  const tag = randomBytes(5).toString('hex');
  const stream = `USAGE_BATCH_${tag.toUpperCase()}`;
  const prefix = `usage_batch_${tag}`;
  streams.push(stream);
  await ensureStream(nc, shardStreamSpec(stream, prefix, 0, 1));
  const recorded: string[] = [];
  const start = (gatherMs?: number) =>
    startTestConsumer({
      nc,
      stream,
      prefix,
      apply: async (events) => {
        for (const e of events) recorded.push(e.request_id);
      },
      ...(gatherMs === undefined ? {} : { gatherMs }),
    });
  const publish = (ids: string[]) => publishCharges(nc, prefix, ids);
  const own = shardStreamName(stream, 0);
  const info = (durable: string) =>
    nc
      .jetstreamManager()
      .then((jsm) => jsm.consumers.info(own, durable))
      .catch(() => null);
  return { stream, prefix, own, recorded, start, publish, info };
}

const ids = (label: string, n: number) => Array.from({ length: n }, (_, i) => `${label}-${i}`);

describe('the consumer of a shard’s own stream', () => {
  it('acknowledges a recorded batch with one acknowledgement', async () => {
    const f = await family();
    await f.publish(ids('a', 300));
    // Every acknowledgement its consumer sends, as NATS carries it.
    const acks = nc.subscribe(`$JS.ACK.${f.own}.>`);
    let ackCount = 0;
    void (async () => {
      for await (const _ of acks) ackCount++;
    })();
    const consumer = await f.start();
    const durable = `ledger-${f.prefix}-0-batch`;
    await until('every event recorded and acknowledged', async () => {
      const i = await f.info(durable);
      return f.recorded.length >= 300 && i?.ack_floor.stream_seq === 300 && i.num_ack_pending === 0;
    });
    await nc.flush();
    expect(new Set(f.recorded).size).toBe(300);
    expect((await f.info(durable))?.config.ack_policy).toBe(AckPolicy.All);
    // 300 messages in a few batches, an acknowledgement each (an explicit consumer sends 300).
    expect(ackCount).toBeGreaterThan(0);
    expect(ackCount).toBeLessThanOrEqual(10);
    acks.unsubscribe();
    await consumer.stop();
  });

  it('never acknowledges a predecessor’s deliveries it has not recorded', async () => {
    const f = await family();
    const durable = `ledger-${f.prefix}-0-batch`;
    const jsm = await nc.jetstreamManager();
    await jsm.consumers.add(f.own, {
      durable_name: durable,
      ack_policy: AckPolicy.All,
      deliver_policy: DeliverPolicy.All,
      ack_wait: nanos(5_000),
      max_ack_pending: 20_000,
    });
    await f.publish(ids('lost', 3));
    // A predecessor fetched the first three and was killed before recording them.
    const predecessor = await nc.jetstream().consumers.get(f.own, durable);
    const fetched = await predecessor.fetch({ max_messages: 3, expires: 2_000 });
    let taken = 0;
    for await (const _ of fetched) if (++taken === 3) break;
    expect(taken).toBe(3);

    const consumer = await f.start();
    await f.publish(ids('later', 20));
    await until(
      'the later events recorded',
      () => f.recorded.filter((id) => id.startsWith('later')).length === 20,
    );
    // Recorded here, but above the predecessor's three: nothing is acknowledged past them, and a usage
    // read waiting for the newest charge waits for them too.
    expect((await f.info(durable))?.ack_floor.stream_seq).toBe(0);
    await expect(consumer.recordedTo([{ stream: f.own, seq: 23 }], 100)).rejects.toThrow(/not recorded/);
    // They come back after the ack wait, are recorded, and everything is acknowledged.
    await until(
      'the predecessor’s events recorded and all acknowledged',
      async () =>
        ids('lost', 3).every((id) => f.recorded.includes(id)) &&
        (await f.info(durable))?.ack_floor.stream_seq === 23,
    );
    await consumer.recordedTo([{ stream: f.own, seq: 23 }], 1_000);
    await consumer.stop();
  });

  it('takes over from an explicit consumer after its ack floor, and removes it', async () => {
    const f = await family();
    const explicit = `ledger-${f.prefix}-0`;
    const jsm = await nc.jetstreamManager();
    await jsm.consumers.add(f.own, {
      durable_name: explicit,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      ack_wait: nanos(5_000),
    });
    await f.publish(ids('done', 5));
    await f.publish(ids('open', 5));
    // A ledger of before recorded and acknowledged the first five; the next five were delivered to it
    // and not acknowledged when it stopped.
    const old = await nc.jetstream().consumers.get(f.own, explicit);
    const fetched = await old.fetch({ max_messages: 10, expires: 2_000 });
    let n = 0;
    for await (const m of fetched) {
      if (n < 5) m.ack();
      if (++n === 10) break;
    }
    await nc.flush();
    await until(
      'the explicit consumer to have five acknowledged',
      async () => (await f.info(explicit))?.ack_floor.stream_seq === 5,
    );

    const consumer = await f.start();
    await f.publish(ids('new', 5));
    await until('the open and new events recorded', () =>
      [...ids('open', 5), ...ids('new', 5)].every((id) => f.recorded.includes(id)),
    );
    expect(f.recorded.filter((id) => id.startsWith('done'))).toEqual([]);
    expect(await f.info(explicit)).toBeNull();
    await until(
      'all acknowledged',
      async () => (await f.info(`ledger-${f.prefix}-0-batch`))?.ack_floor.stream_seq === 15,
    );
    await consumer.stop();
  });

  it('records at once what a reader waits for, instead of gathering on', async () => {
    const f = await family();
    // A batch that would gather for a minute: only the readers below end it early.
    const consumer = await f.start(60_000);
    await f.publish(ids('read', 7));
    await until('the events delivered and gathering', async () => {
      const i = await f.info(`ledger-${f.prefix}-0-batch`);
      return i?.num_pending === 0 && i.num_ack_pending === 7;
    });
    expect(f.recorded).toEqual([]);
    // A usage read of a leased account waits so (shard.ts), with its own deadline.
    await consumer.recordedPast(20_000);
    expect(f.recorded.sort()).toEqual(ids('read', 7).sort());

    await f.publish(ids('idle', 3));
    await until('the next events delivered', async () => {
      const i = await f.info(`ledger-${f.prefix}-0-batch`);
      return i?.num_pending === 0 && i.num_ack_pending === 3;
    });
    // Catch-up waits so (again, should the client not have passed the delivery on yet).
    await until('idle() to find the next events recorded', async () => {
      await consumer.idle();
      return ids('idle', 3).every((id) => f.recorded.includes(id));
    });
    await consumer.stop();
  });

  it('ends a gathering once a batch’s worth of messages has come, with no reader', async () => {
    const f = await family();
    const consumer = await f.start(60_000);
    // 500 messages (one event each) are one statement's batch: recorded without waiting out the minute.
    await f.publish(ids('full', 500));
    await until('the full batch recorded', () => f.recorded.length === 500);
    expect(new Set(f.recorded)).toEqual(new Set(ids('full', 500)));
    // One more gathers again: nothing recorded until a reader (or the minute) ends it.
    await f.publish(ids('one', 1));
    await until('the next message delivered', async () => {
      const i = await f.info(`ledger-${f.prefix}-0-batch`);
      return i?.num_pending === 0 && i.num_ack_pending === 1;
    });
    expect(f.recorded).not.toContain('one-0');
    await consumer.recordedPast(20_000);
    expect(f.recorded).toContain('one-0');
    // A reader that names the charge it waits for (the lease holder's usage read) ends one too.
    await f.publish(ids('two', 1));
    await consumer.recordedTo([{ stream: f.own, seq: 502 }], 20_000);
    expect(f.recorded).toContain('two-0');
    // One on a stream this consumer does not read waits for everything, as `recordedPast`.
    await f.publish(ids('three', 1));
    await until('the third delivered', async () => {
      const i = await f.info(`ledger-${f.prefix}-0-batch`);
      return i?.num_pending === 0 && i.num_ack_pending === 1;
    });
    await consumer.recordedTo([{ stream: `${f.own}_ELSEWHERE`, seq: 1 }], 20_000);
    expect(f.recorded).toContain('three-0');
    await consumer.stop();
  });
});
