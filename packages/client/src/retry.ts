import { ExponentialBackoff, type IBackoff } from 'cockatiel';
import type { MdpError } from './errors.ts';

export interface RetryOptions {
  /** Attempts in all, the first included (default 4; 1 turns retries off). */
  maxAttempts?: number;
  /** No retry starts later than this after the first attempt (default 30 s). */
  maxElapsedMs?: number;
  /** First backoff when the API gave no `Retry-After` (default 250 ms), doubling with jitter. */
  initialDelayMs?: number;
  /** Longest backoff (default 8 s). */
  maxDelayMs?: number;
}

/**
 * SPEC 7: retry 429 `rate_limited`, 500, 502 and 503 (a `tool_error` 500 once), and a request that got
 * no answer at all; never `quota_exhausted` (it does not clear by waiting briefly), 400, 401, 404, 405,
 * nor a timeout the caller set.
 */
export function isRetryable(err: MdpError, toolErrorsSoFar: number): boolean {
  switch (err.code) {
    case 'rate_limited':
    case 'internal_error':
    case 'upstream_unavailable':
    case 'service_unavailable':
    case 'network_error':
      return true;
    case 'tool_error':
      return toolErrorsSoFar === 0;
    default:
      return false;
  }
}

/** The waits between attempts: `Retry-After` when the API sent it, else exponential backoff with jitter. */
export class RetrySchedule {
  private backoff: IBackoff<unknown> | undefined;
  private readonly factory: ExponentialBackoff<unknown>;

  constructor(options: RetryOptions) {
    this.factory = new ExponentialBackoff({
      initialDelay: options.initialDelayMs ?? 250,
      maxDelay: options.maxDelayMs ?? 8_000,
    });
  }

  nextDelayMs(err: MdpError): number {
    if (err.retryAfter !== null) return err.retryAfter * 1000;
    this.backoff = this.backoff ? this.backoff.next(undefined) : this.factory.next();
    return this.backoff.duration;
  }
}
