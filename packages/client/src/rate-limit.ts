/** The rate-limit state a response reported (SPEC 8 headers and the IETF draft fields beside them). */
export interface RateLimitState {
  /** Cap of the binding window; null on unlimited plans. */
  limit: number | null;
  /** Requests left in the binding window after this one; null on unlimited plans. */
  remaining: number | null;
  /** When the binding window resets. */
  reset: Date | null;
  /** `RateLimit-Policy` as sent, e.g. `"daily";q=50;w=86400, "burst";q=60;w=60`. */
  policy: string | null;
  /** `RateLimit` as sent, e.g. `"daily";r=48;t=23400`. */
  current: string | null;
  /** The burst cap per minute from the policy, when the plan has one. */
  burstPerMinute: number | null;
}

const int = (value: string | null) => (value !== null && /^\d+$/.test(value) ? Number(value) : null);

export function readRateLimit(headers: Headers): RateLimitState | null {
  const reset = int(headers.get('x-ratelimit-reset'));
  const policy = headers.get('ratelimit-policy');
  if (reset === null && policy === null) return null;
  const burst = policy ? /"burst";q=(\d+);w=60\b/.exec(policy) : null;
  return {
    limit: int(headers.get('x-ratelimit-limit')),
    remaining: int(headers.get('x-ratelimit-remaining')),
    reset: reset === null ? null : new Date(reset * 1000),
    policy,
    current: headers.get('ratelimit'),
    burstPerMinute: burst ? Number(burst[1]) : null,
  };
}
