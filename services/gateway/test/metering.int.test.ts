import { RpcError } from '@mdp/grpc';
import { connectNats } from '@mdp/nats';
import { systemClock } from '@mdp/nse-calendar';
import { createLogger, createRegistry } from '@mdp/telemetry';
import { newRequestId, settlementMsgId, settlementSubject } from '@mdp/usage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../src/authenticator.ts';
import { LedgerShards } from '../src/ledger-shards.ts';
import { type Admission, AdmissionClient } from '../src/metering/admission.ts';
import {
  DEFINITIONS,
  echoImpl,
  NATS_URL,
  type RunningServices,
  startGateway,
  startServices,
  type TestGateway,
} from './harness.ts';

/** The ledger's clock: tests move it to cross IST boundaries and burst windows. */
let now = Date.parse('2026-03-14T10:00:00Z');
const clock = () => now;

let services: RunningServices;
let gw: TestGateway;

beforeAll(async () => {
  services = await startServices({
    ledgerClock: clock,
    impls: {
      equities: {
        ...echoImpl(DEFINITIONS.equities),
        getStockQuote: async ({ symbol }: { symbol: string }) => {
          if (symbol === 'MISSING') throw RpcError.notFound('unknown symbol');
          if (symbol === 'BROKEN') throw new Error('disk on fire');
          return echoImpl(DEFINITIONS.equities).getStockQuote({ symbol }, {} as never);
        },
      },
    },
  });
  // Long deadlines: this file is about exact counts when 1,500 requests arrive at once, not latency.
  gw = await startGateway(services, { admissionDeadlineMs: 10_000, authDeadlineMs: 5_000 });
});
afterAll(async () => {
  await gw.close();
  await services.stop();
});

async function tokenOn(
  plan: string,
  caps?: { daily: number | null; monthly: number | null; burst?: number },
) {
  if (caps) await services.store.createPlan(plan, { burst: 60, ...caps });
  const account = await services.store.createAccount(plan);
  const { token } = await services.store.issueToken(account);
  return { account, token };
}

const get = (token: string, url = '/v1/stocks/TCS/quote') =>
  gw.inject({ method: 'GET', url, anonymous: true, headers: { authorization: `Bearer ${token}` } });

async function usage(token: string) {
  await services.ledgerIdle();
  const res = await get(token, '/v1/me/usage');
  expect(res.statusCode).toBe(200);
  return res.json().data;
}

