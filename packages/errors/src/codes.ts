/**
 * The closed set of public error codes (SPEC section 7) and the HTTP status each one always carries.
 * Codes are stable API; messages are human text and may change.
 */
export const ERROR_STATUS = {
  invalid_request: 400,
  authentication_required: 401,
  invalid_token: 401,
  not_found: 404,
  route_not_found: 404,
  method_not_allowed: 405,
  rate_limited: 429,
  quota_exhausted: 429,
  tool_error: 500,
  internal_error: 500,
  upstream_unavailable: 502,
  service_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

/** What a client is told about a 5xx: never the internal cause. */
export const SAFE_5XX_MESSAGES: Record<
  'tool_error' | 'internal_error' | 'upstream_unavailable' | 'service_unavailable',
  string
> = {
  tool_error: 'The dataset could not answer this request; retry once.',
  internal_error: 'Unexpected failure; retry with backoff.',
  upstream_unavailable: 'A data dependency is briefly unavailable; retry with backoff.',
  service_unavailable: 'The service is briefly unavailable; retry after the Retry-After interval.',
};
