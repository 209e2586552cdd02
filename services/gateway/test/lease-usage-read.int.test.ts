import type { Registry } from '@mdp/telemetry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../../../test/until.ts';
import {
  metricValue,
  type RecordingStall,
  type RunningServices,
  stallRecording,
  startGateway,
  startServices,
  type TestGateway,
} from './harness.ts';

// A usage read of a leased account (docs/proposals/admission-leases.md) must count every 200 already
// sent, and the shard cannot see what a lease's holder admitted. Through the holder, which says where
// its lease's charges are, it waits for those alone; through any other gateway, for everything the
// stream holds. Here Postgres stops recording another account's charge: the holder's read answers at
// once, the other gateway's cannot, and neither ever answers a count without a 200 that was sent.

/** Long enough that the lease taken below is still out at the end of the test. */
const LEASE_MS = 60_000;

let svc: RunningServices;
let holder: TestGateway;
let other: TestGateway;
let stall: RecordingStall | undefined;

beforeAll(async () => {
  svc = await startServices({ leaseMs: LEASE_MS });
  holder = await startGateway(svc);
  other = await startGateway(svc);
  await svc.store.createPlan('lease_read', { daily: 1_000, monthly: null, burst: 1_000_000 });
}, 60_000);
afterAll(async () => {
  await stall?.resume();
  await holder?.close();
  await other?.close();
  await svc?.stop();
}, 30_000);

async function newToken(): Promise<string> {
  return (await svc.store.issueToken(await svc.store.createAccount('lease_read'))).token;
}

const call = async (gw: TestGateway, token: string) =>
  (
    await gw.inject({
      method: 'GET',
      url: '/v1/stocks/TCS/quote',
      anonymous: true,
      headers: { authorization: `Bearer ${token}` },
    })
  ).statusCode;

async function usage(gw: TestGateway, token: string) {
  const res = await gw.inject({
    method: 'GET',
    url: '/v1/me/usage',
    anonymous: true,
    headers: { authorization: `Bearer ${token}` },
  });
  return {
    status: res.statusCode,
    used: res.statusCode === 200 ? (res.json().data.day.used as number) : null,
    retryAfter: res.headers['retry-after'],
  };
}

const leaseEvents = (registry: Registry, event: string) =>
  metricValue(registry, 'gateway_leases_total', { event });
/** Leases the gateway has given back or lost: none means every lease it was granted is still held. */
const leasesEnded = async (gw: TestGateway) =>
  (await leaseEvents(gw.registry, 'returned')) +
  (await leaseEvents(gw.registry, 'recalled')) +
  (await leaseEvents(gw.registry, 'lost'));

describe('a usage read of a leased account', () => {
  it('through the lease holder waits only for its own charges; through another gateway, or with a charge not recorded, it answers 503, never a count short of the 200s sent', async () => {
    const leased = await newToken();
    const busy = await newToken();
    // The first 200 comes with a lease; the three after it are admitted here under it.
    let sent = 0;
    while ((await leaseEvents(holder.registry, 'granted')) === 0 && sent < 20) {
      expect(await call(holder, leased)).toBe(200);
      sent++;
    }
    expect(await leaseEvents(holder.registry, 'granted')).toBe(1);
    for (let i = 0; i < 3; i++) expect(await call(holder, leased)).toBe(200);
    sent += 3;
    expect(await call(holder, busy)).toBe(200);
    expect(await leasesEnded(holder)).toBe(0);
    await svc.ledgerIdle();
    expect(await usage(holder, leased)).toMatchObject({ status: 200, used: sent });

    // From here the ledger records nothing: another account's charge waits in the stream.
    stall = await stallRecording(svc);
    expect(await call(holder, busy)).toBe(200);

    // The holder's charges are all recorded: its read answers, exactly.
    expect(await usage(holder, leased)).toMatchObject({ status: 200, used: sent });
    // Another gateway cannot say where the lease's charges are: it waits for the whole stream, in vain.
    const elsewhere = await usage(other, leased);
    expect(elsewhere.status).toBe(503);
    expect(Number(elsewhere.retryAfter)).toBeGreaterThan(0);

    // One more 200 under the lease, its charge not recorded: the holder's read waits for it, in vain.
    expect(await call(holder, leased)).toBe(200);
    sent++;
    expect(await leasesEnded(holder)).toBe(0);
    const waiting = await usage(holder, leased);
    expect(waiting.status).toBe(503);
    expect(Number(waiting.retryAfter)).toBeGreaterThan(0);

    // Recording resumes: the first count either gateway answers is every 200.
    await stall.resume();
    for (const gw of [holder, other]) {
      const read = await until('a usage read to answer', async () => {
        const r = await usage(gw, leased);
        return r.status === 200 ? r : null;
      });
      expect(read.used).toBe(sent);
    }
  }, 60_000);
});
