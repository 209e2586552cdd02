import { randomBytes } from 'node:crypto';
import { connectNats, type NatsConnection } from '@mdp/nats';
import { createLogger, createRegistry } from '@mdp/telemetry';
import { shardStreamName } from '@mdp/usage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PrivateNatsCluster, startPrivateNatsCluster } from '../../../test/private-infra.ts';
import { until } from '../../../test/until.ts';
import { batchDurableName } from '../src/settlement/durable-consumer.ts';
import { publishCharges, startTestConsumer } from './settlement-event.ts';

// A consumer's leader moves (a stepdown, or its server lost) and the new leader knows nothing of the
// pull its predecessor held: nats-server 2.9 says nothing to the puller, whose client notices only when
// two heartbeats are missed, a whole pull's life. The shard would record nothing until then. Here each
// pull lasts 30 s, so a shard that waited for that would miss the bound below by far; the ledger pulls
// again when the new leader announces itself. The ledger is connected to the first server only, which
// never leads the consumer when it is moved, so its connection stays up throughout.

const PULL_EXPIRES_MS = 30_000;
/** How soon after the move the events must be recorded: a third of the pull's life. */
const BOUND_MS = 10_000;

const logger = createLogger('test', 'silent');
let cluster: PrivateNatsCluster;
let nc: NatsConnection;

beforeAll(async () => {
  cluster = await startPrivateNatsCluster(3);
  nc = await connectNats({ url: cluster.servers[0]!.url, name: 'consumer-leader-move-test', logger });
}, 60_000);
afterAll(async () => {
  await nc?.close();
  await cluster?.stop();
});

const ids = (label: string, n: number) => Array.from({ length: n }, (_, i) => `${label}-${i}`);

/**
 * A shard recording a stream of three replicas whose consumer is led by a server other than the first,
 * `move` run on that leader, and then 30 events published: resolves once they are recorded (rejects
 * after `BOUND_MS`), with how many pulls the shard made again because a leader moved.
 */
async function recordAcrossMove(move: (leader: string, own: string, durable: string) => Promise<void>) {
  const tag = randomBytes(5).toString('hex');
  const stream = `USAGE_MOVE_${tag.toUpperCase()}`;
  const prefix = `usage_move_${tag}`;
  const registry = createRegistry('quota-ledger');
  const recorded = new Set<string>();
  const consumer = await startTestConsumer({
    nc,
    stream,
    prefix,
    replicas: 3,
    pullExpiresMs: PULL_EXPIRES_MS,
    registry,
    apply: async (events) => {
      for (const e of events) recorded.add(e.request_id);
    },
  });
  try {
    await publishCharges(nc, prefix, ids('before', 20));
    await until('the first events recorded', () => recorded.size === 20);

    const jsm = await nc.jetstreamManager();
    const own = shardStreamName(stream, 0);
    const durable = batchDurableName(prefix, 0);
    // Undefined while it has none (its information is not answered during an election).
    let waiting: number | undefined;
    const leader = () =>
      jsm.consumers.info(own, durable).then(
        (info) => {
          waiting = info.num_waiting;
          return info.cluster?.leader;
        },
        () => undefined,
      );
    // nats-server 2.9 does not always answer a consumer's stepdown: the new leader is what tells.
    const stepDown = () => nc.publish(`$JS.API.CONSUMER.LEADER.STEPDOWN.${own}.${durable}`);
    const first = cluster.servers[0]!.name;
    const before = await until('a consumer leader other than the first server', async () => {
      const now = await leader();
      if (now === first) stepDown();
      return now && now !== first ? now : undefined;
    });
    await move(before, own, durable);
    const after = await until('a new consumer leader', async () => {
      const now = await leader();
      return now && now !== before ? now : undefined;
    });

    // A server killed may have led the stream too: its publishes get no answer until another leads it
    // (each message is stored once however often it is sent: its id).
    await until(
      'the events after the move published',
      () =>
        publishCharges(nc, prefix, ids('after', 30)).then(
          () => true,
          () => false,
        ),
      30_000,
    );
    const moved = Date.now();
    // Said at the timeout: how far recording got, and where the consumer's leadership went meanwhile.
    let lastLeader: string | undefined;
    const pullsAgain = async () =>
      (await registry.metrics()).match(/ledger_settlement_pulls_again_total\{[^}]*\} \d+/g);
    await until(
      () =>
        `the events after the move recorded (${recorded.size - 20} of 30; consumer leader ${before} → ${after}, last seen ${lastLeader} holding ${waiting} pulls)`,
      async () => {
        if (recorded.size === 50) return true;
        lastLeader = await leader();
        return false;
      },
      BOUND_MS,
    ).catch(async (err: Error) => {
      throw new Error(`${err.message}; ${(await pullsAgain())?.join(', ')}`);
    });
    console.log(
      `consumer leader ${before} → ${after}: 30 events after it recorded ${Date.now() - moved} ms after their publishing`,
    );
    expect([...recorded].filter((id) => id.startsWith('after-'))).toHaveLength(30);
    const text = await registry.metrics();
    return Number(
      /ledger_settlement_pulls_again_total\{[^}]*cause="leader_moved"[^}]*\} (\d+)/.exec(text)?.[1],
    );
  } finally {
    await consumer.stop();
  }
}

describe('a shard’s consumer whose leader moves', () => {
  it('records what comes after a stepdown without waiting for its pull to expire', async () => {
    const again = await recordAcrossMove(async (_leader, own, durable) => {
      nc.publish(`$JS.API.CONSUMER.LEADER.STEPDOWN.${own}.${durable}`);
    });
    expect(again).toBeGreaterThan(0);
  }, 90_000);

  it('records what comes after its leader’s server is killed, without waiting for its pull to expire', async () => {
    const server = (name: string) => cluster.servers.find((s) => s.name === name)!;
    let killed: string | undefined;
    try {
      const again = await recordAcrossMove(async (leader) => {
        killed = leader;
        await server(leader).signal('SIGKILL');
      });
      expect(again).toBeGreaterThan(0);
    } finally {
      if (killed) await server(killed).start();
    }
  }, 90_000);
});
