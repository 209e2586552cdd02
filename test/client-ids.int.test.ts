import { createPool, type Pool } from '@mdp/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyToolResponse, MCP_HEADERS, toolCallBody } from '../load-tests/lib/mcp.js';
import { SEARCH } from './answers.ts';
import { PATIENT_DEADLINES, STACK_SHUTDOWN_MS, type Stack, startStack } from './stack.ts';

// SPEC 1, 7 and 8 as a subscriber who sends its own request ids checks them, on real processes: a
// client's X-Request-Id (and, over MCP, its JSON-RPC id and session id) is a correlation id only.
// Repeated at once, after the hold TTL, by another account or by 20 requests at once, every 200 costs
// exactly one unit, nothing answers 503, and usage and the rate-limit headers count every 200.

const HOLD_TTL_MS = 4_000;
const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const FREE_DAILY = 50;

let stack: Stack;
let ledger: Pool;
/** Every 200 this file has seen, REST and MCP: the event log must charge exactly these. */
let seen200 = 0;

beforeAll(async () => {
  stack = await startStack({ ...PATIENT_DEADLINES, HOLD_TTL_MS: String(HOLD_TTL_MS) });
  ledger = createPool({
    url: stack.databaseUrl,
    schema: stack.schemas.find((s) => s.endsWith('_quota_ledger'))!,
    max: 1,
    applicationName: 'client-ids-test',
  });
}, 300_000);
afterAll(async () => {
  await ledger?.end();
  await stack?.shutdown();
}, STACK_SHUTDOWN_MS);

const newToken = async () => (await stack.admin('demo-token', '--plan', 'free')).split('\n').at(-1)!;

interface Answer {
  status: number;
  requestId: string | null;
  echoed: string | null;
  remaining: string | null;
  code?: string;
}

async function rest(token: string, clientId: string, path = SEARCH): Promise<Answer> {
  const res = await fetch(`${stack.baseUrl}${path}`, {
    headers: { authorization: `Bearer ${token}`, 'x-request-id': clientId },
  });
  const body = (await res.json()) as { error?: { code: string } };
  if (res.status === 200 && path === SEARCH) seen200++;
  return {
    status: res.status,
    requestId: res.headers.get('request-id'),
    echoed: res.headers.get('x-request-id'),
    remaining: res.headers.get('x-ratelimit-remaining'),
    ...(body.error ? { code: body.error.code } : {}),
  };
}

/** One stateless tool call, as an MCP client that reuses its ids would send it. */
async function mcp(token: string, clientId: string, rpcId: number | string, sessionId: string) {
  const res = await fetch(`${stack.baseUrl}/mcp`, {
    method: 'POST',
    headers: {
      ...MCP_HEADERS,
      authorization: `Bearer ${token}`,
      'x-request-id': clientId,
      'mcp-session-id': sessionId,
    },
    body: toolCallBody('search_stocks', { q: 'zz', limit: 1 }, rpcId as number),
  });
  const body = (await res.json()) as { id?: unknown };
  const outcome = classifyToolResponse(res.status, body);
  if (outcome.kind === 'admitted') seen200++;
  return { outcome, rpcId: body.id, requestId: res.headers.get('request-id') };
}

async function usage(token: string) {
  const res = await fetch(`${stack.baseUrl}/v1/me/usage`, { headers: { authorization: `Bearer ${token}` } });
  expect(res.status).toBe(200);
  return (
    (await res.json()) as { data: { day: { used: number; by_interface: { rest: number; mcp: number } } } }
  ).data.day;
}

/** The event log's charged requests (a charge not voided), waited for until it has every 200 seen. */
async function chargedInLog(): Promise<number> {
  const count = async () =>
    Number(
      (
        await ledger.query<{ n: string }>(
          `SELECT count(*) AS n FROM (SELECT 1 FROM usage_events GROUP BY request_id, account
            HAVING bool_or(kind = 'c') AND NOT bool_or(kind = 'v')) AS c`,
        )
      ).rows[0]!.n,
    );
  for (let i = 0; i < 100 && (await count()) < seen200; i++) await new Promise((r) => setTimeout(r, 100));
  return count();
}

function expectServed(answers: Answer[], clientId: string) {
  for (const a of answers) {
    expect(a.status, a.code).toBe(200);
    expect(a.echoed).toBe(clientId);
    expect(a.requestId).toMatch(UUID_V7);
  }
  // Each of them a request of its own.
  expect(new Set(answers.map((a) => a.requestId)).size).toBe(answers.length);
}

