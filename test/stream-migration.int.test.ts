import { randomUUID } from 'node:crypto';
import { connectNats, ensureStream, jetstreamManager, type NatsConnection } from '@mdp/nats';
import { createLogger } from '@mdp/telemetry';
import { LEGACY_STREAM, type SettlementEvent, settlementMsgId, shardStreamName } from '@mdp/usage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEARCH } from './answers.ts';
import { PATIENT_DEADLINES, STACK_SHUTDOWN_MS, type Stack, startStack } from './stack.ts';
import { usedToday } from './usage-read.ts';

// Issue 50's move from one settlement stream for every shard to a stream per shard, on a deployment
// that has the old one: the ledger records what the legacy stream holds (events an older gateway
// published before and during the rollout, while the ledger runs and while it restarts) beside its own
// stream, and nothing is lost or counted twice.

let stack: Stack;
let nc: NatsConnection;

beforeAll(async () => {
  stack = await startStack({ ...PATIENT_DEADLINES });
  nc = await connectNats({
    url: stack.natsUrl,
    name: 'stream-migration-test',
    logger: createLogger('t', 'silent'),
  });
}, 300_000);
afterAll(async () => {
  await nc?.close();
  await stack?.shutdown();
}, STACK_SHUTDOWN_MS);

const used = (token: string) => usedToday(stack.baseUrl, token);

async function usedReaches(token: string, n: number): Promise<number | null> {
  const until = Date.now() + 30_000;
  let last = await used(token);
  while (last !== n && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 200));
    last = await used(token);
  }
  return last;
}

/** `n` charges of `account` as a gateway of before per-shard streams published them: to the legacy stream. */
async function legacyCharges(account: string, n: number): Promise<void> {
  const { USAGE_STREAM: stream, USAGE_SUBJECT: prefix } = stack.usage;
  const js = nc.jetstream();
  for (let i = 0; i < n; i++) {
    const now = Date.now();
    const e: SettlementEvent = {
      v: 1,
      request_id: randomUUID(),
      account_id: account,
      kind: 'charged',
      admitted_at_ms: now,
      settled_at_ms: now,
      route: 'searchStocks',
      status: 200,
      interface: 'rest',
    };
    const ack = await js.publish(LEGACY_STREAM.subject(prefix, 0, 'charged'), JSON.stringify(e), {
      msgID: settlementMsgId(e),
    });
    expect(ack.stream).toBe(stream);
  }
}

describe('settlement streams: from one for every shard to one a shard', () => {
  it("records the legacy stream's charges beside the shard's own stream, before and across a ledger restart", async () => {
    const account = await stack.admin('account', 'create', '--plan', 'load-test');
    const token = await stack.admin('token', 'issue', account);
    for (let i = 0; i < 5; i++) {
      const res = await fetch(`${stack.baseUrl}${SEARCH}`, { headers: { authorization: `Bearer ${token}` } });
      await res.arrayBuffer();
      expect(res.status).toBe(200);
    }
    const jsm = await jetstreamManager(nc);
    const own = await jsm.streams.info(shardStreamName(stack.usage.USAGE_STREAM, 0));
    expect(own.state.messages).toBeGreaterThan(0);
    expect(await usedReaches(token, 5)).toBe(5);

    // An older gateway's legacy stream appears with charges in it: the running ledger finds it.
    await ensureStream(nc, LEGACY_STREAM.spec(stack.usage.USAGE_STREAM, stack.usage.USAGE_SUBJECT));
    await legacyCharges(account, 7);
    expect(await usedReaches(token, 12)).toBe(12);

    // More arrive while the ledger restarts: recorded once it is back, and nothing twice.
    await stack.stop('quota-ledger');
    await legacyCharges(account, 4);
    await stack.start('quota-ledger');
    expect(await usedReaches(token, 16)).toBe(16);
    // The restarted shard may answer 503 (Retry-After, nothing charged) until the gateway is back on it.
    let status = 0;
    for (const until = Date.now() + 15_000; status !== 200 && Date.now() < until; ) {
      const res = await fetch(`${stack.baseUrl}${SEARCH}`, { headers: { authorization: `Bearer ${token}` } });
      await res.arrayBuffer();
      status = res.status;
      if (status !== 200) await new Promise((r) => setTimeout(r, 200));
    }
    expect(status).toBe(200);
    expect(await usedReaches(token, 17)).toBe(17);
    await new Promise((r) => setTimeout(r, 1_000));
    expect(await used(token)).toBe(17);
  }, 120_000);
});
