import { ApiError } from '@mdp/errors';
import { auth } from '@mdp/proto';
import { createRegistry } from '@mdp/telemetry';
import { DEV_TAG_KEYS, generateToken, parseTagKeys } from '@mdp/tokens';
import { describe, expect, it } from 'vitest';
import { Authenticator } from './authenticator.ts';

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
    const principal = {
      token_id: 't',
      account_id: 'a',
      plan: 'pro',
      daily_cap: undefined,
      monthly_cap: undefined,
      expires_at_ms: undefined,
      burst_per_minute: undefined,
    };
    const answers: auth.VerifyTokenResponse[] = [
      first as auth.VerifyTokenResponse,
      { outcome: auth.VerifyOutcome.VERIFY_OUTCOME_VALID, principal },
    ];
    const client = { verifyToken: async () => answers.shift()! } as never;
    const a = new Authenticator({
      client,
      clock: Date.now,
      registry: createRegistry('gateway'),
      deadlineMs: 100,
      cacheMax: 100,
      cacheTtlMs: 60_000,
      failureLimit: 1,
    });
    const token = generateToken(parseTagKeys(DEV_TAG_KEYS));
    const err = await a.authenticate(`Bearer ${token}`, '192.0.2.1').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: 'service_unavailable', headers: { 'Retry-After': 5 } });
    expect((await a.authenticate(`Bearer ${token}`, '192.0.2.1')).accountId).toBe('a');
  });
});
