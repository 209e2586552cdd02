import { Metadata } from '@grpc/grpc-js';
import { connectNats, type NatsConnection } from '@mdp/nats';
import { systemClock } from '@mdp/nse-calendar';
import type { ledger } from '@mdp/proto';
import { createRegistry } from '@mdp/telemetry';
import { BATCH_VERSIONS_KEY, BATCH_VERSIONS_READ, shardStreamName } from '@mdp/usage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../src/authenticator.ts';
import { LedgerShards } from '../src/ledger-shards.ts';
import { AdmissionClient } from '../src/metering/admission.ts';
import {
  admittedResponse,
  metricValue,
  NATS_URL,
  type RunningServices,
  releasedResponse,
  scriptedShard,
  silentLogger,
  startGateway,
  startServices,
  type TestGateway,
} from './harness.ts';

// A busy gateway's charges go to JetStream as compact batches (about a third of the bytes), but only to
// the stream of a ledger that said it reads them: the format an older ledger would leave out as poison.

let services: RunningServices;
let nc: NatsConnection;

beforeAll(async () => {
  services = await startServices();
  nc = await connectNats({ url: NATS_URL, name: 'compact-batches-test', logger: silentLogger });
});
afterAll(async () => {
  await nc?.drain();
  await services?.stop();
});

interface Message {
  v?: number;
  account_id?: string;
  accounts?: string[];
  events?: unknown[];
}

/** Every settlement message of shard 0's stream that carries a charge of `account`, as stored. */
async function messagesOf(account: string): Promise<Message[]> {
  const jsm = await nc.jetstreamManager();
  const stream = shardStreamName(services.usageStream, 0);
  const { state } = await jsm.streams.info(stream);
  const out: Message[] = [];
  for (let seq = state.first_seq; seq <= state.last_seq; seq++) {
    const m = (await jsm.streams.getMessage(stream, { seq })).json<Message>();
    const v1Batch = m.v === 1 && Array.isArray(m.events);
    const accounts =
      m.accounts ?? (v1Batch ? (m.events as Message[]).map((e) => e.account_id) : [m.account_id]);
    if (accounts.includes(account)) out.push(m);
  }
  return out;
}

const requestIdsOf = (m: Message): string[] =>
  m.v === 2
    ? (m.events as string[][]).map((row) => row[0]!)
    : Array.isArray(m.events)
      ? (m.events as { request_id: string }[]).map((e) => e.request_id)
      : [(m as { request_id: string }).request_id];

/** The gateway's charge messages of `form`, as its /metrics says (`gateway_settlement_messages_total`). */
const messagesOfForm = (gw: TestGateway, form: string) =>
  metricValue(gw.registry, 'gateway_settlement_messages_total', { form });

/** `n` quotes at once on a fresh account of a plan without caps: every one a 200. */
async function busy(gw: TestGateway, n: number): Promise<{ account: string; token: string }> {
  const account = await services.store.createAccount('load-test');
  const { token } = await services.store.issueToken(account);
  const answers = await Promise.all(
    Array.from({ length: n }, () =>
      gw.inject({
        method: 'GET',
        url: '/v1/stocks/TCS/quote',
        anonymous: true,
        headers: { authorization: `Bearer ${token}` },
      }),
    ),
  );
  expect(answers.map((a) => a.statusCode)).toEqual(Array(n).fill(200));
  return { account, token };
}

