import { randomBytes } from 'node:crypto';
import { connectNats, type NatsConnection } from '@mdp/nats';
import { createLogger, createRegistry } from '@mdp/telemetry';
import { type SettlementEvent, settlementMsgId, settlementSubject } from '@mdp/usage';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Mutex } from '../src/mutex.ts';
import { consumersCaughtUp, startSettlementConsumer } from '../src/settlement/settlement-consumer.ts';

// The seal check asks whether every shard has recorded what the stream holds, a shard retired by a
// smaller shard count included: its subject may still hold late events of the day being sealed.

const NATS_URL = process.env.NATS_URL ?? 'nats://localhost:4222';
const tag = randomBytes(5).toString('hex');
const stream = `USAGE_CAUGHT_${tag.toUpperCase()}`;
const prefix = `usage_caught_${tag}`;
const logger = createLogger('test', 'silent');
let nc: NatsConnection;

const start = (shard: number) =>
  startSettlementConsumer({
    nc,
    spec: { stream, subjectPrefix: prefix, shard, retentionDays: 1 },
    mutex: new Mutex(),
    apply: async () => {},
    logger,
    registry: createRegistry('quota-ledger'),
  });

const publish = async (shard: number, id: string) => {
  const e: SettlementEvent = {
    v: 1,
    request_id: id,
    account_id: '3f2b8c1e-5d4a-4e6f-9a7b-0c1d2e3f4a5b',
    kind: 'charged',
    admitted_at_ms: Date.now(),
    settled_at_ms: Date.now(),
    route: 'getStockQuote',
    status: 200,
  };
  await nc.jetstream().publish(settlementSubject(prefix, shard, 'charged'), JSON.stringify(e), {
    msgID: settlementMsgId(e),
  });
};

beforeAll(async () => {
  nc = await connectNats({ url: NATS_URL, name: 'consumers-caught-up-test', logger });
});
afterAll(async () => {
  await (await nc.jetstreamManager()).streams.delete(stream).catch(() => {});
  await nc?.close();
});

it('counts a retired shard whose subject still holds events, and every shard of the count', async () => {
  const [zero, one] = [await start(0), await start(1)];
  // Shard 2 of an earlier count of 3: its durable consumer stays after it stops.
  await (await start(2)).stop();
  await publish(0, 'a');
  await publish(2, 'late');
  await zero.idle();
  await new Promise((r) => setTimeout(r, 300));
  await zero.idle();
  expect(await consumersCaughtUp(nc, stream, prefix, 2)).toBe(false);
  // Shard 2 back (its owner drains it): everything recorded.
  const two = await start(2);
  for (let i = 0; i < 50 && !(await consumersCaughtUp(nc, stream, prefix, 2)); i++)
    await new Promise((r) => setTimeout(r, 100));
  expect(await consumersCaughtUp(nc, stream, prefix, 2)).toBe(true);
  // A count of 4 has a shard with no consumer yet: it has consumed nothing.
  expect(await consumersCaughtUp(nc, stream, prefix, 4)).toBe(false);
  await Promise.all([zero.stop(), one.stop(), two.stop()]);
}, 30_000);
