import { expect } from 'vitest';

// The tests' two ways of reading `/v1/me/usage`: `usageOf` where every answer but a 200 or a lagging
// 503 is a failure, `usedToday` where the test polls through faults and any other answer means "not yet".

/** The usage document's figures the tests read. */
export interface UsageDoc {
  day: { used: number; limit: number; remaining: number };
}

/**
 * `/v1/me/usage` as a client reads it. A leased account's read waits (2 s at most) until the ledger has
 * recorded what the stream held at the read; past that it is a 503 with Retry-After, never a count that
 * leaves a 200 out. A 503 is read again after its Retry-After (beside the whole suite on a slow machine
 * recording can lag that long) and said; any other answer fails the test.
 */
export async function usageOf(base: string, token: string): Promise<UsageDoc> {
  for (let attempt = 1; ; attempt++) {
    const res = await fetch(`${base}/v1/me/usage`, { headers: { authorization: `Bearer ${token}` } });
    const body = (await res.json()) as { data?: UsageDoc; error?: { code: string } };
    if (res.status === 200) return body.data!;
    expect(res.status, JSON.stringify(body)).toBe(503);
    expect(body.error!.code).toBe('service_unavailable');
    const wait = Number(res.headers.get('retry-after'));
    expect(wait).toBeGreaterThan(0);
    expect(attempt, 'usage reads answered 503 in a row').toBeLessThan(5);
    console.log(`usage read ${attempt} answered 503, Retry-After ${wait}: recording lags`);
    await new Promise((r) => setTimeout(r, wait * 1_000));
  }
}

/** The units `usageOf` says the account has used today. */
export const usedOn = async (base: string, token: string): Promise<number> =>
  (await usageOf(base, token)).day.used;

/** The units an account has used today, as `GET /v1/me/usage` through `baseUrl` says; null on any other answer than 200. */
export async function usedToday(baseUrl: string, token: string): Promise<number | null> {
  const res = await fetch(`${baseUrl}/v1/me/usage`, { headers: { authorization: `Bearer ${token}` } });
  if (res.status !== 200) {
    await res.arrayBuffer();
    return null;
  }
  return ((await res.json()) as { data: { day: { used: number } } }).data.day.used;
}
