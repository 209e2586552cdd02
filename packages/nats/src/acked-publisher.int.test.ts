import { randomBytes } from 'node:crypto';
import { createLogger } from '@mdp/telemetry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AckedPublisher } from './acked-publisher.ts';
import { connectNats, type NatsConnection } from './index.ts';
import { ensureStream } from './jetstream.ts';

// The publisher against the real NATS JetStream: what the gateway's charges rely on (an acknowledgement
// that names the stored message, a duplicate recognised by its id, every failure an error in time).

const NATS_URL = process.env.NATS_URL ?? 'nats://localhost:4222';
const tag = randomBytes(5).toString('hex');
const stream = `ACKED_${tag.toUpperCase()}`;
const small = `ACKED_SMALL_${tag.toUpperCase()}`;
const logger = createLogger('test', 'silent');
let nc: NatsConnection;
let publisher: AckedPublisher;

beforeAll(async () => {
  nc = await connectNats({ url: NATS_URL, name: 'acked-publisher-test', logger });
  await ensureStream(nc, {
    name: stream,
    subjects: [`acked_${tag}.>`],
    maxAgeMs: 60_000,
    duplicateWindowMs: 60_000,
  });
  const jsm = await nc.jetstreamManager();
  await jsm.streams.add({ name: small, subjects: [`acked_small_${tag}.>`], max_msg_size: 64 });
  publisher = new AckedPublisher(nc);
});
afterAll(async () => {
  publisher?.close();
  const jsm = await nc.jetstreamManager();
  for (const name of [stream, small]) await jsm.streams.delete(name).catch(() => {});
  await nc?.close();
});

describe('AckedPublisher', () => {
  it('resolves with the stored sequence, and a repeated message id as a duplicate of it', async () => {
    const first = await publisher.publish(`acked_${tag}.a`, '{"n":1}', `id-${tag}-1`, 2_000);
    expect(first).toEqual({ stream, seq: expect.any(Number), duplicate: false });
    const again = await publisher.publish(`acked_${tag}.a`, '{"n":1}', `id-${tag}-1`, 2_000);
    expect(again).toEqual({ stream, seq: first.seq, duplicate: true });
    const other = await publisher.publish(`acked_${tag}.b`, '{"n":2}', `id-${tag}-2`, 2_000);
    expect(other.seq).toBe(first.seq + 1);
    const info = await (await nc.jetstreamManager()).streams.info(stream);
    expect(info.state.messages).toBe(2);
  });

  it('answers many publishes at once, each with its own acknowledgement', async () => {
    const acks = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        publisher.publish(`acked_${tag}.many`, `{"i":${i}}`, `many-${tag}-${i}`, 5_000),
      ),
    );
    const seqs = new Set(acks.map((a) => a.seq));
    expect(seqs.size).toBe(200);
    expect(acks.every((a) => !a.duplicate && a.stream === stream)).toBe(true);
  });

  it('rejects at once when no stream takes the subject', async () => {
    const started = Date.now();
    await expect(publisher.publish(`acked_nowhere_${tag}.x`, '{}', `none-${tag}`, 5_000)).rejects.toThrow(
      'no stream takes the subject',
    );
    expect(Date.now() - started).toBeLessThan(4_000);
  });

  it("rejects with the stream's own reason when it refuses the message", async () => {
    await expect(
      publisher.publish(
        `acked_small_${tag}.x`,
        JSON.stringify({ padding: 'x'.repeat(200) }),
        `big-${tag}`,
        2_000,
      ),
    ).rejects.toThrow(/size/i);
  });

  it('rejects after its timeout when something other than a stream takes the subject and never answers', async () => {
    const silent = nc.subscribe(`acked_silent_${tag}`);
    try {
      await expect(publisher.publish(`acked_silent_${tag}`, '{}', `silent-${tag}`, 200)).rejects.toThrow(
        'timed out',
      );
    } finally {
      silent.unsubscribe();
    }
  });

  it('fails every publish still waiting when told the connection is gone', async () => {
    const silent = nc.subscribe(`acked_silent2_${tag}`);
    try {
      const waiting = publisher.publish(`acked_silent2_${tag}`, '{}', `gone-${tag}`, 10_000);
      publisher.failAll('NATS connection lost');
      await expect(waiting).rejects.toThrow('NATS connection lost');
    } finally {
      silent.unsubscribe();
    }
  });
});
