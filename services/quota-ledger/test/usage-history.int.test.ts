import { randomBytes, randomUUID } from 'node:crypto';
import { dropSchema, type Pool } from '@mdp/db';
import { createClient, status, type TypedClient } from '@mdp/grpc';
import { connectNats, deleteStreamFamily, type NatsConnection } from '@mdp/nats';
import { ledger } from '@mdp/proto';
import { createLogger, createRegistry, grpcClientMetrics, trace } from '@mdp/telemetry';
import { type SettlementEvent, settlementMsgId, settlementSubject } from '@mdp/usage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccountBook } from '../src/admission/account-book.ts';
import { chargedCounts } from '../src/admission/charged-counts.ts';
import { createShard, type ShardDeps } from '../src/admission/shard.ts';
import { buildApp } from '../src/app.ts';
import { assembleLedger, type Ledger } from '../src/ledger.ts';
import { openRecorder } from '../src/settlement/projections.ts';
import { DATABASE_URL, ledgerPool } from './ledger-db.ts';
import { shardDeps } from './shard-deps.ts';

const NATS_URL = process.env.NATS_URL ?? 'nats://localhost:4222';
const tag = randomBytes(5).toString('hex');
const schema = `ledger_hist_${tag}`;
const stream = `USAGE_HIST_${tag.toUpperCase()}`;
const prefix = `usage_hist_${tag}`;
const logger = createLogger('test', 'silent');
const account: string = randomUUID();

// 00:40 IST on 15 March: the IST day and its first IST hour began at 18:30Z.
const NOW = Date.parse('2026-03-14T19:10:00Z');

let pool: Pool;
let recorder: Pool;
let nc: NatsConnection;
let assembled: Ledger;
let client: TypedClient<typeof ledger.QuotaLedgerServiceService>;
const cleanup: (() => Promise<unknown> | unknown)[] = [];

const event = (
  id: string,
  kind: SettlementEvent['kind'],
  at: string,
  route = 'getStockQuote',
  extra: Partial<SettlementEvent> = {},
): SettlementEvent => ({
  v: 1,
  request_id: `${tag}-${id}`,
  account_id: account,
  kind,
  admitted_at_ms: Date.parse(at),
  settled_at_ms: Date.parse(at) + 20,
  route,
  status: kind === 'charged' ? 200 : kind === 'voided' ? 200 : 404,
  ...extra,
});

const EVENTS: SettlementEvent[] = [
  // Today (15 March IST).
  event('a1', 'charged', '2026-03-14T18:45:00Z'),
  event('a2', 'charged', '2026-03-14T19:05:00Z', 'getStockQuote', { interface: 'mcp' }),
  event('a3', 'charged', '2026-03-14T19:06:00Z', 'searchStocks'),
  event('a3', 'voided', '2026-03-14T19:06:00Z', 'searchStocks'),
  event('a4', 'refunded', '2026-03-14T19:07:00Z', 'searchStocks'),
  // Yesterday (14 March IST), some in the hourly window.
  event('b1', 'charged', '2026-03-14T18:10:00Z', 'getOptionChain'),
  event('b2', 'charged', '2026-03-14T10:00:00Z'),
  event('b3', 'charged', '2026-03-14T10:30:00Z'),
  event('b3', 'voided', '2026-03-14T10:30:00Z'),
  // A void that arrives before its charge still reverses it.
  event('b4', 'voided', '2026-03-14T11:00:00Z'),
  event('b4', 'charged', '2026-03-14T11:00:00Z'),
  event('b5', 'refunded', '2026-03-14T12:00:00Z'),
  // 00:30 IST on 14 March: that day, but before the 24 hours.
  event('c1', 'charged', '2026-03-13T19:00:00Z', 'getIndices'),
  // In the 30 days but another month; then one day before the 30.
  event('c2', 'charged', '2026-02-20T06:00:00Z', 'getIndices'),
  event('c3', 'charged', '2026-02-13T06:00:00Z', 'getIndices'),
  // Another account in the same hour.
  { ...event('o1', 'charged', '2026-03-14T19:01:00Z'), account_id: randomUUID() },
];

async function publish(e: SettlementEvent) {
  await nc
    .jetstream()
    .publish(settlementSubject(prefix, 0, e.kind), JSON.stringify(e), { msgID: settlementMsgId(e) });
}

