import { performance } from 'node:perf_hooks';
import { shardOf, shardStreamName } from '@mdp/usage';
import { connect, type NatsConnection } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountWhere } from './accounts.ts';
import { ClientLoad } from './chaos/load.ts';
import { sleep, startStackOnCluster, stepDown, summary, within } from './chaos/on-cluster.ts';
import { metric } from './metrics.ts';
import { type ClusterServer, type PrivateNatsCluster, startPrivateNatsCluster } from './private-infra.ts';
import type { Stack } from './stack.ts';
import { usedToday } from './usage-read.ts';

// Issue 50's "a server's loss touches only the shards whose streams it led", on a private three-server
// JetStream cluster: two ledger shards, each with a stream of its own in three replicas. The leader of
// shard 1's stream is moved to a server that does not lead shard 0's and that the services are not
// connected to, and that server is SIGKILLed under load on an account of each shard. Shard 1's account
// gets fast 503s until its stream has a new leader, then 200s; shard 0's keeps its 200s (its stream lost
// a follower only); each account is charged exactly the 200s its client saw.

const ACK_TIMEOUT_MS = 5_000;
const PATH = '/v1/stocks?q=zz&limit=1';

let cluster: PrivateNatsCluster;
let stack: Stack;
/** The harness's own connection, for moving the streams' leaders. */
let nc: NatsConnection;
/** An account of each shard, and a load on each. */
const accounts: { token: string; load?: ClientLoad }[] = [];

const stream = (shard: number) => shardStreamName(stack.usage.USAGE_STREAM, shard);
/** The server the services connect to first. */
const home = () => cluster.servers[0]!;

/**
 * Shard 1's stream led by a server that is neither the services' own nor the leader of shard 0's stream
 * or of any of its consumers (a consumer has a leader of its own, and shard 0's recording, which its
 * usage reads wait for, stops while its consumer has none). Resolves once shard 0's consumers have
 * delivered everything again: a pull is lost with its consumer's leader, and the ledger pulls again when
 * the new leader announces itself.
 */
async function placeLeaders(): Promise<ClusterServer> {
  const jsm = await nc.jetstreamManager();
  return within(
    60_000,
    "shard 1's stream led away from the services' server and shard 0's leaders",
    async () => {
      const one = await cluster.streamLeader(stream(1));
      if (!one) return undefined;
      if (one === home()) return void (await stepDown(nc, `STREAM.LEADER.STEPDOWN.${stream(1)}`));
      const zero = await cluster.streamLeader(stream(0));
      if (zero === one) return void (await stepDown(nc, `STREAM.LEADER.STEPDOWN.${stream(0)}`));
      for await (const c of jsm.consumers.list(stream(0)))
        if (c.cluster?.leader === one.name)
          return void (await stepDown(nc, `CONSUMER.LEADER.STEPDOWN.${stream(0)}.${c.name}`));
      if (!zero) return undefined;
      for await (const c of jsm.consumers.list(stream(0))) if (c.num_pending > 0) return undefined;
      return one;
    },
  );
}

beforeAll(async () => {
  cluster = await startPrivateNatsCluster(3);
  stack = await startStackOnCluster(cluster, {
    ackTimeoutMs: ACK_TIMEOUT_MS,
    attemptTimeoutMs: 200,
    shards: 2,
  });
  nc = await connect({ servers: cluster.url });
  for (const shard of [0, 1])
    accounts.push(await accountWhere(stack, 'load-test', (a) => shardOf(a, 2) === shard));
  for (const a of accounts) {
    a.load = new ClientLoad({
      baseUrl: stack.baseUrl,
      path: PATH,
      clients: 4,
      ratePerSecond: 100,
      tokens: [a.token],
      timeoutMs: 15_000,
    });
    await within(30_000, 'a first 200', async () => a.load!.samples.find((s) => s.outcome === 200));
  }
}, 300_000);

afterAll(async () => {
  for (const a of accounts) await a.load?.stop();
  await nc?.close();
  await stack?.shutdown();
  await cluster?.stop();
}, 120_000);

