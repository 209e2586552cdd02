import { connectNats, type NatsConnection } from '@mdp/nats';
import { createLogger } from '@mdp/telemetry';
import { shardStreamName } from '@mdp/usage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metric } from './metrics.ts';
import { STACK_SHUTDOWN_MS, type Stack, startStack } from './stack.ts';
import { until } from './until.ts';
import { usedToday } from './usage-read.ts';

// JetStream losing the ledger's durable consumer under load (an operator's `nats consumer rm`, consumer
// state lost with a server): the shard notices, records what it holds, makes the consumer again after the
// position its log has recorded and records on, with no restart; every 200 seen is charged once, and a
// usage read after the loss counts them all (read-your-writes).

let stack: Stack;
let nc: NatsConnection;

beforeAll(async () => {
  stack = await startStack();
  nc = await connectNats({
    url: stack.natsUrl,
    name: 'consumer-loss-test',
    logger: createLogger('test', 'silent'),
  });
}, 300_000);
afterAll(async () => {
  await nc?.close();
  await stack?.shutdown();
}, STACK_SHUTDOWN_MS);

const QUOTE = '/v1/stocks?q=zz&limit=1';

async function call(token: string): Promise<number> {
  const res = await fetch(`${stack.baseUrl}${QUOTE}`, { headers: { authorization: `Bearer ${token}` } });
  await res.arrayBuffer();
  return res.status;
}

describe('a settlement consumer JetStream loses under load', () => {
  it('is made again by its shard: every 200 seen charged once, and usage read after it counts them all', async () => {
    const account = await stack.admin('account', 'create', '--plan', 'load-test');
    const token = await stack.admin('token', 'issue', account);
    const ledgerOps = stack.procs.get('quota-ledger')!.opsPort;
    const stream = shardStreamName(stack.usage.USAGE_STREAM, 0);
    const durable = `ledger-${stack.usage.USAGE_SUBJECT}-0-batch`;
    const jsm = await nc.jetstreamManager();
    expect((await jsm.consumers.info(stream, durable)).name).toBe(durable);

    // The consumer goes while requests flow: after the load's first 200s, however long a busy machine
    // takes to give them; the load goes on while the shard notices and makes it again, and after.
    const statuses: number[] = [];
    const ok = () => statuses.filter((s) => s === 200).length;
    let loading = true;
    const load = Promise.all(
      Array.from({ length: 4 }, async () => {
        while (loading) statuses.push(await call(token));
      }),
    );
    const tally = () => {
      const by: Record<number, number> = {};
      for (const s of statuses) by[s] = (by[s] ?? 0) + 1;
      return JSON.stringify(by);
    };
    await until(
      () => `the load's first 200s: ${tally()}`,
      () => ok() >= 20,
      30_000,
    );
    const beforeLoss = ok();
    await jsm.consumers.delete(stream, durable);
    const madeAgain = (lost: string) =>
      metric(ledgerOps, 'ledger_settlement_consumers_made_again_total', { lost });
    await until(
      'the shard to make its consumer again',
      async () => (await madeAgain('consumer')) > 0,
      30_000,
      200,
    );
    const remadeAt = statuses.length;
    await until(
      () => `200s after the consumer was made again: ${tally()}`,
      () => statuses.slice(remadeAt).filter((s) => s === 200).length >= 20,
      30_000,
    );
    loading = false;
    await load;

    const seen = ok();
    expect(seen).toBeGreaterThan(beforeLoss);
    // Nothing but 200s, or a 503 with nothing charged.
    expect(statuses.filter((s) => s !== 200 && s !== 503)).toEqual([]);
    // The shard made it again itself, once, its stream kept.
    expect(await madeAgain('consumer')).toBe(1);
    expect(await madeAgain('stream')).toBe(0);
    expect((await jsm.consumers.info(stream, durable)).name).toBe(durable);
    // The first usage read that answers counts every 200 seen, and no more: it waits for recording.
    const used = await until('a usage read that answers', () => usedToday(stack.baseUrl, token), 30_000, 250);
    expect(used).toBe(seen);
  }, 120_000);
});
