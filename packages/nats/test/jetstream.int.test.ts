import { randomBytes } from 'node:crypto';
import { createLogger } from '@mdp/telemetry';
import { nanos } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectNats, type NatsConnection } from '../src/index.ts';
import { ensureStream } from '../src/jetstream.ts';

// Against the real NATS JetStream server (a single node here), on a stream of this test's own.
const NATS_URL = process.env.NATS_URL ?? 'nats://localhost:4222';
const name = `T_${randomBytes(4).toString('hex').toUpperCase()}`;
let nc: NatsConnection;

beforeAll(async () => {
  nc = await connectNats({ url: NATS_URL, name: 'jetstream-test', logger: createLogger('t', 'silent') });
});
afterAll(async () => {
  await (await nc.jetstreamManager()).streams.delete(name).catch(() => {});
  await nc.close();
});

const spec = (days: number, replicas = 1) => ({
  name,
  subjects: [`${name.toLowerCase()}.>`],
  maxAgeMs: days * 86_400_000,
  duplicateWindowMs: 120_000,
  replicas,
});

describe('ensureStream', () => {
  it('creates the stream, then brings its retention up to date when a process declares another', async () => {
    await ensureStream(nc, spec(1));
    const jsm = await nc.jetstreamManager();
    expect((await jsm.streams.info(name)).config.max_age).toBe(nanos(86_400_000));
    await ensureStream(nc, spec(7));
    const info = await jsm.streams.info(name);
    expect(info.config.max_age).toBe(nanos(7 * 86_400_000));
    expect(info.config.num_replicas).toBe(1);
    // Declaring the same again changes nothing and does not fail.
    await ensureStream(nc, spec(7));
  });

  it('fails loudly rather than run unreplicated when a new stream asks replicas of a single server', async () => {
    const other = { ...spec(7, 3), name: `${name}_R`, subjects: [`${name.toLowerCase()}_r.>`] };
    await expect(ensureStream(nc, other)).rejects.toThrow(/replicas > 1 not supported/);
  });
});
