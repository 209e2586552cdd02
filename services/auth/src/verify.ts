import { auth } from '@mdp/proto';

/** What the store knows about a presented token's hash. */
export interface TokenRecord {
  token_id: string;
  account_id: string;
  plan: string;
  daily_cap: number | null;
  monthly_cap: number | null;
  /** Null: the plan has no burst cap. */
  burst_per_minute: number | null;
  expires_at: Date | null;
  revoked_at: Date | null;
  account_status: 'active' | 'suspended';
}

/**
 * Decides what a token is worth right now. Pure: the record and the time are given. Revocation beats
 * expiry beats suspension, so the reason logged is the most permanent one.
 */
export function decide(record: TokenRecord | undefined, nowMs: number): auth.VerifyTokenResponse {
  const refuse = (outcome: auth.VerifyOutcome) => ({ outcome, principal: undefined });
  if (!record) return refuse(auth.VerifyOutcome.VERIFY_OUTCOME_UNKNOWN);
  if (record.revoked_at !== null && record.revoked_at.getTime() <= nowMs) {
    return refuse(auth.VerifyOutcome.VERIFY_OUTCOME_REVOKED);
  }
  if (record.expires_at !== null && record.expires_at.getTime() <= nowMs) {
    return refuse(auth.VerifyOutcome.VERIFY_OUTCOME_EXPIRED);
  }
  if (record.account_status !== 'active') return refuse(auth.VerifyOutcome.VERIFY_OUTCOME_SUSPENDED);
  return {
    outcome: auth.VerifyOutcome.VERIFY_OUTCOME_VALID,
    principal: {
      token_id: record.token_id,
      account_id: record.account_id,
      plan: record.plan,
      daily_cap: record.daily_cap ?? undefined,
      monthly_cap: record.monthly_cap ?? undefined,
      expires_at_ms: record.expires_at?.getTime(),
      burst_per_minute: record.burst_per_minute ?? undefined,
    },
  };
}