/** Waits until every settlement published so far is recorded by the ledger. */
async function settled(token: string, expectedDay: number) {
  for (let i = 0; i < 100; i++) {
    if ((await usage(token)).day.used === expectedDay) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  expect((await usage(token)).day.used).toBe(expectedDay);
}

describe('quota: exactly the cap, concurrency included', () => {
  it('500 concurrent requests on a fresh free token: exactly 50 200s and 450 quota_exhausted, usage 50', async () => {
    now = Date.parse('2026-03-14T10:00:00Z');
    const { token } = await tokenOn('free');
    const results = await Promise.all(Array.from({ length: 500 }, () => get(token)));
    const ok = results.filter((r) => r.statusCode === 200);
    const refused = results.filter((r) => r.statusCode === 429);
    expect(ok).toHaveLength(50);
    expect(refused).toHaveLength(450);
    for (const r of refused) {
      expect(r.json().error.code).toBe('quota_exhausted');
      expect(r.headers['x-ratelimit-remaining']).toBe('0');
      expect(r.headers['x-ratelimit-limit']).toBe('50');
      expect(r.headers['x-ratelimit-reset']).toBe(String(Date.parse('2026-03-14T18:30:00Z') / 1000));
      expect(Number(r.headers['retry-after'])).toBe(8.5 * 3600);
    }
    // Remaining counts each request itself: every value from 49 down to 0 exactly once.
    const remaining = ok.map((r) => Number(r.headers['x-ratelimit-remaining'])).sort((a, b) => a - b);
    expect(remaining).toEqual(Array.from({ length: 50 }, (_, i) => i));
    for (const r of ok) expect(r.headers['x-ratelimit-limit']).toBe('50');
    await settled(token, 50);
    const doc = await usage(token);
    expect(doc).toEqual({
      plan: 'free',
      day: {
        period: '2026-03-14',
        used: 50,
        limit: 50,
        remaining: 0,
        resets_at: '2026-03-14T18:30:00Z',
        by_interface: { rest: 50, mcp: 0 },
      },
      month: {
        period: '2026-03',
        used: 50,
        limit: null,
        remaining: null,
        resets_at: '2026-03-31T18:30:00Z',
        by_interface: { rest: 50, mcp: 0 },
      },
    });
  });

  it('errors and free routes leave usage unchanged', async () => {
    const { token } = await tokenOn('pro');
    expect((await get(token)).statusCode).toBe(200);
    for (const url of [
      '/v1/stocks/MISSING/quote',
      '/v1/stocks/BROKEN/quote',
      '/v1/stocks/TCS/quote?bogus=1',
      '/v1/me/usage',
      '/v1/openapi.json',
    ]) {
      const res = await get(token, url);
      expect(res.statusCode, url).not.toBe(200 === res.statusCode && url.includes('quote') ? 200 : -1);
    }
    await settled(token, 1);
    expect((await usage(token)).day.used).toBe(1);
    // A 404 after admission carries no rate-limit headers (SPEC: 200 and 429 only).
    expect((await get(token, '/v1/stocks/MISSING/quote')).headers['x-ratelimit-limit']).toBeUndefined();
  });
});

describe("the usage read's rate-limit headers (SPEC 8: on every 200)", () => {
  const usageRead = async (token: string) => {
    await services.ledgerIdle();
    const res = await get(token, '/v1/me/usage');
    expect(res.statusCode).toBe(200);
    const h = res.headers;
    return {
      doc: res.json().data,
      headers: {
        limit: h['x-ratelimit-limit'],
        remaining: h['x-ratelimit-remaining'],
        reset: h['x-ratelimit-reset'],
      },
      policy: h['ratelimit-policy'],
      current: h.ratelimit,
    };
  };

  it('name the binding window at what was charged, taking nothing for the read itself', async () => {
    now = Date.parse('2026-03-18T11:00:00Z');
    const dayReset = String(Date.parse('2026-03-18T18:30:00Z') / 1000);
    const { token } = await tokenOn('usage-headers-daily', { daily: 5, monthly: 100 });
    let last: Awaited<ReturnType<typeof get>> | undefined;
    for (let i = 0; i < 3; i++) last = await get(token);
    expect(last!.statusCode).toBe(200);
    await settled(token, 3);
    const first = await usageRead(token);
    // What the last metered 200 said, and what the document says: two left today.
    expect(first.headers).toEqual({ limit: '5', remaining: '2', reset: dayReset });
    expect(last!.headers['x-ratelimit-remaining']).toBe('2');
    expect(last!.headers['x-ratelimit-reset']).toBe(dayReset);
    expect(first.doc.day).toMatchObject({ used: 3, remaining: 2 });
    // The plan's policies as the metered 200 named them; the binding window's remaining as the document's.
    expect(first.policy).toBe(last!.headers['ratelimit-policy']);
    expect(first.current).toMatch(/^"daily";r=2;t=\d+$/);
    // Free: a second read says the same.
    expect((await usageRead(token)).headers).toEqual(first.headers);

    for (let i = 0; i < 3; i++) last = await get(token);
    expect(last!.statusCode).toBe(429);
    await settled(token, 5);
    expect((await usageRead(token)).headers).toEqual({ limit: '5', remaining: '0', reset: dayReset });
  });

  it('the month when it leaves less headroom; an unlimited plan says only when the day resets', async () => {
    now = Date.parse('2026-03-19T11:00:00Z');
    const { token } = await tokenOn('usage-headers-monthly', { daily: 50, monthly: 4 });
    expect((await get(token)).statusCode).toBe(200);
    await settled(token, 1);
    expect((await usageRead(token)).headers).toEqual({
      limit: '4',
      remaining: '3',
      reset: String(Date.parse('2026-03-31T18:30:00Z') / 1000),
    });
    const unlimited = await tokenOn('usage-headers-unlimited', { daily: null, monthly: null });
    expect((await usageRead(unlimited.token)).headers).toEqual({
      limit: undefined,
      remaining: undefined,
      reset: String(Date.parse('2026-03-19T18:30:00Z') / 1000),
    });
  });
});

describe('burst cap', () => {
  it('100 requests in 10 s on a paid token: 60 200s and 40 rate_limited; the 61st gets in when the first leaves', async () => {
    const t0 = Date.parse('2026-03-16T05:00:00Z');
    const { token } = await tokenOn('pro');
    const codes: number[] = [];
    let lastRefusal: Awaited<ReturnType<typeof get>> | undefined;
    for (let i = 0; i < 100; i++) {
      now = t0 + i * 100;
      const res = await get(token);
      codes.push(res.statusCode);
      if (res.statusCode === 429) {
        expect(res.json().error.code).toBe('rate_limited');
        lastRefusal = res;
      }
    }
    expect(codes.filter((c) => c === 200)).toHaveLength(60);
    expect(codes.filter((c) => c === 429)).toHaveLength(40);
    expect(codes.slice(0, 60).every((c) => c === 200)).toBe(true);
    // Refused at t0 + 9.9 s; the first admission (t0) leaves the window at t0 + 60 s.
    expect(lastRefusal!.headers['retry-after']).toBe('51');
    // The message carries the value, not the header's name.
    expect(lastRefusal!.json().error.message).toBe(
      'burst cap of 60 requests a minute reached; retry in 51 s',
    );
    expect(lastRefusal!.headers['x-ratelimit-remaining']).toBe('4940');
    now = t0 + 59_999;
    expect((await get(token)).statusCode).toBe(429);
    now = t0 + 60_000;
    expect((await get(token)).statusCode).toBe(200);
    await settled(token, 61);
  });

  it('holds under concurrent load: 10 tokens × 150 requests (149 at once), exactly 60 admitted per token', async () => {
    now = Date.parse('2026-03-18T05:00:00Z');
    const tokens = await Promise.all(Array.from({ length: 10 }, () => tokenOn('pro')));
    // One request each first, so the burst below tests admission rather than token verification.
    for (const { token } of tokens) expect((await get(token)).statusCode).toBe(200);
    const results = await Promise.all(
      tokens.flatMap(({ token }) =>
        Array.from({ length: 149 }, async () => ({ token, res: await get(token) })),
      ),
    );
    for (const { token } of tokens) {
      const mine = results.filter((r) => r.token === token);
      expect(mine.filter((r) => r.res.statusCode === 200)).toHaveLength(59);
      expect(
        mine.filter((r) => r.res.statusCode === 429 && r.res.json().error.code === 'rate_limited'),
      ).toHaveLength(90);
    }
  });

  it('a refusal by one limit consumes nothing in the others', async () => {
    now = Date.parse('2026-03-17T05:00:00Z');
    const { token } = await tokenOn('pro');
    for (let i = 0; i < 60; i++) expect((await get(token)).statusCode).toBe(200);
    for (let i = 0; i < 30; i++) expect((await get(token)).statusCode).toBe(429);
    await settled(token, 60);
    expect((await usage(token)).day.remaining).toBe(5000 - 60);
  });
});

describe('IST windows with the ledger clock', () => {
  it('the day resets at 18:30:00Z: refused at 18:29:59Z, admitted at 18:30:00Z', async () => {
    const { token } = await tokenOn('tiny_day', { daily: 3, monthly: null });
    now = Date.parse('2026-04-02T18:29:50Z');
    for (let i = 0; i < 3; i++) expect((await get(token)).statusCode).toBe(200);
    // Moving the clock past the holds' lifetime: only recorded charges count from here.
    await settled(token, 3);
    now = Date.parse('2026-04-02T18:29:59Z');
    const refused = await get(token);
    expect(refused.statusCode).toBe(429);
    expect(refused.json().error.code).toBe('quota_exhausted');
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.headers['x-ratelimit-reset']).toBe(String(Date.parse('2026-04-02T18:30:00Z') / 1000));
    expect(refused.json().error.message).toBe('plan quota used up; it resets at 2026-04-02T18:30:00Z');
    now = Date.parse('2026-04-02T18:30:00Z');
    const admitted = await get(token);
    expect(admitted.statusCode).toBe(200);
    expect(admitted.headers['x-ratelimit-remaining']).toBe('2');
    await services.ledgerIdle();
    const doc = await usage(token);
    expect(doc.day).toMatchObject({ period: '2026-04-03', limit: 3 });
  });

  it('the month rolls over at 18:30Z on the last UTC day of the month', async () => {
    const { token } = await tokenOn('tiny_month', { daily: null, monthly: 2 });
    now = Date.parse('2026-01-31T18:00:00Z');
    expect((await get(token)).statusCode).toBe(200);
    expect((await get(token)).statusCode).toBe(200);
    await settled(token, 2);
    now = Date.parse('2026-01-31T18:29:59Z');
    const refused = await get(token);
    expect(refused.json().error.code).toBe('quota_exhausted');
    expect(refused.headers['x-ratelimit-reset']).toBe(String(Date.parse('2026-01-31T18:30:00Z') / 1000));
    now = Date.parse('2026-01-31T18:30:00Z');
    expect((await get(token)).statusCode).toBe(200);
    await settled(token, 1);
    expect((await usage(token)).month).toMatchObject({ period: '2026-02', used: 1, limit: 2, remaining: 1 });
  });

  it('the headers switch to the monthly window when it leaves less headroom', async () => {
    const { token } = await tokenOn('tight_month', { daily: 10, monthly: 12 });
    now = Date.parse('2026-05-10T06:00:00Z');
    const first = await get(token);
    expect(first.headers['x-ratelimit-limit']).toBe('10');
    expect(first.headers['x-ratelimit-remaining']).toBe('9');
    expect(first.headers['x-ratelimit-reset']).toBe(String(Date.parse('2026-05-10T18:30:00Z') / 1000));
    for (let i = 0; i < 4; i++) expect((await get(token)).statusCode).toBe(200);
    // A day later every hold has expired: the month's headroom is what the ledger has recorded.
    await settled(token, 5);
    now = Date.parse('2026-05-11T06:00:00Z');
    // Next day: daily headroom 10, monthly 12 - 5 = 7 → the month binds.
    const next = await get(token);
    expect(next.headers['x-ratelimit-limit']).toBe('12');
    expect(next.headers['x-ratelimit-remaining']).toBe('6');
    expect(next.headers['x-ratelimit-reset']).toBe(String(Date.parse('2026-05-31T18:30:00Z') / 1000));
  });

  it('unlimited plans get X-RateLimit-Reset only', async () => {
    now = Date.parse('2026-05-12T06:00:00Z');
    const { token } = await tokenOn('unlimited');
    const res = await get(token);
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-ratelimit-limit']).toBeUndefined();
    expect(res.headers['x-ratelimit-remaining']).toBeUndefined();
    expect(res.headers['x-ratelimit-reset']).toBe(String(Date.parse('2026-05-12T18:30:00Z') / 1000));
  });
});

