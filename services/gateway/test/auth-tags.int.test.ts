/**
 * The gateway's authenticator against the real auth service (issue 41): tags checked before any lookup,
 * the legacy format's migration path, the bound on lookups, the per-address throttle of failures, and
 * auth's silence never remembered as a refusal.
 */
import { ApiError, errorBody } from '@mdp/errors';
import { createRegistry, type Registry } from '@mdp/telemetry';
import { DEV_TAG_KEYS, generateToken, parseTagKeys, TAGGED_TOKEN_LENGTH, tokenKeyId } from '@mdp/tokens';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Authenticator, type AuthenticatorOptions } from '../src/authenticator.ts';
import { connectUpstreams } from '../src/upstreams.ts';
import { metricValue, type RunningServices, startServices } from './harness.ts';

let services: RunningServices;
let closeClients: () => void;
let client: ReturnType<typeof connectUpstreams>['authClient'];

beforeAll(async () => {
  services = await startServices();
  const connected = connectUpstreams(services.addresses, createRegistry('gateway'), 5_000);
  client = connected.authClient;
  closeClients = connected.close;
});
afterAll(async () => {
  closeClients();
  await services.stop();
});

function authenticator(opts: Partial<AuthenticatorOptions> = {}): { a: Authenticator; registry: Registry } {
  const registry = createRegistry('gateway');
  const a = new Authenticator({
    client,
    clock: Date.now,
    registry,
    deadlineMs: 2_000,
    cacheMax: 1_000,
    cacheTtlMs: 60_000,
    breakerOpenMs: 200,
    ...opts,
  });
  return { a, registry };
}

/** What a client would see: status, body and headers of the error, or 200 and the account. */
async function outcome(a: Authenticator, token: string, address = '198.51.100.1') {
  try {
    const p = await a.authenticate(`Bearer ${token}`, address);
    return { status: 200, account: p.accountId };
  } catch (err) {
    const e = err as ApiError;
    expect(e).toBeInstanceOf(ApiError);
    return { status: e.status, code: e.code, body: errorBody(e), headers: e.headers };
  }
}

const lookups = (r: Registry) => metricValue(r, 'auth_cache_lookups_total', { result: 'miss' });

async function newAccount(): Promise<string> {
  return services.store.createAccount('test_unmetered');
}

describe('tagged tokens', () => {
  it('a token auth issued is tagged and served; a bad tag costs no lookup and looks like an unknown token', async () => {
    const { a, registry } = authenticator();
    const account = await newAccount();
    const { token } = await services.store.issueToken(account);
    expect(token).toHaveLength(TAGGED_TOKEN_LENGTH);
    expect(await outcome(a, token)).toEqual({ status: 200, account });

    const unknown = generateToken(parseTagKeys(DEV_TAG_KEYS));
    const unknownAnswer = await outcome(a, unknown);
    expect(await lookups(registry)).toBe(2);

    for (const forged of [
      `${token.slice(0, -1)}${token.endsWith('a') ? 'b' : 'a'}`,
      // Right shape, a key id the gateway holds, a tag made without the key.
      `mdp_dv${'A'.repeat(TAGGED_TOKEN_LENGTH - 6)}`,
      // A key id nobody holds.
      generateToken(parseTagKeys('zz:some-key-the-gateway-has-never-held-0000')),
    ]) {
      const answer = await outcome(a, forged);
      expect(answer).toEqual(unknownAnswer);
      expect(answer).toMatchObject({ status: 401, code: 'invalid_token' });
    }
    expect(await lookups(registry)).toBe(2);
    expect(await metricValue(registry, 'gateway_auth_rejections_total', { reason: 'bad_tag' })).toBe(3);
  });

  it('key rotation: a gateway holding both keys serves tokens of each; retired, the old key is a bad tag', async () => {
    const account = await newAccount();
    const old = (await services.store.issueToken(account)).token;
    const KEY_B = 'b2:bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb';
    // Auth issuing under the new key: the gateways were given both first.
    const rotatedStore = Object.assign(Object.create(Object.getPrototypeOf(services.store)), services.store, {
      tagKeys: parseTagKeys(`${KEY_B},${DEV_TAG_KEYS}`),
    });
    const fresh = (await rotatedStore.issueToken(account)).token as string;
    expect(tokenKeyId(fresh)).toBe('b2');
    const overlap = authenticator({ tagKeys: parseTagKeys(`${KEY_B},${DEV_TAG_KEYS}`) }).a;
    expect((await outcome(overlap, old)).status).toBe(200);
    expect((await outcome(overlap, fresh)).status).toBe(200);
    const retired = authenticator({ tagKeys: parseTagKeys(KEY_B) });
    expect((await outcome(retired.a, fresh)).status).toBe(200);
    expect(await outcome(retired.a, old)).toMatchObject({ status: 401, code: 'invalid_token' });
    expect(await lookups(retired.registry)).toBe(1);
  });
});

