import { auth } from '@mdp/proto';
import { describe, expect, it } from 'vitest';
import { decide, type TokenRecord } from './verify.ts';

const NOW = Date.parse('2026-05-01T10:00:00Z');
const record = (over: Partial<TokenRecord> = {}): TokenRecord => ({
  token_id: 't1',
  account_id: 'a1',
  plan: 'pro',
  daily_cap: 5000,
  monthly_cap: 100000,
  burst_per_minute: 60,
  expires_at: null,
  revoked_at: null,
  account_status: 'active',
  ...over,
});
const O = auth.VerifyOutcome;

describe('decide', () => {
  it('a live token of an active account is valid, with its plan limits', () => {
    const res = decide(record({ expires_at: new Date(NOW + 1) }), NOW);
    expect(res.outcome).toBe(O.VERIFY_OUTCOME_VALID);
    expect(res.principal).toEqual({
      token_id: 't1',
      account_id: 'a1',
      plan: 'pro',
      daily_cap: 5000,
      monthly_cap: 100000,
      expires_at_ms: NOW + 1,
      burst_per_minute: 60,
    });
  });

  it('null caps travel as absent (unlimited)', () => {
    const res = decide(record({ daily_cap: null, monthly_cap: null }), NOW);
    expect(res.principal?.daily_cap).toBeUndefined();
    expect(res.principal?.monthly_cap).toBeUndefined();
  });

  it('refuses unknown, expired at the instant, revoked and suspended', () => {
    expect(decide(undefined, NOW).outcome).toBe(O.VERIFY_OUTCOME_UNKNOWN);
    expect(decide(record({ expires_at: new Date(NOW) }), NOW).outcome).toBe(O.VERIFY_OUTCOME_EXPIRED);
    expect(decide(record({ revoked_at: new Date(NOW - 1) }), NOW).outcome).toBe(O.VERIFY_OUTCOME_REVOKED);
    expect(decide(record({ account_status: 'suspended' }), NOW).outcome).toBe(O.VERIFY_OUTCOME_SUSPENDED);
    expect(decide(record({ revoked_at: new Date(NOW - 1) }), NOW).principal).toBeUndefined();
  });

  it('names the most permanent reason when several apply', () => {
    const all = record({
      revoked_at: new Date(NOW - 1),
      expires_at: new Date(NOW - 1),
      account_status: 'suspended',
    });
    expect(decide(all, NOW).outcome).toBe(O.VERIFY_OUTCOME_REVOKED);
    expect(decide({ ...all, revoked_at: null }, NOW).outcome).toBe(O.VERIFY_OUTCOME_EXPIRED);
  });
});