describe('settlement events', () => {
  it('duplicated, re-delivered and re-ordered events change nothing; poison is skipped', async () => {
    now = Date.parse('2026-06-01T06:00:00Z');
    const { token, account } = await tokenOn('pro');
    expect((await get(token)).statusCode).toBe(200);
    await settled(token, 1);
    const nc = await connectNats({ url: NATS_URL, name: 'dup-test', logger: createLogger('t', 'silent') });
    const js = nc.jetstream();
    const base = {
      v: 1,
      account_id: account,
      admitted_at_ms: now,
      settled_at_ms: now,
      route: 'getStockQuote',
      status: 200,
    };
    const pub = (e: Record<string, unknown>, msgID: string) =>
      js.publish(settlementSubject(services.usageSubject, 0, e.kind as 'charged'), JSON.stringify(e), {
        msgID,
      });
    // A charge published three times under different message ids (as a re-delivery after the dedupe window).
    const charged = { ...base, request_id: 'req-dup-1', kind: 'charged' };
    for (const id of ['a', 'b', 'c']) await pub(charged, `req-dup-1-${id}`);
    // Re-ordered: the void of req-dup-2 arrives before its charge; the net is nothing.
    await pub(
      { ...base, request_id: 'req-dup-2', kind: 'voided' },
      settlementMsgId({ request_id: 'req-dup-2', account_id: account, kind: 'voided' }),
    );
    await pub({ ...base, request_id: 'req-dup-2', kind: 'charged' }, 'req-dup-2');
    // Poison: not JSON, and JSON that is not an event.
    await js.publish(settlementSubject(services.usageSubject, 0, 'charged'), 'not json {', {
      msgID: 'poison-1',
    });
    await js.publish(settlementSubject(services.usageSubject, 0, 'charged'), JSON.stringify({ v: 9 }), {
      msgID: 'poison-2',
    });
    // A refund for a request already charged does not undo it.
    await pub({ ...base, request_id: 'req-dup-1', kind: 'refunded', status: 500 }, 'req-dup-1-refund');
    await nc.drain();
    await settled(token, 2);
    expect((await usage(token)).day.used).toBe(2);
    // And the consumer is still alive after the poison.
    expect((await get(token)).statusCode).toBe(200);
    await settled(token, 3);
  });

  it('re-recording a batch already recorded changes nothing (the log is keyed by request, account and kind)', async () => {
    const ACCT_REPLAY = '7c9e6679-7425-40de-944b-e07fc1f90ae7';
    const ACCT_REPLAY_2 = '7c9e6679-7425-40de-944b-e07fc1f90ae8';
    const event = {
      v: 1 as const,
      request_id: 'replayed-1',
      account_id: ACCT_REPLAY,
      kind: 'charged' as const,
      admitted_at_ms: Date.parse('2026-06-02T00:00:00Z'),
      settled_at_ms: Date.parse('2026-06-02T00:00:01Z'),
      route: 'getStockQuote',
      status: 200,
    };
    const first = await services.projections.record([event, event]);
    const again = await services.projections.record([event]);
    expect(first.recorded).toBe(1);
    expect(first.deltas).toEqual([
      { accountId: ACCT_REPLAY, day: '2026-06-02', month: '2026-06', via: 'rest', delta: 1 },
    ]);
    expect(again).toEqual({ recorded: 0, late: 0, deltas: [] });
    // The same request id in another account is another request: recorded and charged to that account.
    const other = await services.projections.record([{ ...event, account_id: ACCT_REPLAY_2 }]);
    expect(other).toEqual({
      recorded: 1,
      late: 0,
      deltas: [{ accountId: ACCT_REPLAY_2, day: '2026-06-02', month: '2026-06', via: 'rest', delta: 1 }],
    });
    // And its void reverses its own charge only.
    const voided = await services.projections.record([
      { ...event, account_id: ACCT_REPLAY_2, kind: 'voided' },
    ]);
    expect(voided.deltas).toEqual([
      { accountId: ACCT_REPLAY_2, day: '2026-06-02', month: '2026-06', via: 'rest', delta: -1 },
    ]);
    expect(
      await services.projections.settled([
        { requestId: 'replayed-1', accountId: ACCT_REPLAY, admittedAtMs: event.admitted_at_ms },
      ]),
    ).toEqual(new Set([`${ACCT_REPLAY}/replayed-1`]));
    expect(
      await services.projections.settled([
        {
          requestId: 'replayed-1',
          accountId: '00000000-0000-4000-8000-00000000dead',
          admittedAtMs: event.admitted_at_ms,
        },
      ]),
    ).toEqual(new Set());
  });

  it('a rebuild of the projections from the event log equals the live ones', async () => {
    await services.ledgerIdle();
    expect(await services.projections.rebuildDifferences()).toEqual([]);
  });
});

