import { randomBytes } from 'node:crypto';
import { connectNats, deleteStreamFamily, ensureStream, type NatsConnection } from '@mdp/nats';
import { createLogger } from '@mdp/telemetry';
import { LEGACY_STREAM, settlementMsgId, settlementSubject } from '@mdp/usage';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { consumersCaughtUp } from '../src/settlement/settlement-consumer.ts';
import { settlementEvent, startTestConsumer } from './settlement-event.ts';

// The seal check asks whether every shard has recorded what the streams hold, a shard retired by a
// smaller shard count included: its stream may still hold late events of the day being sealed. Each
// shard has a stream of its own; the legacy stream of every shard, where it exists, is read and
// checked too.

const NATS_URL = process.env.NATS_URL ?? 'nats://localhost:4222';
const tag = randomBytes(5).toString('hex');
const stream = `USAGE_CAUGHT_${tag.toUpperCase()}`;
const prefix = `usage_caught_${tag}`;
const logger = createLogger('test', 'silent');
let nc: NatsConnection;
/** Request ids every consumer of the file has recorded. */
const recorded: string[] = [];

const start = (shard: number) =>
  startTestConsumer({
    nc,
    stream,
    prefix,
    shard,
    apply: async (events) => {
      for (const e of events) recorded.push(e.request_id);
    },
  });

const publish = async (shard: number, id: string, legacy = false) => {
  const e = settlementEvent(id);
  const subject = legacy
    ? LEGACY_STREAM.subject(prefix, shard, 'charged')
    : settlementSubject(prefix, shard, 'charged');
  await nc.jetstream().publish(subject, JSON.stringify(e), {
    msgID: settlementMsgId(e),
  });
};

beforeAll(async () => {
  nc = await connectNats({ url: NATS_URL, name: 'consumers-caught-up-test', logger });
});
afterAll(async () => {
  await deleteStreamFamily(nc, stream).catch(() => {});
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
  expect(recorded).toEqual(expect.arrayContaining(['a', 'late']));

  // The legacy stream of every shard (an older gateway made it and published a charge of shard 1 there):
  // not caught up until the shards read it too.
  await ensureStream(nc, LEGACY_STREAM.spec(stream, prefix, 1));
  await publish(1, 'old', true);
  expect(await consumersCaughtUp(nc, stream, prefix, 2)).toBe(false);
  await Promise.all([zero, one, two].map((c) => c.lookForLegacy()));
  for (let i = 0; i < 50 && !(await consumersCaughtUp(nc, stream, prefix, 2)); i++)
    await new Promise((r) => setTimeout(r, 100));
  expect(await consumersCaughtUp(nc, stream, prefix, 2)).toBe(true);
  expect(recorded.filter((id) => id === 'old')).toEqual(['old']);
  await Promise.all([zero.stop(), one.stop(), two.stop()]);
}, 30_000);
