import { randomBytes } from 'node:crypto';
import { dropSchema, type Pool } from '@mdp/db';
import { connectNats, deleteStreamFamily, type NatsConnection } from '@mdp/nats';
import { createLogger, createRegistry, type Registry } from '@mdp/telemetry';
import { shardStreamName } from '@mdp/usage';
import { AckPolicy, DeliverPolicy, nanos } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../../../test/until.ts';
import { logUuid } from '../src/log/usage-log.ts';
import { Mutex } from '../src/mutex.ts';
import { ProjectionStore } from '../src/settlement/projections.ts';
import type { SettlementConsumer } from '../src/settlement/settlement-consumer.ts';
import { DATABASE_URL, ledgerPool } from './ledger-db.ts';
import { publishCharges, startTestConsumer } from './settlement-event.ts';

// How far a shard's own stream is recorded is written by the statement that records the batch (issue
// 50), so recording stays exactly-once whatever JetStream forgets: a consumer it has lost starts after
// that position instead of replaying the stream; messages it delivers again at or below it are
// acknowledged without being recorded again; and a stream made again starts afresh.

const NATS_URL = process.env.NATS_URL ?? 'nats://localhost:4222';
const logger = createLogger('test', 'silent');
let nc: NatsConnection;
let pool: Pool;
let store: ProjectionStore;
const schema = `ledger_sp_${randomBytes(5).toString('hex')}`;
const streams: string[] = [];

beforeAll(async () => {
  nc = await connectNats({ url: NATS_URL, name: 'stream-position-test', logger });
  pool = await ledgerPool(schema, 'stream-position-test');
  store = new ProjectionStore(pool);
});
afterAll(async () => {
  for (const s of streams) await deleteStreamFamily(nc, s).catch(() => {});
  await nc?.close();
  await pool?.end();
  await dropSchema(DATABASE_URL, schema).catch(() => {});
});

/** A fresh stream family; its shard 0's consumer records into the log for real and notes what it was handed. */
function family() {
  const tag = randomBytes(5).toString('hex');
  const stream = `USAGE_POS_${tag.toUpperCase()}`;
  const prefix = `usage_pos_${tag}`;
  streams.push(stream);
  const own = shardStreamName(stream, 0);
  const durable = `ledger-${prefix}-0-batch`;
  /** Request ids handed to the recorder, by consumer run. */
  const handed: string[][] = [];
  const start = (
    o: { mutex?: Mutex; registry?: Registry; adopt?: boolean } = {},
  ): Promise<SettlementConsumer> => {
    const run: string[] = [];
    handed.push(run);
    return startTestConsumer({
      ...o,
      nc,
      stream,
      prefix,
      apply: async (events, position) => {
        await store.record(events, position);
        for (const e of events) run.push(e.request_id);
      },
      positions: store,
    });
  };
  const publish = (ids: string[]) => publishCharges(nc, prefix, ids);
  const ackFloor = async () => {
    const jsm = await nc.jetstreamManager();
    return (await jsm.consumers.info(own, durable).catch(() => null))?.ack_floor.stream_seq ?? -1;
  };
  const position = async () => (await store.streamPosition(own))?.through ?? 0;
  /** A first consumer run that records `n` new events (the stream's first) and stops; their ids. */
  const recordFirst = async (n: number): Promise<string[]> => {
    const first = ids('first', n);
    const consumer = await start();
    await publish(first);
    await until(`the first ${n} recorded and acknowledged`, async () => (await ackFloor()) === n);
    await consumer.stop();
    return first;
  };
  /**
   * `n` new charges delivered while the recording they wait for is held (Postgres slow): their ids, and
   * what lets the recording go on.
   */
  const deliverHeld = async (mutex: Mutex, n: number) => {
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    void mutex.run(() => held);
    const inHand = ids('in-hand', n);
    await publish(inHand);
    await until(`the ${n} delivered`, async () => {
      const info = await (await jsm()).consumers.info(own, durable);
      return info.num_ack_pending === n;
    });
    return { inHand, release };
  };
  /** An operator replaces the consumer by hand: deleted, and one of its name added, from the stream's start. */
  const replaceByHand = async () => {
    const manager = await jsm();
    await manager.consumers.delete(own, durable);
    await manager.consumers.add(own, {
      durable_name: durable,
      filter_subject: (await manager.streams.info(own)).config.subjects[0],
      ack_policy: AckPolicy.All,
      deliver_policy: DeliverPolicy.All,
      ack_wait: nanos(5_000),
      max_ack_pending: 20_000,
    });
  };
  return {
    stream,
    own,
    durable,
    handed,
    start,
    publish,
    ackFloor,
    position,
    recordFirst,
    deliverHeld,
    replaceByHand,
  };
}

const ids = (label: string, n: number) =>
  Array.from({ length: n }, (_, i) => `${label}-${randomBytes(3).toString('hex')}-${i}`);