// Each test makes accounts with the real admin CLI and waits out a hold TTL: over 30 s beside the stress loop.
describe('REST: a client-chosen X-Request-Id changes nothing that is charged', { timeout: 120_000 }, () => {
  const clientId = 'retry-me-0001';

  it('repeated at once: every 200 is charged once, usage and headers count each', async () => {
    const token = await newToken();
    const answers: Answer[] = [];
    for (let i = 1; i <= 5; i++) {
      const a = await rest(token, clientId);
      answers.push(a);
      expect(a.status, `request ${i}: ${a.code}`).toBe(200);
      expect(a.remaining, `request ${i}`).toBe(String(FREE_DAILY - i));
      expect((await usage(token)).used, `usage after request ${i}`).toBe(i);
    }
    expectServed(answers, clientId);
    expect(await chargedInLog()).toBe(seen200);
  });

  it('repeated after the hold TTL: a 200 again, charged again', async () => {
    const token = await newToken();
    expectServed([await rest(token, clientId)], clientId);
    await new Promise((r) => setTimeout(r, HOLD_TTL_MS + 1_500));
    const later = await rest(token, clientId);
    expectServed([later], clientId);
    expect(later.remaining).toBe(String(FREE_DAILY - 2));
    expect((await usage(token)).used).toBe(2);
    expect(await chargedInLog()).toBe(seen200);
  });

  it('reused by a second account: served and charged to that account, the first one unchanged', async () => {
    const first = await newToken();
    const second = await newToken();
    expectServed([await rest(first, clientId), await rest(first, clientId)], clientId);
    const other = await rest(second, clientId);
    expectServed([other], clientId);
    expect(other.remaining).toBe(String(FREE_DAILY - 1));
    expect((await usage(second)).used).toBe(1);
    expect((await usage(first)).used).toBe(2);
    expect(await chargedInLog()).toBe(seen200);
  });

  it('sent by 20 requests at once: 20 200s, 20 units, and each saw its own remaining count', async () => {
    const token = await newToken();
    const answers = await Promise.all(Array.from({ length: 20 }, () => rest(token, clientId)));
    expectServed(answers, clientId);
    expect(answers.map((a) => Number(a.remaining)).sort((x, y) => x - y)).toEqual(
      Array.from({ length: 20 }, (_, i) => FREE_DAILY - 20 + i),
    );
    expect((await usage(token)).used).toBe(20);
    expect((await rest(token, clientId)).remaining).toBe(String(FREE_DAILY - 21));
    expect(await chargedInLog()).toBe(seen200);
  });
});

describe('MCP: reused X-Request-Id, JSON-RPC ids and session ids change nothing that is charged', {
  timeout: 120_000,
}, () => {
  const clientId = 'agent-call-0001';
  const session = 'session-chosen-by-the-client';

  /** After `n` tool calls on a fresh token: usage counts them as MCP, and the next REST 200 says n + 1. */
  async function expectCounted(token: string, n: number) {
    const day = await usage(token);
    expect(day.used).toBe(n);
    expect(day.by_interface.mcp).toBe(n);
    expect((await rest(token, clientId)).remaining).toBe(String(FREE_DAILY - n - 1));
  }

  it('repeated at once: every call returns data and costs one unit', async () => {
    const token = await newToken();
    for (let i = 1; i <= 5; i++) {
      const call = await mcp(token, clientId, 1, session);
      expect(call.outcome, `call ${i}`).toEqual({ kind: 'admitted' });
      expect(call.rpcId).toBe(1);
      expect(call.requestId).toMatch(UUID_V7);
      expect((await usage(token)).used, `usage after call ${i}`).toBe(i);
    }
    await expectCounted(token, 5);
    expect(await chargedInLog()).toBe(seen200);
  });

  it('repeated after the hold TTL: data again, charged again', async () => {
    const token = await newToken();
    expect((await mcp(token, clientId, 'same', session)).outcome).toEqual({ kind: 'admitted' });
    await new Promise((r) => setTimeout(r, HOLD_TTL_MS + 1_500));
    expect((await mcp(token, clientId, 'same', session)).outcome).toEqual({ kind: 'admitted' });
    await expectCounted(token, 2);
    expect(await chargedInLog()).toBe(seen200);
  });

  it('reused by a second account: charged to that account only', async () => {
    const first = await newToken();
    const second = await newToken();
    for (const token of [first, first, second])
      expect((await mcp(token, clientId, 7, session)).outcome).toEqual({ kind: 'admitted' });
    await expectCounted(second, 1);
    await expectCounted(first, 2);
    expect(await chargedInLog()).toBe(seen200);
  });

  it('sent by 20 calls at once: 20 results with data, 20 units', async () => {
    const token = await newToken();
    const calls = await Promise.all(Array.from({ length: 20 }, () => mcp(token, clientId, 1, session)));
    expect(calls.map((c) => c.outcome)).toEqual(Array(20).fill({ kind: 'admitted' }));
    expect(new Set(calls.map((c) => c.requestId)).size).toBe(20);
    await expectCounted(token, 20);
    expect(await chargedInLog()).toBe(seen200);
  });
});
