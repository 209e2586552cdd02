import { randomBytes } from 'node:crypto';
import { AckedPublisher, connectNats, ensureStream, type NatsConnection, type PubAck } from '@mdp/nats';
import { createLogger } from '@mdp/telemetry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClusterServer, type PrivateNatsCluster, startPrivateNatsCluster } from './private-infra.ts';

// The usage ledger's JetStream on a real three-server cluster (issue 50): a stream of three replicas
// written through the gateway's own publisher (connectNats, ensureStream, AckedPublisher), its leader
// and then a follower SIGKILLed and restarted. What is asserted holds however busy the machine is:
// acknowledgements come back within a generous bound, the killed servers catch up, and every
// acknowledged message is in the stream at the sequence its acknowledgement named. How long the
// failover took is printed, not asserted.

const tag = randomBytes(4).toString('hex');
const stream = `CLUSTER_${tag.toUpperCase()}`;
const subject = `cluster_${tag}.charges`;
const logger = createLogger('test', 'silent');
/** How long a fault may keep publishes from being acknowledged before the test fails. */
const BOUND_MS = 30_000;
/** A publish not answered by then is sent again under the same message id (the earlier one still waits). */
const RESEND_MS = 250;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let cluster: PrivateNatsCluster;
let nc: NatsConnection;
let publisher: AckedPublisher;
/** Every acknowledged message id, with the sequence its acknowledgement named. */
const acked = new Map<string, number>();
let next = 0;

/**
 * Publishes one new message and waits for its acknowledgement, sending it again under the same message
 * id every RESEND_MS while none came (the stream stores it once). Resolves with how long that took.
 */
async function publishAcked(): Promise<{ ms: number; sends: number; ack: PubAck }> {
  const id = `${tag}-${next++}`;
  const payload = JSON.stringify({ id });
  const started = Date.now();
  let sends = 0;
  let lastError = '';
  const ack = await new Promise<PubAck>((resolve, reject) => {
    let done = false;
    const send = () => {
      if (done) return;
      if (Date.now() - started > BOUND_MS) {
        done = true;
        return reject(new Error(`${id} not acknowledged within ${BOUND_MS} ms (last: ${lastError})`));
      }
      sends++;
      publisher.publish(subject, payload, id, 5_000).then(
        (a) => {
          done = true;
          resolve(a);
        },
        (err: Error) => {
          lastError = err.message;
        },
      );
      setTimeout(send, RESEND_MS);
    };
    send();
  });
  expect(ack.stream).toBe(stream);
  acked.set(id, ack.seq);
  return { ms: Date.now() - started, sends, ack };
}

async function publishMany(n: number): Promise<{ maxMs: number; resent: number }> {
  let maxMs = 0;
  let resent = 0;
  for (let i = 0; i < n; i++) {
    const { ms, sends } = await publishAcked();
    maxMs = Math.max(maxMs, ms);
    if (sends > 1) resent++;
  }
  return { maxMs, resent };
}

/** The stream's leader once it has one that is not `not` (JetStream may not answer during an election). */
async function leaderOtherThan(not?: ClusterServer): Promise<ClusterServer> {
  const until = Date.now() + BOUND_MS;
  for (;;) {
    const leader = await cluster.streamLeader(stream).catch(() => undefined);
    if (leader && leader !== not) return leader;
    if (Date.now() > until) throw new Error(`no new leader of ${stream} within ${BOUND_MS} ms`);
    await sleep(100);
  }
}

/** Whether a JetStream API request went unanswered (nobody leads what it asks about yet) rather than failed. */
const unanswered = (err: unknown) => (err as { code?: string }).code === 'TIMEOUT';

/**
 * Waits until the cluster is whole again: every server a current member of the stream's group, and
 * JetStream's metadata leader answering (account info; when the killed server led the metadata group,
 * its successor is elected as a stream's leader is). Resolves with how many of its requests went
 * unanswered meanwhile (each waits 1 s, so the figure printed is not made of 5 s request timeouts).
 */
async function whole(): Promise<number> {
  const started = Date.now();
  const jsm = await nc.jetstreamManager({ timeout: 1_000, checkAPI: false });
  let missed = 0;
  let seen = '';
  const check = async () => {
    const info = await jsm.streams.info(stream);
    const c = info.cluster;
    const replicas = c?.replicas ?? [];
    seen = JSON.stringify(c);
    const members = [c?.leader, ...replicas.map((r) => r.name)].sort().join();
    const all = cluster.servers
      .map((s) => s.name)
      .sort()
      .join();
    if (!c?.leader || members !== all || !replicas.every((r) => r.current && !r.offline && !r.lag))
      return false;
    await jsm.getAccountInfo();
    return true;
  };
  for (;;) {
    const done = await check().catch((err) => {
      if (!unanswered(err)) throw err;
      missed++;
      return false;
    });
    if (done) return missed;
    if (Date.now() - started > BOUND_MS)
      throw new Error(`the cluster not whole within ${BOUND_MS} ms: ${stream}'s group ${seen}`);
    await sleep(100);
  }
}

