import { performance } from 'node:perf_hooks';
import { createPool, type Pool } from '@mdp/db';
import { shardStreamName } from '@mdp/usage';
import { connect, type NatsConnection } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClientLoad } from './chaos/load.ts';
import { sleep, startStackOnCluster, stepDown, summary, within } from './chaos/on-cluster.ts';
import { type ClusterServer, type PrivateNatsCluster, startPrivateNatsCluster } from './private-infra.ts';
import type { Stack } from './stack.ts';
import { usedToday } from './usage-read.ts';

// Issue 50's chaos cases on a real three-server JetStream cluster: the whole platform (one ledger shard,
// one gateway) on a private cluster with the usage stream in three replicas, a paced load of metered
// requests, and in turn the stream's leader SIGKILLed, a follower SIGKILLed, and every server killed and
// started again. The services are given one server's address (they learn the others from it), and the
// stream's leader is moved off that server first, so that losing the leader leaves their connections up:
// the case where charges wait for an acknowledgement that does not come. What holds however busy the machine is, asserted: every 200 seen is charged exactly
// once; 200s come back after each fault, after a leader loss within about one election (the breaker
// probes once a second); while the stream has no leader no request waits out its acknowledgement
// timeout (the settlement breaker answers 503 instead). The figures (the slowest answer, answers over
// 250 ms, the election's length) are printed: on a quiet machine no answer takes over 250 ms.

const ACK_TIMEOUT_MS = 5_000;
const ATTEMPT_TIMEOUT_MS = 200;
const PATH = '/v1/stocks?q=zz&limit=1';

let cluster: PrivateNatsCluster;
let stack: Stack;
let token: string;
let load: ClientLoad;
/** The harness's own connection, for moving the stream's leader. */
let nc: NatsConnection;

/** The answers to requests sent from `from` (performance.now()) on. */
const since = (from: number) => load.samples.filter((s) => s.start >= from);
const firstOkAfter = (from: number) =>
  within(60_000, 'a 200 after the fault', async () =>
    load.samples.find((s) => s.start >= from && s.outcome === 200),
  );

/** When each fault began (performance.now()), for the report of an unexpected charge. */
const marks: { what: string; at: number }[] = [];

/** The ledger's schema, read by the checks below (opened by the first of them). */
let logPool: Pool | undefined;

/** The requests the stack's usage log holds as charged (a charge and no void), with their events' kinds. */
async function chargedInLog(): Promise<{ id: string; kinds: string }[]> {
  logPool ??= createPool({
    url: stack.databaseUrl,
    schema: stack.envOf('quota-ledger').DB_SCHEMA!,
    max: 1,
    applicationName: 'chaos-cluster-check',
  });
  const { rows } = await logPool.query<{ id: string; kinds: string }>(
    `SELECT request_id::text AS id, string_agg(kind::text, '' ORDER BY kind) AS kinds
       FROM usage_events GROUP BY request_id HAVING usage_charged(array_agg(kind))`,
  );
  return rows;
}

/** The number of charged requests in the log, explained when it is not `seen`. */
async function expectCharged(charged: { id: string; kinds: string }[], seen: number): Promise<void> {
  expect(charged.length, charged.length === seen ? undefined : await explain(charged)).toBe(seen);
}

/**
 * What a failure of the exactness check needs to be understood: the usage document, and each request
 * charged in the log that no client saw a 200 for, with what its client saw, when, and every line of
 * the gateway's and the ledger's logs that names it.
 */
