import { Writable } from 'node:stream';
import { createLogger } from '@mdp/telemetry';
import { generateToken } from '@mdp/tokens';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServices, startGateway, startServices, type TestGateway } from './harness.ts';

const captured: string[] = [];
const capture = new Writable({
  write(chunk, _enc, done) {
    captured.push(String(chunk));
    done();
  },
});
const logger = createLogger('auth-test', 'trace', capture);

let services: RunningServices;
let gw: TestGateway;

beforeAll(async () => {
  services = await startServices({ logger });
  // The harness's patient auth deadline: a lookup at load 12 took longer than the deployed 300 ms (a 503
  // where the test expects 401). A stopped auth refuses the connection at once, so its 503 stays quick.
  gw = await startGateway(services, { logger });
});
afterAll(async () => {
  await gw.close();
  await services.stop();
});

const QUOTE = '/v1/stocks/TCS/quote';
const call = (authorization?: string, url = QUOTE) =>
  gw.inject({
    method: 'GET',
    url,
    anonymous: true,
    headers: authorization === undefined ? {} : { authorization },
  });

async function expect401(
  res: Awaited<ReturnType<typeof call>>,
  code: 'authentication_required' | 'invalid_token',
) {
  expect(res.statusCode).toBe(401);
  expect(res.json().error.code).toBe(code);
  expect(String(res.headers['www-authenticate'])).toMatch(/^Bearer realm="api"/);
}

/** A new account's token; `expiresInMs` counts from the issue (a busy machine may take a while to create the account). */
async function newToken(opts: { plan?: string; expiresInMs?: number } = {}) {
  const accountId = await services.store.createAccount(opts.plan ?? 'free');
  const now = Date.now();
  const expiresAt = opts.expiresInMs === undefined ? undefined : new Date(now + opts.expiresInMs);
  const issued = await services.store.issueToken(accountId, { expiresAt, now });
  return { accountId, expiresAt, ...issued };
}

const untilPast = async (at: Date | undefined) =>
  new Promise((r) => setTimeout(r, Math.max(0, at!.getTime() - Date.now()) + 100));

/** Polls until the request gives `status`; returns the time it took. */
async function until(status: number, authorization: string, timeoutMs = 2_000): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    if ((await call(authorization)).statusCode === status) return Date.now() - started;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`no ${status} within ${timeoutMs} ms`);
}

describe('401 authentication_required: no usable Authorization header', () => {
  it.each([
    ['absent', undefined],
    ['empty', ''],
    ['another scheme', 'Basic dXNlcjpwYXNz'],
    ['Bearer without a token', 'Bearer'],
    ['Bearer and spaces only', 'Bearer    '],
  ])('%s', async (_name, header) => {
    await expect401(await call(header), 'authentication_required');
  });
});

describe('401 invalid_token', () => {
  it('a string that is not a token', async () => {
    await expect401(await call('Bearer not-a-token'), 'invalid_token');
  });

  it('a token with a wrong checksum, refused without asking the auth service', async () => {
    const { token } = await newToken();
    const tampered = `${token.slice(0, -1)}${token.endsWith('a') ? 'b' : 'a'}`;
    const before = await gw.registry.getSingleMetricAsString('auth_cache_lookups_total');
    await expect401(await call(`Bearer ${tampered}`), 'invalid_token');
    expect(await gw.registry.getSingleMetricAsString('auth_cache_lookups_total')).toBe(before);
  });

  it('a well-formed token nobody issued', async () => {
    await expect401(await call(`Bearer ${generateToken()}`), 'invalid_token');
  });

  it('an expired token, also once cached', async () => {
    const { token, expiresAt } = await newToken({ expiresInMs: 2_000 });
    expect((await call(`Bearer ${token}`)).statusCode).toBe(200);
    await untilPast(expiresAt);
    await expect401(await call(`Bearer ${token}`), 'invalid_token');
    const fresh = await newToken({ expiresInMs: 300 });
    await untilPast(fresh.expiresAt);
    await expect401(await call(`Bearer ${fresh.token}`), 'invalid_token');
  });

  it('a revoked token, within a second even though the gateway had cached it', async () => {
    const { id, token } = await newToken();
    expect((await call(`Bearer ${token}`)).statusCode).toBe(200);
    await services.store.revokeToken(id);
    expect(await until(401, `Bearer ${token}`)).toBeLessThan(1_000);
    await expect401(await call(`Bearer ${token}`), 'invalid_token');
  });

  it('a token of a suspended account, and again valid after reactivation', async () => {
    const { accountId, token } = await newToken();
    expect((await call(`Bearer ${token}`)).statusCode).toBe(200);
    await services.store.setSuspended(accountId, true);
    expect(await until(401, `Bearer ${token}`)).toBeLessThan(1_000);
    await services.store.setSuspended(accountId, false);
    expect(await until(200, `Bearer ${token}`)).toBeLessThan(1_000);
  });

  it('the scheme is case-insensitive', async () => {
    expect((await call(`bearer ${services.token}`)).statusCode).toBe(200);
    expect((await call(`BEARER ${services.token}`)).statusCode).toBe(200);
  });
});