describe('a 200 whose charge JetStream did not acknowledge in time (the client got a 503, a void follows)', () => {
  // The gateway's side as Metering.charge runs it when JetStream did not acknowledge the charge: the shard
  // is told on the admission stream before the 503 goes out; the charge may land in the log before or
  // after that, then the void.
  let admission: AdmissionClient;
  let caller: Principal;
  let token: string;
  let nc: Awaited<ReturnType<typeof connectNats>>;
  beforeAll(async () => {
    now = Date.parse('2026-07-01T06:00:00Z');
    const made = await tokenOn('pro');
    token = made.token;
    caller = {
      tokenId: 'void-test',
      accountId: made.account,
      plan: 'pro',
      dailyCap: null,
      monthlyCap: null,
      expiresAtMs: null,
      burstPerMinute: null,
    };
    admission = new AdmissionClient({
      shards: new LedgerShards(services.addresses.ledger),
      deadlineMs: 10_000,
      logger: createLogger('void-test', 'silent'),
      registry: createRegistry('void-test'),
      clock: systemClock,
    });
    nc = await connectNats({ url: NATS_URL, name: 'void-test', logger: createLogger('t', 'silent') });
  });
  afterAll(async () => {
    admission.close();
    await nc.drain();
  });

  const publish = async (a: Admission, kind: 'charged' | 'voided') => {
    const event = {
      v: 1,
      request_id: a.requestId,
      account_id: a.accountId,
      kind,
      admitted_at_ms: a.admittedAtMs,
      settled_at_ms: now,
      route: 'getStockQuote',
      status: 200,
      interface: 'rest',
    };
    await nc
      .jetstream()
      .publish(settlementSubject(services.usageSubject, a.shard, kind), JSON.stringify(event), {
        msgID: settlementMsgId(event),
      });
    // Until the ledger has recorded it (an acknowledged publish may not be delivered yet).
    const key = [{ requestId: a.requestId, accountId: a.accountId, admittedAtMs: a.admittedAtMs }];
    const recorded = async () =>
      kind === 'charged'
        ? (await services.projections.settled(key)).size === 1
        : (await services.projections.chargedNotVoided(key)).size === 0;
    for (let i = 0; i < 200 && !(await recorded()); i++) await new Promise((r) => setTimeout(r, 25));
    expect(await recorded(), `the ${kind} event is recorded`).toBe(true);
    await services.ledgerIdle();
  };
  /** Usage as the client reads it: every 200 it got, and nothing of the 503. */
  const used = async () => (await usage(token)).day.used as number;
  /** A 200 charged the ordinary way, so the count has something to stay exact around. */
  const served = async () => {
    expect((await get(token)).statusCode).toBe(200);
  };

  it('its charge recorded after the 503 is not counted, before or after its void', async () => {
    await served();
    await settled(token, 1);
    const a = await admission.admit(newRequestId(), caller, 'rest', undefined);
    expect(await used()).toBe(2); // held: in flight
    await admission.voidCharge(a);
    expect(await used()).toBe(1);
    await publish(a, 'charged');
    expect(await used()).toBe(1);
    await publish(a, 'voided');
    expect(await used()).toBe(1);
    await served();
    await settled(token, 2);
  });

  it('its charge recorded before the 503 (a late acknowledgement) stops counting at once', async () => {
    const a = await admission.admit(newRequestId(), caller, 'rest', undefined);
    await publish(a, 'charged');
    expect(await used()).toBe(3);
    await admission.voidCharge(a);
    expect(await used()).toBe(2);
    await publish(a, 'voided');
    expect(await used()).toBe(2);
    await served();
    await settled(token, 3);
  });
});
