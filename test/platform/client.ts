import { existsSync, readFileSync } from 'node:fs';
import { expect, inject } from 'vitest';
import type { Platform } from './loaded-stack.ts';

/** Longer than the loading takes beside the rest of the suite on two cores (about two minutes). */
const PLATFORM_WAIT_MS = 900_000;

/** The loaded platform's description once setup.ts has written it; its error if it could not start. */
async function whenLoaded(file: string): Promise<Platform> {
  const until = Date.now() + PLATFORM_WAIT_MS;
  for (;;) {
    if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as Platform;
    if (existsSync(`${file}.error`))
      throw new Error(`the loaded platform did not start:\n${readFileSync(`${file}.error`, 'utf8')}`);
    if (Date.now() > until) throw new Error(`the loaded platform was not up after ${PLATFORM_WAIT_MS} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** The loaded platform of this test run (see setup.ts). */
export const platform: Platform = await whenLoaded(inject('platformFile'));

/** Retries of a 502 or 503, and the longest wait, whatever its Retry-After says. */
const RETRIES = 5;
const MAX_WAIT_S = 10;

/**
 * An answer asked again as SPEC 7 tells a client to, whichever door it came through: while `waitOf`
 * says it was a 502 or 503 (a deadline passed on a busy machine, or a usage read waiting for recording
 * on a starved one; nothing was charged), after its wait in seconds (1 if it gave none). These tests are
 * about what a 200 costs and says, not about the 503s (test/chaos*.int.test.ts are).
 */
export async function askAgain<T>(
  ask: () => Promise<T>,
  waitOf: (answer: T) => number | 'no retry',
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    const answer = await ask();
    const wait = waitOf(answer);
    if (wait === 'no retry' || attempt === RETRIES) return answer;
    await new Promise((r) => setTimeout(r, Math.min(wait || 1, MAX_WAIT_S) * 1_000));
  }
}

/** The wait a tool's error result asks for (an MCP door's 502 or 503), or 'no retry'. */
export function toolWait(
  error: { code?: string } | undefined,
  retryAfterSeconds: unknown,
): number | 'no retry' {
  return error?.code === 'service_unavailable' || error?.code === 'upstream_unavailable'
    ? Number(retryAfterSeconds)
    : 'no retry';
}

/** GET through the gateway with `token`, a 502 or 503 asked again (see `askAgain`). */
export async function getAs(token: string, path: string): Promise<{ status: number; body: any }> {
  return askAgain(
    async () => {
      const res = await fetch(`${platform.baseUrl}${path}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      return { status: res.status, body: await res.json(), retryAfter: res.headers.get('retry-after') };
    },
    (r) => (r.status === 502 || r.status === 503 ? Number(r.retryAfter) : 'no retry'),
  ).then(({ status, body }) => ({ status, body }));
}

/** GET through the gateway with the platform token. */
export function get(path: string): Promise<{ status: number; body: any }> {
  return getAs(platform.token, path);
}

/** GET that must be a 200; resolves to the body. */
export async function ok(path: string): Promise<any> {
  const r = await get(path);
  expect(r.status, `${path}: ${JSON.stringify(r.body).slice(0, 300)}`).toBe(200);
  return r.body;
}