describe('which routes need a token', () => {
  it('the OpenAPI document does not; usage does, though it is free', async () => {
    expect((await call(undefined, '/v1/openapi.json')).statusCode).toBe(200);
    await expect401(await call(undefined, '/v1/me/usage'), 'authentication_required');
  });

  it('a request without a token learns nothing about its parameters', async () => {
    await expect401(await call(undefined, '/v1/stocks?bogus=1'), 'authentication_required');
  });

  it('a plan change reaches the cached principal', async () => {
    const { accountId, token } = await newToken({ plan: 'free' });
    const usage = async () => (await call(`Bearer ${token}`, '/v1/me/usage')).json().data;
    expect((await call(`Bearer ${token}`)).statusCode).toBe(200);
    await services.store.setPlan(accountId, 'business');
    const started = Date.now();
    let seen = 'free';
    while (seen !== 'business' && Date.now() - started < 2_000) {
      seen = (await usage()).plan;
      if (seen !== 'business') await new Promise((r) => setTimeout(r, 20));
    }
    expect(seen).toBe('business');
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});

describe('when the auth service is down', () => {
  it('cached tokens keep working, new ones get a quick 503 with Retry-After: 5, and it recovers', async () => {
    const cached = await newToken();
    const uncached = await newToken();
    expect((await call(`Bearer ${cached.token}`)).statusCode).toBe(200);
    await services.stopAuth();
    try {
      expect((await call(`Bearer ${cached.token}`)).statusCode).toBe(200);
      for (let i = 0; i < 8; i++) {
        const started = Date.now();
        const res = await call(`Bearer ${uncached.token}`);
        // A refused connection fails the lookup at once; once the breaker opens there is no lookup.
        expect(Date.now() - started).toBeLessThan(1_000);
        expect(res.statusCode).toBe(503);
        expect(res.headers['retry-after']).toBe('5');
        expect(res.json().error.code).toBe('service_unavailable');
      }
    } finally {
      await services.startAuth();
    }
    expect(await until(200, `Bearer ${uncached.token}`, 5_000)).toBeLessThan(5_000);
  });

  it('a sign-in while auth is away gets the 503 page, with when to try again', async () => {
    const form = await gw.inject({ method: 'GET', url: '/account/sign-in', anonymous: true });
    const csrf = /name="_csrf" value="([^"]+)"/.exec(form.body)?.[1];
    expect(csrf).toBeDefined();
    const cookie = form.cookies.map((c) => `${c.name}=${c.value}`).join('; ');
    await services.stopAuth();
    try {
      const res = await gw.inject({
        method: 'POST',
        url: '/account/sign-in',
        anonymous: true,
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({
          _csrf: csrf!,
          email: 'away@example.com',
          password: 'p'.repeat(16),
        }).toString(),
      });
      expect(res.statusCode).toBe(503);
      expect(res.headers['retry-after']).toBe('5');
      expect(res.body).toContain('Try again in 5 seconds.');
    } finally {
      await services.startAuth();
    }
  });

  it('the account site answers with its 503 page, no internal detail, and recovers', async () => {
    const page = () =>
      gw.inject({
        method: 'GET',
        url: '/account/tokens',
        anonymous: true,
        headers: { cookie: `mdp_session=${'s'.repeat(43)}` },
      });
    await services.stopAuth();
    try {
      const res = await page();
      expect(res.statusCode).toBe(503);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.headers['retry-after']).toBe('5');
      expect(res.body).toContain('The account service is unavailable just now. Try again in 5 seconds.');
      // Nothing of the gRPC failure (status name, connection error, address) reaches the page.
      expect(res.body).not.toMatch(/grpc|ECONNREFUSED|deadline|127\.0\.0\.1|localhost:\d/i);
      expect(res.body).not.toMatch(/UNAVAILABLE|No connection established/);
    } finally {
      await services.startAuth();
    }
    // Back up: the unknown session is sent to sign in, as any stale cookie is.
    const deadline = Date.now() + 5_000;
    let res = await page();
    while (res.statusCode !== 303 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      res = await page();
    }
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/account/sign-in');
  });
});

describe('secrecy', () => {
  it('no token appears in any log line, at trace level, after every kind of outcome', async () => {
    const { token, id } = await newToken();
    await call(`Bearer ${token}`);
    await call(`Bearer ${token}`, '/v1/stocks?bogus=1');
    await services.store.revokeToken(id);
    await until(401, `Bearer ${token}`);
    expect(captured.length).toBeGreaterThan(0);
    const all = captured.join('');
    expect(all).not.toContain(token);
    expect(all).not.toContain(services.token);
    expect(all).not.toContain(token.slice(4, 24));
  });
});
