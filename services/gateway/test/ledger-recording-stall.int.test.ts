import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DATABASE_URL,
  type RecordingStall,
  type RunningServices,
  stallRecording,
  startGateway,
  startServices,
  type TestGateway,
} from './harness.ts';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * The ledger's Postgres stops answering for longer than the hold TTL while requests keep coming: the
 * 200s it could not record yet (their charges wait in JetStream) must keep counting against the cap.
 */
describe('Postgres not answering the ledger for longer than the hold TTL', () => {
  const CAP = 10;
  const HOLD_TTL_MS = 2_000;
  let svc: RunningServices;
  let gw: TestGateway;
  let token: string;
  let accountId: string;
  let stall: RecordingStall | undefined;

  beforeAll(async () => {
    svc = await startServices({ holdTtlMs: HOLD_TTL_MS });
    gw = await startGateway(svc);
    await svc.store.createPlan('stall_cap', { daily: CAP, monthly: null, burst: 1_000_000 });
    accountId = await svc.store.createAccount('stall_cap');
    token = (await svc.store.issueToken(accountId)).token;
  }, 60_000);
  afterAll(async () => {
    await stall?.resume();
    await gw?.close();
    await svc?.stop();
  }, 30_000);

  const call = (url = '/v1/stocks/TCS/quote') =>
    gw.inject({ method: 'GET', url, anonymous: true, headers: { authorization: `Bearer ${token}` } });

  it('requests whose charges could not be recorded keep counting: never more 200s than the cap', async () => {
    expect((await call()).statusCode).toBe(200);
    await svc.ledgerIdle();
    // From here the ledger's statements on its event log wait, as on a database that stopped answering.
    stall = await stallRecording(svc);

    const during: number[] = [];
    for (let i = 1; i < CAP; i++) during.push((await call()).statusCode);
    expect(during).toEqual(Array(CAP - 1).fill(200));
    // Well past the hold TTL (the ledger sweeps once a second): holds released now would admit more.
    await sleep(HOLD_TTL_MS * 2 + 1_500);
    const past: { status: number; code: string }[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await call();
      past.push({ status: res.statusCode, code: res.json().error?.code });
    }
    expect(past).toEqual(Array(5).fill({ status: 429, code: 'quota_exhausted' }));

    // Postgres answers again: the backlog is recorded, and the count is exactly the 200s clients saw.
    await stall.resume();
    const until = Date.now() + 20_000;
    let used = -1;
    while (Date.now() < until) {
      await svc.ledgerIdle();
      const res = await call('/v1/me/usage');
      used = res.statusCode === 200 ? res.json().data.day.used : -1;
      if (used === CAP) break;
      await sleep(200);
    }
    expect(used).toBe(CAP);
    // The projection itself, not only the ledger's memory, holds exactly the cap.
    const db = new pg.Client({ connectionString: DATABASE_URL });
    await db.connect();
    try {
      const { rows } = await db.query<{ n: string }>(
        `SELECT coalesce(sum(charged), 0) AS n FROM "${svc.ledgerSchema}".usage_daily WHERE account_id = $1`,
        [accountId],
      );
      expect(Number(rows[0]!.n)).toBe(CAP);
    } finally {
      await db.end();
    }
    expect((await call()).statusCode).toBe(429);
  }, 60_000);
});