describe('legacy tokens: the migration path', () => {
  it('served and counted until their owner rotates them; refused without a lookup after the deadline', async () => {
    const { a, registry } = authenticator();
    const account = await newAccount();
    const legacy = generateToken();
    await services.store.storeLegacyToken(account, legacy);
    expect(await outcome(a, legacy)).toEqual({ status: 200, account });
    expect(await outcome(a, legacy)).toEqual({ status: 200, account });
    expect(await metricValue(registry, 'gateway_auth_legacy_token_requests_total')).toBe(2);

    // The deadline passes: refused though cached, with no further lookup.
    let now = Date.now();
    const deadline = authenticator({ legacyUntilMs: now + 1_000, clock: () => now });
    expect((await outcome(deadline.a, legacy)).status).toBe(200);
    now += 2_000;
    expect(await outcome(deadline.a, legacy)).toMatchObject({ status: 401, code: 'invalid_token' });
    expect(await lookups(deadline.registry)).toBe(1);
    // Past it, a gateway never looks one up, and answers as for any bad token.
    const past = authenticator({ legacyUntilMs: Date.now() - 1 });
    expect(await outcome(past.a, legacy)).toMatchObject({ status: 401, code: 'invalid_token' });
    expect(await lookups(past.registry)).toBe(0);
    const future = authenticator({ legacyUntilMs: Date.now() + 86_400_000 });
    expect((await outcome(future.a, legacy)).status).toBe(200);

    // The owner (or an operator: `token rotate --grace`) rotates: the new token is tagged and needs no
    // legacy path; the old one works through the grace period.
    const rotated = await services.store.rotateToken(legacy, { graceMs: 60_000 });
    expect(tokenKeyId(rotated.token)).toBe('dv');
    expect(await outcome(past.a, rotated.token)).toEqual({ status: 200, account });
    expect(await outcome(authenticator().a, legacy)).toEqual({ status: 200, account });
  });
});