const jsm = () => nc.jetstreamManager();

/** How often the consumer has made its durable consumer again. */
async function madeAgain(registry: Registry, lost: 'consumer' | 'stream'): Promise<number> {
  const metric = registry.getSingleMetric('ledger_settlement_consumers_made_again_total');
  return (await metric?.get())?.values.find((v) => v.labels.lost === lost)?.value ?? -1;
}

/** Charges the log holds for these request ids. */
async function logged(requestIds: string[]): Promise<number> {
  const { rows } = await pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM usage_events WHERE request_id = ANY($1::uuid[])`,
    [requestIds.map(logUuid)],
  );
  return rows[0]!.n;
}

describe('the recorded stream position', () => {
  it('is written with each batch, and a consumer JetStream lost starts after it', async () => {
    const f = family();
    const first = await f.recordFirst(40);
    expect(await f.position()).toBe(40);

    // JetStream loses the consumer (a cluster's consumer state gone, an operator's mistake).
    await (await nc.jetstreamManager()).consumers.delete(f.own, f.durable);
    const later = ids('later', 5);
    await f.publish(later);
    const consumer = await f.start();
    await until('the later five recorded', async () => (await f.position()) === 45);
    await until('all acknowledged', async () => (await f.ackFloor()) === 45);
    // The new consumer started after the position: nothing of the first forty was handed over again.
    expect(f.handed[1]).toEqual(later);
    expect(await logged([...first, ...later])).toBe(45);
    await consumer.stop();
  });

  it('acknowledges what comes again at or below it without recording it again', async () => {
    const f = family();
    const first = await f.recordFirst(20);

    // The consumer is made again from the stream's start (its acknowledgements lost): JetStream delivers
    // the twenty again.
    await f.replaceByHand();
    const consumer = await f.start();
    const later = ids('later', 3);
    await f.publish(later);
    await until(
      'the later three recorded and everything acknowledged',
      async () => (await f.ackFloor()) === 23,
    );
    expect(f.handed[1]).toEqual(later);
    expect(await f.position()).toBe(23);
    expect(await logged([...first, ...later])).toBe(23);
    await consumer.stop();
  });

  it('starts afresh on a stream made again', async () => {
    const f = family();
    await f.recordFirst(10);
    const before = await store.streamPosition(f.own);

    await deleteStreamFamily(nc, f.stream);
    const consumer = await f.start();
    const fresh = ids('fresh', 3);
    await f.publish(fresh);
    // Sequences 1 to 3 of the new stream lie below the old position, and are recorded all the same.
    await until('the new stream recorded', async () => (await f.ackFloor()) === 3);
    expect(f.handed[1]).toEqual(fresh);
    const after = await store.streamPosition(f.own);
    expect(after?.through).toBe(3);
    expect(after?.created).not.toBe(before?.created);
    expect(await logged(fresh)).toBe(3);
    await consumer.stop();
  });

  it('is where a consumer JetStream loses while the ledger runs is made again, without a restart', async () => {
    const f = family();
    const registry = createRegistry('quota-ledger');
    const mutex = new Mutex();
    const consumer = await f.start({ mutex, registry });
    expect(await madeAgain(registry, 'consumer')).toBe(0);
    const first = ids('first', 10);
    await f.publish(first);
    await until('the first ten acknowledged', async () => (await f.ackFloor()) === 10);

    // A batch delivered and not recorded yet (Postgres slow) when JetStream loses the consumer.
    const { inHand, release } = await f.deliverHeld(mutex, 5);
    await (await jsm()).consumers.delete(f.own, f.durable);
    const later = ids('later', 3);
    await f.publish(later);
    release();

    await until('the consumer made again', async () => (await madeAgain(registry, 'consumer')) === 1);
    await until('everything recorded and acknowledged', async () => (await f.ackFloor()) === 18);
    expect(await f.position()).toBe(18);
    // Each event handed to the log once: the new consumer started after what the log had recorded.
    expect(f.handed[0]).toEqual([...first, ...inHand, ...later]);
    expect(await logged([...first, ...inHand, ...later])).toBe(18);

    // Its stream lost too: the ledger declares it again and reads the new one from its start.
    await deleteStreamFamily(nc, f.stream);
    await until('the stream made again', async () => (await f.ackFloor()) === 0);
    const fresh = ids('fresh', 4);
    await f.publish(fresh);
    await until('the new stream recorded', async () => (await f.ackFloor()) === 4);
    expect(await madeAgain(registry, 'consumer')).toBe(1);
    expect(await madeAgain(registry, 'stream')).toBe(1);
    expect(f.handed[0]).toEqual([...first, ...inHand, ...later, ...fresh]);
    expect(await logged(fresh)).toBe(4);
    await consumer.stop();
  });

  it('is where a consumer lost again and again under a steady stream of charges, even while being made again, is made again', async () => {
    const f = family();
    const registry = createRegistry('quota-ledger');
    const consumer = await f.start({ registry });
    const sent: string[] = [];
    let publishing = true;
    const publisher = (async () => {
      for (let i = 0; publishing; i++) {
        const next = ids(`steady-${i}`, 5);
        await f.publish(next);
        sent.push(...next);
      }
    })();
    // Five losses, each after the consumer made again has recorded something.
    for (let loss = 1; loss <= 5; loss++) {
      const before = sent.length;
      await until('charges sent since the last loss', () => sent.length >= before + 20);
      await (await jsm()).consumers.delete(f.own, f.durable).catch(() => {});
      await until(
        `made again after loss ${loss}`,
        async () => (await madeAgain(registry, 'consumer')) >= loss,
      );
    }
    // Then ten more 30 ms apart, most while the last one is being made again.
    for (let loss = 0; loss < 10; loss++) {
      await new Promise((r) => setTimeout(r, 30));
      await (await jsm()).consumers.delete(f.own, f.durable).catch(() => {});
    }
    await new Promise((r) => setTimeout(r, 200));
    publishing = false;
    await publisher;
    await until('everything recorded and acknowledged', async () => (await f.ackFloor()) === sent.length);
    // Each charge handed to the log once, in the order sent.
    expect(f.handed[0]).toEqual(sent);
    expect(await logged(sent)).toBe(sent.length);
    expect(await f.position()).toBe(sent.length);
    await consumer.stop();
  });

  it('is where a consumer deleted and made again by hand mid-batch (the stream kept) reads on, each charge recorded once', async () => {
    const f = family();
    const registry = createRegistry('quota-ledger');
    const mutex = new Mutex();
    const consumer = await f.start({ mutex, registry });
    const first = ids('first', 30);
    await f.publish(first);
    await until('the first thirty acknowledged', async () => (await f.ackFloor()) === 30);

    // A batch delivered and waiting on Postgres when an operator removes the consumer and adds one of
    // the same name reading from the stream's start.
    const { inHand, release } = await f.deliverHeld(mutex, 10);
    await f.replaceByHand();
    // The pull hears of the deletion within milliseconds; the batch is recorded after it.
    await new Promise((r) => setTimeout(r, 300));
    release();
    await until('the consumer taken up again', async () => (await madeAgain(registry, 'consumer')) === 1);

    // The new consumer delivers the stream from its start: what is recorded is acknowledged, not
    // recorded again, and what comes after is recorded and acknowledged as it comes.
    const later = ids('later', 5);
    await f.publish(later);
    await until('everything acknowledged on the new consumer', async () => (await f.ackFloor()) === 45);
    expect(f.handed[0]).toEqual([...first, ...inHand, ...later]);
    expect(await logged([...first, ...inHand, ...later])).toBe(45);
    await consumer.stop();
  });

  it('is where a retired shard’s lost consumer is made again; its stream, once deleted, stays gone', async () => {
    const f = family();
    await f.recordFirst(5);
    // Read as a ledger reads a retired shard it adopts: the stream only if it exists.
    const registry = createRegistry('quota-ledger');
    const consumer = await f.start({ adopt: true, registry });
    const more = ids('more', 3);
    await f.publish(more);
    await until('the three recorded', async () => (await f.ackFloor()) === 8);

    // Its consumer lost: made again after the position, as for a shard's own stream.
    await (await jsm()).consumers.delete(f.own, f.durable);
    await until('the consumer made again', async () => (await madeAgain(registry, 'consumer')) === 1);
    const after = ids('after', 2);
    await f.publish(after);
    await until('the two recorded', async () => (await f.ackFloor()) === 10);

    // Its stream deleted (the re-shard is over): it stays gone.
    await deleteStreamFamily(nc, f.stream);
    await new Promise((r) => setTimeout(r, 1_500));
    const names: string[] = [];
    for await (const name of (await jsm()).streams.names()) names.push(name);
    expect(names).not.toContain(f.own);
    expect(await madeAgain(registry, 'stream')).toBe(0);
    expect(f.handed[1]).toEqual([...more, ...after]);
    await consumer.stop();
  });

  it('is not trusted past the stream’s last message', async () => {
    const f = family();
    await f.recordFirst(2);
    // A position no batch of this stream could have left (as after the stream came back from a
    // snapshot older than the log): messages 3 on would all lie below it.
    const now = await store.streamPosition(f.own);
    await store.record([], { stream: f.own, created: now!.created, through: 1_000 });
    expect(await f.position()).toBe(1_000);

    const consumer = await f.start();
    const later = ids('later', 3);
    await f.publish(later);
    await until('the later three recorded', async () => (await logged(later)) === 3);
    expect(f.handed[1]).toEqual(later);
    // The position is the stream's again, not kept at the one that was not.
    await until('the position back at the stream', async () => (await f.position()) === 5);
    await consumer.stop();
  });
});
