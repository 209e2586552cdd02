import { ERROR_STATUS, type ErrorCode, SAFE_5XX_MESSAGES } from './codes.ts';

export interface ErrorDetails {
  param?: string;
  [key: string]: unknown;
}

/** Headers an error response must carry, e.g. `Retry-After` on 429 and 503, `Allow` on 405. */
export type ErrorHeaders = Record<string, string | number>;

/**
 * `Retry-After` of every 503 `service_unavailable`: SPEC 5 rule 5 says "currently 5 seconds" when the
 * authentication or quota backend (the ledger, or the stream its charges are acknowledged on) cannot
 * answer, and a draining gateway sends the same.
 */
export const SERVICE_UNAVAILABLE_RETRY_S = 5;

/**
 * An error destined for a client. Thrown anywhere in request handling; mapped to the SPEC 2.6 envelope at
 * the edge. `cause` is kept for logs only and never serialised.
 */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: ErrorDetails | undefined;
  readonly headers: ErrorHeaders;

  constructor(
    code: ErrorCode,
    message: string,
    opts: { details?: ErrorDetails; headers?: ErrorHeaders; cause?: unknown } = {},
  ) {
    super(message, { cause: opts.cause });
    this.name = 'ApiError';
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.details = opts.details;
    this.headers = opts.headers ?? {};
  }

  static invalidParam(param: string, message: string): ApiError {
    return new ApiError('invalid_request', message, { details: { param } });
  }

  static serviceUnavailable(cause?: unknown): ApiError {
    return new ApiError('service_unavailable', SAFE_5XX_MESSAGES.service_unavailable, {
      headers: { 'Retry-After': SERVICE_UNAVAILABLE_RETRY_S },
      cause,
    });
  }

  static upstreamUnavailable(cause?: unknown): ApiError {
    return new ApiError('upstream_unavailable', SAFE_5XX_MESSAGES.upstream_unavailable, { cause });
  }

  static toolError(cause?: unknown): ApiError {
    return new ApiError('tool_error', SAFE_5XX_MESSAGES.tool_error, { cause });
  }

  static internal(cause?: unknown): ApiError {
    return new ApiError('internal_error', SAFE_5XX_MESSAGES.internal_error, { cause });
  }
}

export interface ErrorBody {
  error: { code: ErrorCode; message: string; details?: ErrorDetails };
}

/** The SPEC 2.6 envelope. */
export function errorBody(err: ApiError): ErrorBody {
  const body: ErrorBody = { error: { code: err.code, message: err.message } };
  if (err.details && Object.keys(err.details).length > 0) body.error.details = err.details;
  return body;
}