describe('compact settlement batches', () => {
  it("to a ledger of this release: a busy gateway's charges go compact, and every 200 is recorded once", async () => {
    const gw = await startGateway(services);
    try {
      const { account, token } = await busy(gw, 300);
      const messages = await messagesOf(account);
      const batches = messages.filter((m) => requestIdsOf(m).length > 1);
      expect(batches.length).toBeGreaterThan(0);
      expect(batches.every((m) => m.v === 2)).toBe(true);
      // And operators see it so (the dashboard's "Charge messages by form").
      expect(await messagesOfForm(gw, 'compact')).toBe(batches.length);
      expect(await messagesOfForm(gw, 'v1')).toBe(0);
      const ids = messages.flatMap(requestIdsOf);
      expect(new Set(ids).size).toBe(300);
      expect(ids).toHaveLength(300);
      // As the client reads it: exactly its 200s.
      const read = await gw.inject({
        method: 'GET',
        url: '/v1/me/usage',
        anonymous: true,
        headers: { authorization: `Bearer ${token}` },
      });
      expect(read.statusCode).toBe(200);
      expect(read.json().data.day.used).toBe(300);
    } finally {
      await gw.close();
    }
  });

  it('to a ledger that does not say it reads them (an older release): version 1 batches', async () => {
    const older = admittingShard(() => false);
    const port = await older.listen('127.0.0.1', 0);
    const gw = await startGateway({
      ...services,
      addresses: { ...services.addresses, ledger: [`127.0.0.1:${port}`] },
    });
    try {
      const { account } = await busy(gw, 100);
      const batches = (await messagesOf(account)).filter((m) => requestIdsOf(m).length > 1);
      expect(batches.length).toBeGreaterThan(0);
      expect(batches.every((m) => m.v === 1 && m.accounts === undefined)).toBe(true);
      expect(await messagesOfForm(gw, 'compact')).toBe(0);
      expect(await messagesOfForm(gw, 'v1')).toBe(batches.length);
    } finally {
      await gw.close();
      await older.shutdown(100);
    }
  });

  it("stops writing them the moment its ledger's stream breaks, until a ledger says so again", async () => {
    let says = true;
    const shard = admittingShard(() => says);
    const port = await shard.listen('127.0.0.1', 0);
    const client = new AdmissionClient({
      shards: new LedgerShards([`127.0.0.1:${port}`]),
      deadlineMs: 2_000,
      logger: silentLogger,
      registry: createRegistry('compact-test'),
      clock: systemClock,
      leases: false,
    });
    try {
      expect(client.readsCompact(0)).toBe(false);
      await client.admit('ok-1', caller, 'rest', undefined);
      expect(client.readsCompact(0)).toBe(true);

      // The ledger's process goes (its stream ends): nothing is known of what comes back.
      says = false;
      await expect(client.admit('drop-1', caller, 'rest', undefined)).rejects.toThrow();
      expect(client.readsCompact(0)).toBe(false);
      // What came back is of an older release: it says nothing, and version 1 it stays.
      await waitFor(
        async () =>
          await client.admit('ok-2', caller, 'rest', undefined).then(
            () => true,
            () => false,
          ),
      );
      expect(client.readsCompact(0)).toBe(false);
    } finally {
      client.close();
      await shard.shutdown(100);
    }
  });
});

const caller: Principal = {
  tokenId: 'compact-test',
  accountId: 'a6f0c1d2-0000-4000-8000-00000000c0de',
  plan: 'load-test',
  dailyCap: null,
  monthlyCap: null,
  expiresAtMs: null,
  burstPerMinute: null,
};

/**
 * A shard that admits every request at once and acknowledges every release, saying it reads compact
 * batches when `says()` (as this release's ledger does) or not (an older one), and ends the stream on a
 * request whose id starts with `drop` (its process going away).
 */
function admittingShard(says: () => boolean) {
  return scriptedShard((call) => {
    if (says()) {
      const md = new Metadata();
      md.set(BATCH_VERSIONS_KEY, BATCH_VERSIONS_READ);
      call.sendMetadata(md);
    }
    call.on('data', (batch: ledger.AdmitRequest) => {
      if (batch.admissions.some((a) => a.request_id.startsWith('drop'))) return call.end();
      if (batch.admissions.length > 0) call.write(admittedResponse(batch.admissions));
      if (batch.releases.length > 0) call.write(releasedResponse(batch.releases));
    });
    call.on('end', () => call.end());
  });
}

async function waitFor(ok: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (await ok()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('never came true');
}
