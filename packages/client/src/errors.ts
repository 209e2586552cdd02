import type { ApiErrorCode } from './generated/errors.ts';

/** The SPEC 7 error codes, and `network_error` / `timeout` for answers that never came. */
export type ErrorCode = ApiErrorCode | 'network_error' | 'timeout';

/** Every failure of a call: the API's error envelope, or a request that got no answer (status 0). */
export class MdpError extends Error {
  override name = 'MdpError';

  constructor(
    /** HTTP status; 0 when no response arrived (network error, timeout). */
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly details: { param?: string; [key: string]: unknown } = {},
    /** Seconds the API asked to wait (`Retry-After`), when it did. */
    readonly retryAfter: number | null = null,
    /** The platform's id of the request (`Request-Id`): quote it when reporting a problem. */
    readonly requestId: string | null = null,
    /** For `quota_exhausted`: when the binding window resets (from `X-RateLimit-Reset`). */
    readonly resetsAt: Date | null = null,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }

  /** The parameter at fault, for `invalid_request`. */
  get param(): string | undefined {
    return this.details.param;
  }
}
