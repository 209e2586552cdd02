import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MdpClient, MdpError } from '../src/index.ts';

// SPEC 7's retry rules against a real HTTP server on loopback that answers from a script: what was
// retried, how often, and what the caller finally sees. No timing is asserted; a Retry-After beyond the
// time budget shows that the wait would have been the server's.

type Answer = { status: number; code?: string; headers?: Record<string, string> } | 'hang';
let script: Answer[] = [];
let seen = 0;
let server: Server;
let baseUrl: string;

const QUOTE = {
  data: { symbol: 'ARAVALIHOU' },
  meta: { as_of: '2026-11-25T00:00:00Z', route: 'getStockQuote' },
};

function answer(_req: IncomingMessage, res: ServerResponse) {
  const next = script[Math.min(seen, script.length - 1)]!;
  seen++;
  if (next === 'hang') return;
  res.writeHead(next.status, {
    'content-type': 'application/json',
    'request-id': `req-${seen}`,
    // An echo of a client's correlation id: not the id to quote.
    'x-request-id': `echo-${seen}`,
    ...next.headers,
  });
  res.end(
    JSON.stringify(
      next.status === 200 ? QUOTE : { error: { code: next.code, message: `scripted ${next.code}` } },
    ),
  );
}

beforeAll(async () => {
  server = createServer(answer);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});
beforeEach(() => {
  seen = 0;
});

const client = (retry = {}) =>
  new MdpClient({ baseUrl, token: 'mdp_test', retry: { initialDelayMs: 5, maxDelayMs: 20, ...retry } });

async function quote(retry = {}, timeoutMs?: number) {
  return client(retry).getStockQuote({ symbol: 'ARAVALIHOU' }, timeoutMs ? { timeoutMs } : {});
}

async function failure(promise: Promise<unknown>): Promise<MdpError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(MdpError);
  return err as MdpError;
}

describe('retries as SPEC 7 says', () => {
  it('retries a 503 with Retry-After after waiting it, and one without by backing off', async () => {
    script = [{ status: 503, code: 'service_unavailable', headers: { 'retry-after': '1' } }, { status: 200 }];
    expect((await quote()).data).toEqual(QUOTE.data);
    expect(seen).toBe(2);
    seen = 0;
    script = [
      { status: 503, code: 'service_unavailable' },
      { status: 503, code: 'service_unavailable' },
      { status: 200 },
    ];
    expect((await quote()).data).toEqual(QUOTE.data);
    expect(seen).toBe(3);
  });

  it('does not start a retry whose Retry-After would end past the time budget', async () => {
    script = [{ status: 503, code: 'service_unavailable', headers: { 'retry-after': '5' } }, { status: 200 }];
    const err = await failure(quote({ maxElapsedMs: 1_000 }));
    expect(err).toMatchObject({
      status: 503,
      code: 'service_unavailable',
      retryAfter: 5,
      requestId: 'req-1',
    });
    expect(seen).toBe(1);
  });

  it('retries 429 rate_limited, never 429 quota_exhausted (which says when the window resets)', async () => {
    script = [{ status: 429, code: 'rate_limited', headers: { 'retry-after': '1' } }, { status: 200 }];
    expect((await quote()).data).toEqual(QUOTE.data);
    expect(seen).toBe(2);
    seen = 0;
    script = [
      {
        status: 429,
        code: 'quota_exhausted',
        headers: { 'retry-after': '3600', 'x-ratelimit-reset': '1764095400' },
      },
      { status: 200 },
    ];
    const err = await failure(quote());
    expect(err.code).toBe('quota_exhausted');
    expect(err.resetsAt).toEqual(new Date(1764095400 * 1000));
    expect(seen).toBe(1);
  });

  it('retries 500 internal_error and 502; a 500 tool_error once only', async () => {
    script = [
      { status: 500, code: 'internal_error' },
      { status: 502, code: 'upstream_unavailable' },
      { status: 200 },
    ];
    expect((await quote()).data).toEqual(QUOTE.data);
    expect(seen).toBe(3);
    seen = 0;
    script = [{ status: 500, code: 'tool_error' }, { status: 500, code: 'tool_error' }, { status: 200 }];
    expect((await failure(quote())).code).toBe('tool_error');
    expect(seen).toBe(2);
  });

  it('never retries 400, 401, 404 or 405', async () => {
    for (const [status, code] of [
      [400, 'invalid_request'],
      [401, 'invalid_token'],
      [404, 'not_found'],
      [405, 'method_not_allowed'],
    ] as const) {
      seen = 0;
      script = [{ status, code }, { status: 200 }];
      expect(await failure(quote())).toMatchObject({ status, code });
      expect(seen, code).toBe(1);
    }
  });

  it('stops after the attempts budget', async () => {
    script = [{ status: 502, code: 'upstream_unavailable' }];
    expect((await failure(quote({ maxAttempts: 3 }))).code).toBe('upstream_unavailable');
    expect(seen).toBe(3);
  });

  it('times out an attempt that gets no answer, and does not retry it', async () => {
    script = ['hang'];
    const err = await failure(quote({}, 200));
    expect(err).toMatchObject({ status: 0, code: 'timeout' });
    expect(seen).toBe(1);
  });

  it('gives up at once when the caller aborts, even while waiting to retry', async () => {
    script = [{ status: 503, code: 'service_unavailable', headers: { 'retry-after': '30' } }];
    const controller = new AbortController();
    const call = client({ maxElapsedMs: 60_000 }).getStockQuote(
      { symbol: 'X' },
      { signal: controller.signal },
    );
    setTimeout(() => controller.abort(new Error('caller gave up')), 100);
    await expect(call).rejects.toThrow('caller gave up');
    expect(seen).toBe(1);
  });

  it('retries a request that could not reach the API, then says so', async () => {
    const closed = new MdpClient({
      baseUrl: 'http://127.0.0.1:9',
      token: 't',
      retry: { maxAttempts: 2, initialDelayMs: 5 },
    });
    const attempts: number[] = [];
    const err = await failure(closed.getMyUsage());
    expect(err).toMatchObject({ status: 0, code: 'network_error' });
    const counted = new MdpClient({
      baseUrl: 'http://127.0.0.1:9',
      token: 't',
      retry: { maxAttempts: 2, initialDelayMs: 5 },
      onAttempt: (a) => attempts.push(a.attempt),
    });
    await failure(counted.getMyUsage());
    expect(attempts).toEqual([1, 2]);
  });
});
