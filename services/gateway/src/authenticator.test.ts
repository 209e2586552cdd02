import { ApiError } from '@mdp/errors';
import { auth } from '@mdp/proto';
import { createRegistry } from '@mdp/telemetry';
import { DEV_TAG_KEYS, generateToken, parseTagKeys } from '@mdp/tokens';
import { describe, expect, it } from 'vitest';
import { Authenticator } from './authenticator.ts';

/** An authenticator over a scripted auth client (the real service is in the integration tests). */
function authenticatorWith(
  client: unknown,
  extra: { failureLimit?: number; tagKeys?: ReturnType<typeof parseTagKeys>; cacheMax?: number },
) {
  return new Authenticator({
    client: client as never,
    clock: Date.now,
    registry: createRegistry('gateway'),
    deadlineMs: 100,
    cacheMax: 100,
    cacheTtlMs: 60_000,
    ...extra,
  });
}

/** What auth answers for a valid token: a principal named after `id`. */
const principalOf = (id: string) => ({
  token_id: `id-${id}`,
  account_id: `account-${id}`,
  plan: 'pro',
  daily_cap: undefined,
  monthly_cap: undefined,
  expires_at_ms: undefined,
  burst_per_minute: undefined,
});

/**
 * What auth answers that is not an answer: an unset outcome (a default-decoded message), or VALID with
 * no principal. A pure test with a scripted client: the real auth service never sends these.
 */
describe('an answer from auth that is not a verdict', () => {
  it.each([
    ['unset outcome', { outcome: auth.VerifyOutcome.VERIFY_OUTCOME_UNSPECIFIED, principal: undefined }],
    ['VALID without a principal', { outcome: auth.VerifyOutcome.VERIFY_OUTCOME_VALID, principal: undefined }],
    ['an outcome this gateway does not know', { outcome: 99 as auth.VerifyOutcome, principal: undefined }],
  ])('%s: 503, and the next answer is believed (never cached as invalid)', async (_name, first) => {
    const answers: auth.VerifyTokenResponse[] = [
      first as auth.VerifyTokenResponse,
      { outcome: auth.VerifyOutcome.VERIFY_OUTCOME_VALID, principal: principalOf('a') },
    ];
    const a = authenticatorWith({ verifyToken: async () => answers.shift()! }, { failureLimit: 1 });
    const token = generateToken(parseTagKeys(DEV_TAG_KEYS));
    const err = await a.authenticate(`Bearer ${token}`, '192.0.2.1').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: 'service_unavailable', headers: { 'Retry-After': 5 } });
    expect((await a.authenticate(`Bearer ${token}`, '192.0.2.1')).accountId).toBe('account-a');
  });
});

/** A header read once is still verified on every request: the reading is all it saves. */
describe('one header, many requests', () => {
  const tagKeys = parseTagKeys(DEV_TAG_KEYS);
  const setUp = (cacheMax = 100) => {
    const revoked = new Set<string>();
    const asked: string[] = [];
    const client = {
      verifyToken: async ({ token }: { token: string }) => {
        asked.push(token);
        return revoked.has(token)
          ? { outcome: auth.VerifyOutcome.VERIFY_OUTCOME_REVOKED, principal: undefined }
          : { outcome: auth.VerifyOutcome.VERIFY_OUTCOME_VALID, principal: principalOf(token.slice(-6)) };
      },
    };
    return { a: authenticatorWith(client, { tagKeys, cacheMax }), revoked, asked };
  };

  it('a token revoked between two requests is refused on the next', async () => {
    const { a, revoked, asked } = setUp();
    const token = generateToken(tagKeys);
    const header = `Bearer ${token}`;
    const caller = await a.authenticate(header, '192.0.2.1');
    expect((await a.authenticate(header, '192.0.2.1')).accountId).toBe(caller.accountId);
    expect(asked).toEqual([token]);
    revoked.add(token);
    a.onTokenRevoked({ token_id: caller.tokenId } as never);
    const err = await a.authenticate(header, '192.0.2.1').catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'invalid_token' });
    expect(asked).toEqual([token, token]);
  });

  it('a header verified before is served at once, until its token is revoked; anything else is left to authenticate', async () => {
    const { a, asked } = setUp();
    const token = generateToken(tagKeys);
    const header = `Bearer ${token}`;
    expect(a.cachedCaller(header)).toBeUndefined();
    expect(a.cachedCaller(undefined)).toBeUndefined();
    const caller = await a.authenticate(header, '192.0.2.1');
    // Kept read from the first request served from the cache on.
    expect(a.cachedCaller(header)).toBeUndefined();
    expect(await a.authenticate(header, '192.0.2.1')).toBe(caller);
    expect(a.cachedCaller(header)).toBe(caller);
    expect(a.cachedCaller(`Bearer ${generateToken(tagKeys)}`)).toBeUndefined();
    a.onTokenRevoked({ token_id: caller.tokenId } as never);
    expect(a.cachedCaller(header)).toBeUndefined();
    expect(asked).toEqual([token]);
  });

  it('an expired token is never served at once', async () => {
    let now = 1_000_000;
    const a = new Authenticator({
      client: {
        verifyToken: async () => ({
          outcome: auth.VerifyOutcome.VERIFY_OUTCOME_VALID,
          principal: { ...principalOf('x'), expires_at_ms: 1_000_500 },
        }),
      } as never,
      clock: () => now,
      registry: createRegistry('gateway'),
      deadlineMs: 100,
      cacheMax: 100,
      cacheTtlMs: 60_000,
      tagKeys,
    });
    const header = `Bearer ${generateToken(tagKeys)}`;
    await a.authenticate(header, '192.0.2.1');
    await a.authenticate(header, '192.0.2.1');
    expect(a.cachedCaller(header)?.accountId).toBe('account-x');
    now = 1_000_500;
    expect(a.cachedCaller(header)).toBeUndefined();
    expect(await a.authenticate(header, '192.0.2.1').catch((e: unknown) => e)).toMatchObject({
      code: 'invalid_token',
    });
  });

  it('another header is another caller, whichever came first; a missing or malformed one is refused', async () => {
    const { a } = setUp();
    const [first, second] = [generateToken(tagKeys), generateToken(tagKeys)];
    const one = await a.authenticate(`Bearer ${first}`, '192.0.2.1');
    const two = await a.authenticate(`Bearer ${second}`, '192.0.2.1');
    expect(two.accountId).not.toBe(one.accountId);
    expect(two.accountId).toBe(principalOf(second.slice(-6)).account_id);
    expect(await a.authenticate(undefined, '192.0.2.1').catch((e: unknown) => e)).toMatchObject({
      code: 'authentication_required',
    });
    expect(await a.authenticate('Bearer short', '192.0.2.1').catch((e: unknown) => e)).toMatchObject({
      code: 'invalid_token',
    });
    expect((await a.authenticate(`Bearer ${first}`, '192.0.2.1')).accountId).toBe(one.accountId);
  });

  it('tokens past the headers kept read are still served, each verified once', async () => {
    const { a, asked } = setUp(20_000);
    // More than READS_MAX (10,000) headers, each one of a token auth vouched for.
    const tokens = Array.from({ length: 10_050 }, () => generateToken(tagKeys));
    for (const token of tokens) await a.authenticate(`Bearer ${token}`, '192.0.2.1');
    for (const token of tokens)
      expect((await a.authenticate(`Bearer ${token}`, '192.0.2.1')).accountId).toBe(
        principalOf(token.slice(-6)).account_id,
      );
    expect(asked).toHaveLength(tokens.length);
  });
});
