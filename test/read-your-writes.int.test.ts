import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEARCH } from './answers.ts';
import { PATIENT_DEADLINES, STACK_SHUTDOWN_MS, type Stack, startStack } from './stack.ts';
import { usageOf } from './usage-read.ts';

// SPEC 2.5 and 8 as a subscriber checks them: once a 200 has arrived, /v1/me/usage and the next
// X-RateLimit-Remaining count it, at once, on any gateway; an error costs nothing, also at once.

let stack: Stack;
let second: Awaited<ReturnType<Stack['startSecondGateway']>>;

beforeAll(async () => {
  stack = await startStack(PATIENT_DEADLINES);
  second = await stack.startSecondGateway();
}, 300_000);
afterAll(async () => {
  await second?.stop();
  await stack?.shutdown();
}, STACK_SHUTDOWN_MS);

const newToken = async (plan = 'free') =>
  (await stack.admin('demo-token', '--plan', plan)).split('\n').at(-1)!;

async function call(base: string, token: string, path: string) {
  const res = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}` } });
  const body = (await res.json()) as {
    data?: { day: { used: number; limit: number; remaining: number } };
    error?: { code: string };
  };
  return {
    status: res.status,
    remaining: res.headers.get('x-ratelimit-remaining'),
    headers: res.headers,
    body,
  };
}

// The stack's data schemas are empty: a quote is a refunded 404.
const MISSING = '/v1/stocks/NOSUCHCO/quote';

describe('usage reads its own writes', () => {
  it('50 times on a 50-a-day token: a 200, then usage counts it and agrees with the header', async () => {
    const token = await newToken();
    for (let i = 1; i <= 50; i++) {
      const hit = await call(stack.baseUrl, token, SEARCH);
      expect(hit.status, `request ${i}`).toBe(200);
      expect(hit.remaining, `request ${i}`).toBe(String(50 - i));
      // The IETF fields say the same: the binding (daily) policy and what is left of it.
      expect(hit.headers.get('ratelimit')).toMatch(new RegExp(`^"daily";r=${50 - i};t=\\d+$`));
      expect(hit.headers.get('ratelimit-policy')).toBe('"daily";q=50;w=86400, "burst";q=60;w=60');
      const usage = await usageOf(stack.baseUrl, token);
      expect(usage.day.used, `usage after request ${i}`).toBe(i);
      expect(String(usage.day.remaining)).toBe(hit.remaining);
    }
    const over = await call(stack.baseUrl, token, SEARCH);
    expect(over.status).toBe(429);
    expect(over.body.error!.code).toBe('quota_exhausted');
  }, 120_000);

  it('an error is refunded before the client sees it: usage right after a 404 is unchanged', async () => {
    const token = await newToken();
    await call(stack.baseUrl, token, SEARCH);
    for (let i = 0; i < 10; i++) {
      expect((await call(stack.baseUrl, token, MISSING)).status).toBe(404);
      expect((await usageOf(stack.baseUrl, token)).day.used, `after 404 number ${i + 1}`).toBe(1);
    }
    expect((await call(stack.baseUrl, token, SEARCH)).remaining).toBe('48');
  }, 60_000);

  it('two gateways agree: a 200 on one is counted by the usage and the headers of the other', async () => {
    const token = await newToken();
    const gateways = [stack.baseUrl, second.baseUrl];
    for (let i = 1; i <= 20; i++) {
      const [here, there] = i % 2 ? gateways : [...gateways].reverse();
      expect((await call(here!, token, SEARCH)).status).toBe(200);
      expect((await usageOf(there!, token)).day.used, `usage on the other gateway after request ${i}`).toBe(
        i,
      );
    }
    expect((await call(second.baseUrl, token, SEARCH)).remaining).toBe('29');
  }, 120_000);

  it('the shipped load-test plan has no burst cap: 150 requests in a minute are all 200s, each counted', async () => {
    const token = await newToken('load-test');
    const statuses = await Promise.all(
      Array.from({ length: 150 }, () => call(stack.baseUrl, token, SEARCH).then((r) => r.status)),
    );
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    expect((await usageOf(stack.baseUrl, token)).day.used).toBe(150);
    const last = await call(stack.baseUrl, token, SEARCH);
    expect(last.headers.get('ratelimit-policy')).toBeNull();
    expect(last.headers.get('x-ratelimit-limit')).toBeNull();
  }, 60_000);
});