describe('floods of tokens nobody issued', () => {
  it('an address past its failure limit gets 429 with Retry-After and no lookup; others, and proven tokens, are served', async () => {
    const { a, registry } = authenticator({ failureLimit: 5, failureWindowMs: 30_000 });
    const account = await newAccount();
    const legacy = generateToken();
    await services.store.storeLegacyToken(account, legacy);
    expect((await outcome(a, legacy, '203.0.113.5')).status).toBe(200);

    for (let i = 0; i < 5; i++)
      expect(await outcome(a, generateToken(), '203.0.113.5')).toMatchObject({ status: 401 });
    expect(await lookups(registry)).toBe(6);
    const throttled = await outcome(a, generateToken(), '203.0.113.5');
    expect(throttled).toMatchObject({ status: 429, code: 'rate_limited' });
    const retryAfter = Number((throttled as { headers: Record<string, number> }).headers['Retry-After']);
    expect(retryAfter).toBeGreaterThanOrEqual(29);
    expect(retryAfter).toBeLessThanOrEqual(30);
    // Bad tags from it are answered 429 as well, and nothing more is looked up.
    expect((await outcome(a, `mdp_dv${'A'.repeat(TAGGED_TOKEN_LENGTH - 6)}`, '203.0.113.5')).status).toBe(
      429,
    );
    expect(await lookups(registry)).toBe(6);

    // The same address's paying callers: a cached token, and a tagged one not yet cached.
    expect(await outcome(a, legacy, '203.0.113.5')).toEqual({ status: 200, account });
    const tagged = (await services.store.issueToken(account)).token;
    expect(await outcome(a, tagged, '203.0.113.5')).toEqual({ status: 200, account });
    // Its owner's revoked tagged token is told so (401), not throttled: nobody else can make it.
    const revoked = await services.store.issueToken(account);
    await services.store.revokeToken(revoked.id);
    expect(await outcome(a, revoked.token, '203.0.113.5')).toMatchObject({
      status: 401,
      code: 'invalid_token',
    });
    expect(await outcome(a, revoked.token, '203.0.113.5')).toMatchObject({
      status: 401,
      code: 'invalid_token',
    });
    // Another address is not affected.
    expect((await outcome(a, generateToken(), '203.0.113.6')).status).toBe(401);
    expect(await metricValue(registry, 'gateway_auth_throttled_addresses')).toBe(1);
    expect(await metricValue(registry, 'gateway_auth_rejections_total', { reason: 'throttled' })).toBe(2);
  });

  it('lookups of legacy tokens are bounded: past the bound 503 at once, while tagged tokens are looked up beside them', async () => {
    const { a, registry } = authenticator({ legacyLookupConcurrency: 2 });
    const account = await newAccount();
    const tagged = (await services.store.issueToken(account)).token;
    const forged = Array.from({ length: 20 }, (_, i) => outcome(a, generateToken(), `192.0.2.${i + 1}`));
    const paying = outcome(a, tagged, '192.0.2.1');
    const answers = await Promise.all(forged);
    expect(answers.filter((x) => x.status === 401)).toHaveLength(2);
    const busy = answers.filter((x) => x.status === 503);
    expect(busy).toHaveLength(18);
    expect(busy[0]).toMatchObject({ code: 'service_unavailable', headers: { 'Retry-After': 5 } });
    expect(await paying).toEqual({ status: 200, account });
    expect(await lookups(registry)).toBe(3);
    expect(await metricValue(registry, 'gateway_auth_rejections_total', { reason: 'busy' })).toBe(18);
  });
});

describe("auth's unavailability", () => {
  it('is a 503, never remembered as invalid nor counted against the address', async () => {
    const { a, registry } = authenticator({ failureLimit: 1 });
    const account = await newAccount();
    const { token } = await services.store.issueToken(account);
    const legacy = generateToken();
    await services.store.storeLegacyToken(account, legacy);
    await services.stopAuth();
    try {
      for (const t of [token, legacy, token, legacy])
        expect(await outcome(a, t, '203.0.113.77')).toMatchObject({
          status: 503,
          code: 'service_unavailable',
          headers: { 'Retry-After': 5 },
        });
    } finally {
      await services.startAuth();
    }
    expect(
      await metricValue(registry, 'gateway_auth_rejections_total', { reason: 'unavailable' }),
    ).toBeGreaterThan(0);
    // Back: the very tokens refused meanwhile are served (the breaker lets a trial through within 200 ms).
    const until = Date.now() + 10_000;
    let last = await outcome(a, token, '203.0.113.77');
    while (last.status === 503 && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 100));
      last = await outcome(a, token, '203.0.113.77');
    }
    expect(last).toEqual({ status: 200, account });
    expect(await outcome(a, legacy, '203.0.113.77')).toEqual({ status: 200, account });
  });
});