/** A JetStream API read, asked again while it goes unanswered (during an election), within BOUND_MS. */
async function answered<T>(ask: () => Promise<T>): Promise<T> {
  const until = Date.now() + BOUND_MS;
  for (;;) {
    try {
      return await ask();
    } catch (err) {
      if (!unanswered(err) || Date.now() > until) throw err;
    }
  }
}

const connectedTo = () => nc.info?.server_name ?? '?';

describe('a three-server JetStream cluster (private nats-servers on loopback)', () => {
  beforeAll(async () => {
    const started = Date.now();
    cluster = await startPrivateNatsCluster(3);
    console.log(
      `cluster of ${cluster.servers.map((s) => `${s.name}:${s.port}`).join(', ')} ready in ${Date.now() - started} ms`,
    );
    nc = await connectNats({ url: cluster.url, name: 'nats-cluster-test', logger });
    await ensureStream(nc, {
      name: stream,
      subjects: [`cluster_${tag}.>`],
      maxAgeMs: 10 * 60_000,
      duplicateWindowMs: 2 * 60_000,
      replicas: 3,
    });
    publisher = new AckedPublisher(nc);
  }, 120_000);

  afterAll(async () => {
    publisher?.close();
    await nc?.close().catch(() => {});
    await cluster?.stop();
  }, 60_000);

  it('keeps a stream on all three servers and acknowledges publishes to it', async () => {
    await publishMany(20);
    const info = await (await nc.jetstreamManager()).streams.info(stream);
    expect(info.config.num_replicas).toBe(3);
    await whole();
    expect(info.state.messages).toBe(20);
  });

  it('elects a new leader when the leader is SIGKILLed, and acknowledges publishes again', async () => {
    const leader = await leaderOtherThan();
    const client = connectedTo();
    await leader.signal('SIGKILL');
    const first = await publishAcked();
    const elected = await leaderOtherThan(leader);
    console.log(
      `leader ${leader.name} SIGKILLed (the client was on ${client}): acknowledged again after ${first.ms} ms ` +
        `(${first.sends} sends), new leader ${elected.name}`,
    );
    expect(first.ms).toBeLessThan(BOUND_MS);
    expect(elected.running()).toBe(true);
    const after = await publishMany(20);
    console.log(`then 20 publishes on two servers: slowest ${after.maxMs} ms, ${after.resent} sent again`);

    const restarted = Date.now();
    await leader.start();
    const missed = await whole();
    console.log(
      `${leader.name} restarted: all three current and JetStream answering ${Date.now() - restarted} ms after its start ` +
        `(${missed} requests unanswered meanwhile)`,
    );
  }, 120_000);

  it('keeps acknowledging when a follower is SIGKILLed, and the follower catches up when it is back', async () => {
    const leader = await leaderOtherThan();
    const follower = cluster.servers.find((s) => s !== leader)!;
    const client = connectedTo();
    await follower.signal('SIGKILL');
    const during = await publishMany(20);
    // Asked again until answered: the harness's own connection may have been on the killed server.
    const still = await leaderOtherThan();
    console.log(
      `follower ${follower.name} SIGKILLed (the client was on ${client}): 20 publishes, slowest ${during.maxMs} ms, ` +
        `${during.resent} sent again; leader after: ${still.name} (was ${leader.name})`,
    );
    expect(during.maxMs).toBeLessThan(BOUND_MS);

    const restarted = Date.now();
    await follower.start();
    // Written while it catches up.
    await publishMany(10);
    const missed = await whole();
    console.log(
      `${follower.name} restarted: all three current and JetStream answering ${Date.now() - restarted} ms after its start ` +
        `(${missed} requests unanswered meanwhile)`,
    );
  }, 120_000);

  it('has every acknowledged message in the stream, once, at the sequence its acknowledgement named', async () => {
    const jsm = await nc.jetstreamManager({ checkAPI: false });
    const info = await answered(() => jsm.streams.info(stream));
    const stored = new Map<number, string>();
    for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq++) {
      const msg = await answered(() => jsm.streams.getMessage(stream, { seq }));
      stored.set(seq, msg.header.get('Nats-Msg-Id'));
    }
    const missing = [...acked].filter(([id, seq]) => stored.get(seq) !== id);
    expect(missing).toEqual([]);
    const ids = [...stored.values()];
    console.log(`${acked.size} messages acknowledged, ${ids.length} stored, ${new Set(ids).size} distinct`);
    expect(new Set(ids).size).toBe(acked.size);
    expect(ids.length).toBe(acked.size);
  });
});
