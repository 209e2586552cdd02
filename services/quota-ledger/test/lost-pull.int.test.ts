import { randomBytes } from 'node:crypto';
import { createServer, type Server, type Socket, connect as tcpConnect } from 'node:net';
import { connectNats, deleteStreamFamily, ensureStream, type NatsConnection } from '@mdp/nats';
import { createLogger } from '@mdp/telemetry';
import { shardStreamName, shardStreamSpec } from '@mdp/usage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../../../test/until.ts';
import { publishCharges, startTestConsumer } from './settlement-event.ts';

// A consumer whose pull the servers drop without a word it acts on (a stream leader lost: nats.js
// ignores the 409 that says so) relies on the client noticing missed heartbeats; once a reconnect has
// come while that recovery was backing off, the client never watches heartbeats again, and the next
// lost pull stopped recording for good (a three-server chaos run, 30 November 2026). Here the ledger's
// connection goes through a TCP relay this test holds and cuts, the lost pull is a consumer made again
// under it, and recording must resume by itself.

const NATS_PORT = Number(new URL(process.env.NATS_URL ?? 'nats://localhost:4222').port || 4222);
const logger = createLogger('test', 'silent');

/** A TCP relay to NATS that can hold every byte (a network that stops answering) and cut every connection. */
async function relay() {
  let holding = false;
  const pairs: { client: Socket; server: Socket; held: [Socket, Buffer][] }[] = [];
  const server: Server = createServer((client) => {
    const upstream = tcpConnect(NATS_PORT, '127.0.0.1');
    const pair = { client, server: upstream, held: [] as [Socket, Buffer][] };
    pairs.push(pair);
    const pass = (to: Socket) => (data: Buffer) => (holding ? pair.held.push([to, data]) : to.write(data));
    client.on('data', pass(upstream));
    upstream.on('data', pass(client));
    for (const [a, b] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      a.on('error', () => b.destroy());
      a.on('close', () => b.destroy());
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `nats://127.0.0.1:${(server.address() as { port: number }).port}`,
    hold: () => {
      holding = true;
    },
    /** Drops every connection (what they held is lost with them) and lets new ones through. */
    cutAndRelease: () => {
      for (const p of pairs.splice(0)) {
        p.client.destroy();
        p.server.destroy();
      }
      holding = false;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

let direct: NatsConnection;
let viaRelay: NatsConnection | undefined;
let network: Awaited<ReturnType<typeof relay>>;
let stream: string;

beforeAll(async () => {
  direct = await connectNats({ url: `nats://127.0.0.1:${NATS_PORT}`, name: 'lost-pull-test', logger });
  network = await relay();
});
afterAll(async () => {
  await viaRelay?.close();
  if (stream) await deleteStreamFamily(direct, stream).catch(() => {});
  await direct?.close();
  await network?.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a shard’s consumer whose pull is lost', () => {
  it('records again by itself, after the client’s own recovery has stopped watching', async () => {
    const tag = randomBytes(5).toString('hex');
    stream = `USAGE_LOST_${tag.toUpperCase()}`;
    const prefix = `usage_lost_${tag}`;
    await ensureStream(direct, shardStreamSpec(stream, prefix, 0, 1));
    viaRelay = await connectNats({ url: network.url, name: 'lost-pull-ledger', logger });
    const recorded = new Set<string>();
    const consumer = await startTestConsumer({
      nc: viaRelay,
      stream,
      prefix,
      apply: async (events) => {
        for (const e of events) recorded.add(e.request_id);
      },
    });
    try {
      const ids = (label: string, n: number) => Array.from({ length: n }, (_, i) => `${label}-${i}`);
      await publishCharges(direct, prefix, ids('before', 20));
      await until('the first events recorded', () => recorded.size === 20);

      // The network stops answering: heartbeats are missed, and the client's look at the consumer times
      // out and backs off; the connection is cut and made again during that back-off (12.5 s in).
      network.hold();
      await publishCharges(direct, prefix, ids('held', 30));
      await sleep(12_500);
      network.cutAndRelease();
      await until('the held events recorded after the reconnect', () => recorded.size === 50, 30_000);
      // The client's own recovery ends (its back-off over, it pulls again) but no longer watches.
      await sleep(12_000);

      // The pull is lost: the consumer is made again under it, as a new leader would have it.
      const jsm = await direct.jetstreamManager();
      const own = shardStreamName(stream, 0);
      const durable = `ledger-${prefix}-0-batch`;
      const { config } = await jsm.consumers.info(own, durable);
      // nats-server 2.9 can fail a delete, or the add after it, while the consumer's store is being
      // written ("unlinkat ...: directory not empty", "open .../meta.inf: no such file or directory",
      // seen in loaded runs). Both are the test's own steps, so each is asked again until the server
      // says the consumer is gone, then made.
      let lastError = '';
      const gone = () =>
        jsm.consumers.info(own, durable).then(
          () => false,
          (err: Error) => /consumer not found/.test(err.message),
        );
      await until(
        () => `the consumer deleted (last error: ${lastError || 'none'})`,
        () =>
          jsm.consumers.delete(own, durable).then(
            () => true,
            (err: Error) => {
              lastError = err.message;
              return gone();
            },
          ),
        10_000,
        200,
      );
      await until(
        () => `the consumer made again (last error: ${lastError || 'none'})`,
        () =>
          jsm.consumers.add(own, config).then(
            () => true,
            (err: Error) => {
              lastError = err.message;
              return false;
            },
          ),
        10_000,
        200,
      );
      await publishCharges(direct, prefix, ids('after', 30));
      await until('the events after the lost pull recorded', () => recorded.size === 80, 45_000);
      expect([...recorded].filter((id) => id.startsWith('after-'))).toHaveLength(30);
    } finally {
      await consumer.stop();
    }
  }, 120_000);
});