async function explain(charged: { id: string; kinds: string }[]): Promise<string> {
  const usage = await fetch(`${stack.baseUrl}/v1/me/usage`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const ok = new Set(load.samples.filter((s) => s.outcome === 200).map((s) => s.requestId?.toLowerCase()));
  const logs = (['gateway', 'quota-ledger'] as const).map((name) => stack.procs.get(name)!.output.join(''));
  const unexpected = charged
    .filter((r) => !ok.has(r.id))
    .map((r) => {
      const sample = load.samples.find((s) => s.requestId?.toLowerCase() === r.id);
      const when = sample
        ? `${sample.outcome} sent ${marks.map((m) => `${(sample.start - m.at).toFixed(0)} ms after ${m.what}`).join(', ')}, answered after ${(sample.end - sample.start).toFixed(0)} ms`
        : 'no answer seen';
      const lines = logs.flatMap((log) => log.split('\n').filter((l) => l.toLowerCase().includes(r.id)));
      return `${r.id} (logged ${r.kinds}): ${when}\n  ${lines.join('\n  ') || 'no log line'}`;
    });
  return [
    `the log: ${charged.length} requests charged; the usage document (${usage.status}): ${await usage.text()}`,
    ...unexpected,
    ...(await recordingState()),
  ].join('\n');
}

/**
 * Where recording stands when the log lags the 200s seen: each durable consumer of the shard's stream as
 * JetStream has it, and the ledger's lines about its settlement consumer (a run on 30 November 2026 had
 * recorded 117 of 2,042 charges 90 s after the load, with nothing to tell why).
 */
async function recordingState(): Promise<string[]> {
  const consumers: string[] = [];
  try {
    const jsm = await nc.jetstreamManager();
    for await (const c of jsm.consumers.list(usageStream()))
      consumers.push(
        `consumer ${c.name}: delivered ${c.delivered.stream_seq}, ack floor ${c.ack_floor.stream_seq}, ` +
          `pending ${c.num_pending}, ack pending ${c.num_ack_pending}, pulls waiting ${c.num_waiting}, ` +
          `leader ${c.cluster?.leader ?? '?'}`,
      );
  } catch (err) {
    consumers.push(`the consumers could not be listed: ${(err as Error).message}`);
  }
  const ledger = stack.procs
    .get('quota-ledger')!
    .output.join('')
    .split('\n')
    .filter((l) => /settle|consumer|record/i.test(l))
    .slice(-30);
  return [...consumers, "the ledger's last lines about recording:", ...ledger.map((l) => `  ${l}`)];
}

/** The stream of the stack's one ledger shard. */
const usageStream = () => shardStreamName(stack.usage.USAGE_STREAM, 0);
/** The server the services connect to first. */
const home = () => cluster.servers[0]!;

/** The stream's leader, once it is not the services' server (asking JetStream to elect another). */
async function leaderAwayFromHome(): Promise<ClusterServer> {
  return within(60_000, `a leader of ${usageStream()} other than ${home().name}`, async () => {
    const leader = await cluster.streamLeader(usageStream());
    if (leader && leader !== home()) return leader;
    if (leader) await stepDown(nc, `STREAM.LEADER.STEPDOWN.${usageStream()}`);
    else await sleep(500);
    return undefined;
  });
}

beforeAll(async () => {
  cluster = await startPrivateNatsCluster(3);
  stack = await startStackOnCluster(cluster, {
    ackTimeoutMs: ACK_TIMEOUT_MS,
    attemptTimeoutMs: ATTEMPT_TIMEOUT_MS,
  });
  nc = await connect({ servers: cluster.url });
  const account = await stack.admin('account', 'create', '--plan', 'load-test');
  token = await stack.admin('token', 'issue', account);
  load = new ClientLoad({
    baseUrl: stack.baseUrl,
    path: PATH,
    clients: 8,
    ratePerSecond: 200,
    tokens: [token],
    timeoutMs: 15_000,
  });
  await within(30_000, 'the first 200', async () => load.samples.find((s) => s.outcome === 200));
}, 300_000);

afterAll(async () => {
  await load?.stop();
  await logPool?.end();
  await nc?.close();
  await stack?.shutdown();
  await cluster?.stop();
}, 120_000);

describe('the platform on a three-server JetStream cluster under load', () => {
  it("answers fast 503s while the usage stream's leader is lost, and 200s again within about one election", async () => {
    const leader = await leaderAwayFromHome();
    await sleep(1_000);
    const killed = performance.now();
    marks.push({ what: "the leader's SIGKILL", at: killed });
    await leader.signal('SIGKILL');
    const elected = await within(60_000, 'a new leader', async () => {
      const now = await cluster.streamLeader(usageStream());
      return now && now !== leader ? performance.now() : undefined;
    });
    const back = await firstOkAfter(killed);
    await sleep(1_000);
    const during = since(killed).filter((s) => s.start < back.start);
    console.log(
      `leader ${leader.name} SIGKILLed: new leader after ${(elected - killed).toFixed(0)} ms, ` +
        `first 200 sent ${(back.start - killed).toFixed(0)} ms after the kill; meanwhile ${summary(during)}`,
    );
    // Nobody waited out the acknowledgement timeout: the breaker answered.
    for (const s of during) expect(s.end - s.start).toBeLessThan(ACK_TIMEOUT_MS / 2);
    expect(during.every((s) => s.outcome === 200 || s.outcome === 503)).toBe(true);
    // Within one election, the breaker's probe a second and a busy machine's allowance.
    expect(back.start - killed).toBeLessThan(elected - killed + 3_000);
    await leader.start();
  }, 120_000);

  it('keeps answering 200 when a follower is SIGKILLed', async () => {
    await sleep(2_000);
    const leader = await leaderAwayFromHome();
    const follower = cluster.servers.find((s) => s !== leader && s !== home())!;
    const killed = performance.now();
    marks.push({ what: "a follower's SIGKILL", at: killed });
    await follower.signal('SIGKILL');
    await sleep(3_000);
    const during = since(killed);
    console.log(`follower ${follower.name} SIGKILLed: ${summary(during)}`);
    expect(during.filter((s) => s.outcome === 200).length).toBeGreaterThan(during.length / 2);
    for (const s of during) expect(s.end - s.start).toBeLessThan(ACK_TIMEOUT_MS / 2);
    await follower.start();
  }, 60_000);

  it('comes back with 200s after every server is killed and started again', async () => {
    await sleep(2_000);
    const killed = performance.now();
    marks.push({ what: "every server's SIGKILL", at: killed });
    await Promise.all(cluster.servers.map((s) => s.signal('SIGKILL')));
    await sleep(2_000);
    await Promise.all(cluster.servers.map((s) => s.start()));
    const back = await firstOkAfter(performance.now());
    await sleep(2_000);
    const during = since(killed).filter((s) => s.start < back.start);
    console.log(
      `all three SIGKILLed, started 2 s later: first 200 sent ${(back.start - killed).toFixed(0)} ms after the kill; meanwhile ${summary(during)}`,
    );
    for (const s of during) expect(s.end - s.start).toBeLessThan(ACK_TIMEOUT_MS / 2);
  }, 180_000);

  it('charges exactly the 200s the clients saw', async () => {
    await load.stop();
    const seen = load.samples.filter((s) => s.outcome === 200).length;
    console.log(`in all: ${summary(load.samples)}`);
    // The billing record first: the log has every 200's charge, and nothing else, once recording has
    // caught up with the stream (after the whole cluster's loss, some seconds: contributors.md). A
    // charge cut off by the loss is reversed by its void, which the gateway keeps publishing in the
    // background until a server takes it: until then the log holds one charge more than the 200s seen.
    const recorded = await within(90_000, `the log recording exactly the ${seen} 200s seen`, async () => {
      const charged = await chargedInLog();
      return charged.length === seen ? charged : undefined;
    }).catch(async (err: Error) => expect.fail(`${err.message}\n${await explain(await chargedInLog())}`));
    await expectCharged(recorded, seen);
    // Then usage says the same, and stays there: nothing charged for an answer that was not a 200
    // arrives later. Usage counts holds too, and a hold left unsettled in the faults goes after
    // HOLD_TTL_MS (30 s) of recording time.
    const used = await within(45_000, `usage saying the ${seen} 200s seen`, async () =>
      (await usedToday(stack.baseUrl, token)) === seen ? seen : undefined,
    ).catch(async (err: Error) => expect.fail(`${err.message}\n${await explain(await chargedInLog())}`));
    await sleep(3_000);
    await expectCharged(await chargedInLog(), seen);
    expect(await usedToday(stack.baseUrl, token)).toBe(used);
  }, 180_000);
});