describe("losing the server that leads one shard's stream", () => {
  it('stops only that shard: fast 503s for its accounts until a new leader, 200s for the other shard, each charged exactly', async () => {
    const [zero, one] = accounts.map((a) => a.load!);
    const leader = await placeLeaders();
    await sleep(1_000);
    const killed = performance.now();
    await leader.signal('SIGKILL');
    // Shard 0's account's usage, read every quarter second through the outage.
    const reads: { status: number; at: number }[] = [];
    let reading = true;
    const readLoop = (async () => {
      while (reading) {
        const res = await fetch(`${stack.baseUrl}/v1/me/usage`, {
          headers: { authorization: `Bearer ${accounts[0]!.token}` },
        });
        await res.arrayBuffer();
        reads.push({ status: res.status, at: performance.now() });
        await sleep(250);
      }
    })();
    const ops = stack.procs.get('gateway')!.opsPort;
    // Shard 0's breaker read while shard 1's is seen open: read after, shard 1's gauge may read 0 again,
    // half-open while a probe waits its attempt out (once a second) or closed by a probe that found the
    // new leader, as it did once in a loaded CI run (7 December).
    const breakers = await within(30_000, "shard 1's settlement breaker to open", async () =>
      (await metric(ops, 'gateway_settlement_breaker_open', { shard: '1' })) === 1
        ? [await metric(ops, 'gateway_settlement_breaker_open', { shard: '0' }), 1]
        : undefined,
    );
    const elected = await within(60_000, "a new leader of shard 1's stream", async () => {
      const now = await cluster.streamLeader(stream(1));
      return now && now !== leader ? performance.now() : undefined;
    });
    const back = await within(60_000, "a 200 for shard 1's account after the kill", async () =>
      one!.samples.find((s) => s.start >= killed && s.outcome === 200),
    );
    reading = false;
    await readLoop;
    await sleep(1_000);
    const during = (load: ClientLoad) =>
      load.samples.filter((s) => s.start >= killed && s.start < back.start);
    console.log(
      `${leader.name}, leading shard 1's stream, SIGKILLed: new leader after ${(elected - killed).toFixed(0)} ms, shard 1's first 200 ${(back.start - killed).toFixed(0)} ms after the kill; meanwhile shard 0: ${summary(during(zero!))}; shard 1: ${summary(during(one!))}; shard 0's usage reads: ${reads.filter((r) => r.at < back.start && r.status === 200).length} of ${reads.filter((r) => r.at < back.start).length} answered 200`,
    );
    expect(breakers).toEqual([0, 1]);
    // Shard 0's usage reads are answered: its breaker is closed. (A read also waits, 2 s at most, for
    // recording to pass the account's charges, which the loss of a follower can hold up for a moment.)
    const readsDuring = reads.filter((r) => r.at < back.start);
    expect(
      readsDuring.filter((r) => r.status === 200).length,
      readsDuring.map((r) => r.status).join(' '),
    ).toBeGreaterThan(0);
    // Shard 1's account: fast 503s, nobody waiting out the acknowledgement timeout.
    expect(during(one!).filter((s) => s.outcome === 503).length).toBeGreaterThan(0);
    for (const s of during(one!)) {
      expect([200, 503]).toContain(s.outcome);
      expect(s.end - s.start).toBeLessThan(ACK_TIMEOUT_MS / 2);
    }
    // Shard 0's account: served on, its stream having lost a follower only (which may cost a few 503s:
    // chaos-cluster.int.test.ts, 5% of its answers). One breaker for every shard refused it about as
    // long as shard 1's stream had no leader (81% of its answers, in a trial run).
    const zeroDuring = during(zero!);
    expect(zeroDuring.length).toBeGreaterThan(0);
    expect(zeroDuring.filter((s) => s.outcome !== 200).length, summary(zeroDuring)).toBeLessThan(
      zeroDuring.length / 4,
    );
    await leader.start();
  }, 180_000);

  it('charges each account exactly the 200s its client saw', async () => {
    for (const a of accounts) {
      await a.load!.stop();
      const seen = a.load!.samples.filter((s) => s.outcome === 200).length;
      await within(90_000, `usage saying the ${seen} 200s seen`, async () =>
        (await usedToday(stack.baseUrl, a.token)) === seen ? true : undefined,
      );
      expect(await usedToday(stack.baseUrl, a.token)).toBe(seen);
    }
  }, 240_000);
});