async function waitFor(what: string, probe: () => Promise<boolean>, ms = 10_000) {
  const until = Date.now() + ms;
  while (!(await probe())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function history(accountId = account) {
  const doc = await client.call.getUsageHistory({ account_id: accountId });
  return JSON.parse(doc.data_json.toString());
}

async function listen(server: ReturnType<typeof buildApp>) {
  const port = await server.listen('127.0.0.1', 0);
  cleanup.push(() => server.shutdown(500));
  return `127.0.0.1:${port}`;
}

function connect(address: string) {
  const c = createClient(ledger.QuotaLedgerServiceService, address, {
    target: 'quota-ledger',
    metrics: grpcClientMetrics(createRegistry('client')),
    defaultDeadlineMs: 5_000,
  });
  cleanup.push(() => c.close());
  return c;
}

/** A client of a shard of its own over the test's schema, caught up and owning every account unless `o` says. */
async function shardServer(o: Partial<ShardDeps>) {
  const deps = shardDeps(pool, () => NOW, { logger, ...o });
  const { tracer, registry } = deps;
  return connect(
    await listen(buildApp({ logger, tracer, registry, shard: createShard(deps), clock: () => NOW })),
  );
}

beforeAll(async () => {
  pool = await ledgerPool(schema, 'usage-history-test', 4);
  nc = await connectNats({ url: NATS_URL, name: 'usage-history-test', logger });
  recorder = openRecorder({ url: DATABASE_URL, schema, applicationName: 'usage-history-test-recorder' });
  assembled = await assembleLedger({
    pool,
    recorder,
    nc,
    stream,
    subjectPrefix: prefix,
    shard: 0,
    shardCount: 1,
    holder: 'test',
    holdTtlMs: 30_000,
    retentionDays: 1,
    clock: () => NOW,
    logger,
    tracer: trace.getTracer('t'),
    registry: createRegistry('quota-ledger'),
  });
  await assembled.catchingUp;
  client = connect(await listen(assembled.server));
  for (const e of EVENTS) await publish(e);
  await waitFor('every event recorded', async () => {
    const { rows } = await pool.query('SELECT count(*)::int AS n FROM usage_events');
    return rows[0].n === EVENTS.length;
  });
  await assembled.consumer.idle();
});

afterAll(async () => {
  for (const c of cleanup.reverse()) await c();
  await assembled?.close();
  await deleteStreamFamily(nc, stream).catch(() => {});
  await nc?.close();
  await pool?.end();
  await recorder?.end();
  await dropSchema(DATABASE_URL, schema);
});

describe('GetUsageHistory', () => {
  it('counts charged, not voided requests per IST day over 30 days, zero-filled, ending today', async () => {
    const doc = await history();
    expect(doc.days).toHaveLength(30);
    expect(doc.days[0].day).toBe('2026-02-14');
    expect(doc.days[29]).toEqual({ day: '2026-03-15', units: 2 });
    expect(doc.days[28]).toEqual({ day: '2026-03-14', units: 3 });
    expect(doc.days.find((d: { day: string }) => d.day === '2026-02-20').units).toBe(1);
    expect(doc.days.reduce((s: number, d: { units: number }) => s + d.units, 0)).toBe(6);
    expect(doc.by_interface_days[29]).toEqual({ day: '2026-03-15', by_interface: { rest: 1, mcp: 1 } });
  });

  it('counts them per IST clock hour of admission over the last 24 hours, ending with the current one', async () => {
    const doc = await history();
    expect(doc.hours).toHaveLength(24);
    expect(doc.hours[0].hour).toBe('2026-03-13T19:30:00Z');
    // 00:00-01:00 IST on 15 March (a1 and a2; a3 was voided); the hour before it ends 14 March (b1).
    expect(doc.hours[23]).toEqual({ hour: '2026-03-14T18:30:00Z', units: 2 });
    expect(doc.hours[22]).toEqual({ hour: '2026-03-14T17:30:00Z', units: 1 });
    expect(doc.hours[14]).toEqual({ hour: '2026-03-14T09:30:00Z', units: 1 });
    expect(doc.hours.reduce((s: number, h: { units: number }) => s + h.units, 0)).toBe(4);
  });

  it('counts them per route in the current IST day and month', async () => {
    expect((await history()).by_route).toEqual({
      day: { getStockQuote: 2 },
      month: { getStockQuote: 2 + 1, getIndices: 1, getOptionChain: 1 },
    });
  });

  it("agrees with getUsage's figures once the consumer has caught up and nothing is in flight", async () => {
    const usage = JSON.parse(
      (
        await client.call.getUsage({
          account: { account_id: account, plan: 'free', daily_cap: 100, monthly_cap: 1000 },
          lease_charges: undefined,
        })
      ).data_json.toString(),
    );
    const doc = await history();
    expect(usage.day.period).toBe('2026-03-15');
    expect(doc.days[29].units).toBe(usage.day.used);
    expect(doc.by_interface_days[29].by_interface).toEqual(usage.day.by_interface);
    const monthRoutes = Object.values(doc.by_route.month as Record<string, number>);
    expect(monthRoutes.reduce((s, n) => s + n, 0)).toBe(usage.month.used);
  });

  it('is all zeros for an account without events', async () => {
    const doc = await history(`nobody-${tag}`);
    expect(doc.days.every((d: { units: number }) => d.units === 0)).toBe(true);
    expect(doc.hours.every((h: { units: number }) => h.units === 0)).toBe(true);
    expect(doc.by_route).toEqual({ day: {}, month: {} });
  });

  it('rejects a missing or oversized account id', async () => {
    for (const account_id of ['', 'x'.repeat(129)]) {
      await expect(client.call.getUsageHistory({ account_id })).rejects.toMatchObject({
        code: status.INVALID_ARGUMENT,
      });
    }
  });

  it('answers UNAVAILABLE while the shard is catching up', async () => {
    const c = await shardServer({ caughtUp: () => false });
    await expect(c.call.getUsageHistory({ account_id: account })).rejects.toMatchObject({
      code: status.UNAVAILABLE,
    });
  });
});

describe('GetUsage of a leased account', () => {
  const caps = { daily: 100, monthly: 1000, burst: 60 };
  /** A book with `leased` admitted once by the shard (held), then leased to stream 1. */
  function leasedBook(leased: string) {
    const book = new AccountBook(30_000, () => 0);
    book.loaded(leased, chargedCounts(NOW), NOW);
    book.askedOn(leased, 1, NOW, 2_000);
    book.admit(`${tag}-${leased}-1`, leased, caps, NOW);
    const grant = book.grant(leased, caps, 1, NOW, 2_000);
    expect(grant).not.toBeNull();
    return { book, leaseId: grant!.leaseId };
  }
  const usageOf = (
    c: Awaited<ReturnType<typeof shardServer>>,
    accountId: string,
    lease?: ledger.LeaseCharges,
  ) =>
    c.call.getUsage({
      account: { account_id: accountId, plan: 'free', daily_cap: caps.daily, monthly_cap: caps.monthly },
      lease_charges: lease,
    });

  it('answers UNAVAILABLE, not a count that may leave out 200s, when the stream is not recorded up to the read in time', async () => {
    const leased = randomUUID();
    const { book } = leasedBook(leased);
    let waited = 0;
    const c = await shardServer({
      book,
      leaseMs: 2_000,
      recordedPast: async (ms) => {
        waited = ms;
        throw new Error('the usage stream is not recorded up to the read yet');
      },
    });
    await expect(usageOf(c, leased)).rejects.toMatchObject({ code: status.UNAVAILABLE });
    expect(waited).toBeGreaterThan(0);
  });

  it('read through the lease holder, waits only for the charges it names; a lease that is not the one out waits for the whole stream', async () => {
    const leased = randomUUID();
    const { book, leaseId } = leasedBook(leased);
    const waits: string[] = [];
    const registry = createRegistry('shard');
    const reads = async (wait: string, outcome: string) =>
      ((await registry.getSingleMetric('ledger_reads_of_usage_total')?.get())?.values ?? []).find(
        (v) => v.labels.wait === wait && v.labels.outcome === outcome,
      )?.value ?? 0;
    const c = await shardServer({
      book,
      registry,
      leaseMs: 2_000,
      recordedPast: async () => {
        waits.push('stream');
        throw new Error('the usage stream is not recorded up to the read yet');
      },
      recordedTo: async (positions) => {
        waits.push(positions.map((p) => `${p.stream}:${p.seq}`).join(','));
      },
    });
    const charged = [{ stream: 'USAGE_S0', seq: 42 }];
    const doc = JSON.parse((await usageOf(c, leased, { lease_id: leaseId, charged })).data_json.toString());
    // The shard's own admission is held here and counts; the allotment out on the lease does not.
    expect(doc.day.used).toBe(1);
    expect(waits).toEqual(['USAGE_S0:42']);
    await expect(usageOf(c, leased, { lease_id: `${leaseId}-gone`, charged })).rejects.toMatchObject({
      code: status.UNAVAILABLE,
    });
    expect(waits).toEqual(['USAGE_S0:42', 'stream']);
    // A read naming more streams than a lease's charges can go to is refused, naming the field.
    const tooMany = Array.from({ length: 9 }, (_, i) => ({ stream: `USAGE_S${i}`, seq: 1 }));
    await expect(usageOf(c, leased, { lease_id: leaseId, charged: tooMany })).rejects.toMatchObject({
      code: status.INVALID_ARGUMENT,
      details: expect.stringContaining('at most 8 streams'),
    });
    await expect(usageOf(c, leased, { lease_id: 'x'.repeat(129), charged: [] })).rejects.toMatchObject({
      code: status.INVALID_ARGUMENT,
    });
    expect(waits).toEqual(['USAGE_S0:42', 'stream']);
    // Operators see which wait each read made, and which ran out of time.
    expect(await reads('lease', 'answered')).toBe(1);
    expect(await reads('stream', 'lagging')).toBe(1);
    expect(await reads('stream', 'answered')).toBe(0);
  });
});
