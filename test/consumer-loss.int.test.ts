import { connectNats, type NatsConnection } from '@mdp/nats';
import { createLogger } from '@mdp/telemetry';
import { shardStreamName } from '@mdp/usage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metric } from './metrics.ts';
import { STACK_SHUTDOWN_MS, type Stack, startStack, usedToday } from './stack.ts';

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

    const statuses: number[] = [];
    let loading = true;
    const load = Promise.all(
      Array.from({ length: 4 }, async () => {
        while (loading) statuses.push(await call(token));
      }),
    );
    await new Promise((r) => setTimeout(r, 1_000));
    const beforeLoss = statuses.filter((s) => s === 200).length;
    await jsm.consumers.delete(stream, durable);
    await new Promise((r) => setTimeout(r, 2_000));
    loading = false;
    await load;

    const seen = statuses.filter((s) => s === 200).length;
    expect(beforeLoss).toBeGreaterThan(0);
    expect(seen).toBeGreaterThan(beforeLoss);
    // Nothing but 200s, or a 503 with nothing charged.
    expect(statuses.filter((s) => s !== 200 && s !== 503)).toEqual([]);
    // The shard made it again itself, once, its stream kept.
    expect(
      await metric(ledgerOps, 'ledger_settlement_consumers_made_again_total', { lost: 'consumer' }),
    ).toBe(1);
    expect(await metric(ledgerOps, 'ledger_settlement_consumers_made_again_total', { lost: 'stream' })).toBe(
      0,
    );
    expect((await jsm.consumers.info(stream, durable)).name).toBe(durable);
    // The first usage read that answers counts every 200 seen, and no more: it waits for recording.
    let used = await usedToday(stack.baseUrl, token);
    for (let i = 0; used === null && i < 20; i++) {
      await new Promise((r) => setTimeout(r, 250));
      used = await usedToday(stack.baseUrl, token);
    }
    expect(used).toBe(seen);
  }, 120_000);
});
