/**
 * Events that change who a token is or what it may do. Gateways drop cached verifications on them;
 * expiry needs no event (each cached entry carries its expiry).
 */
export const AUTH_EVENTS = {
  tokenRevoked: 'auth.token.revoked',
  accountChanged: 'auth.account.changed',
  planChanged: 'auth.plan.changed',
  all: 'auth.>',
} as const;

export interface TokenRevoked {
  token_id: string;
  account_id: string;
}

export interface AccountChanged {
  account_id: string;
  change: 'plan_changed' | 'suspended' | 'reactivated';
}

export interface PlanChanged {
  plan: string;
}
