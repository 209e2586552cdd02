import { istNextDayStart, istNextMonthStart } from '@mdp/nse-calendar';
import type { BurstTimes } from './burst-window.ts';

/** SPEC 8: at most 60 admitted requests in any rolling 60 seconds, per account (a plan may say otherwise). */
export const BURST_LIMIT = 60;
export const BURST_WINDOW_MS = 60_000;

/** A plan's caps; null is unlimited. */
export interface Caps {
  daily: number | null;
  monthly: number | null;
  /** Admissions allowed in any rolling minute; BURST_LIMIT when not given, null for no burst cap. */
  burst?: number | null;
}

/** What an account has used, counting requests still in flight, in the windows containing `now`. */
export interface Usage {
  /**
   * Admission times (ms), oldest first: those of the last 60 seconds, possibly after older ones (which
   * are skipped). Read by count and index only, never copied: the account book passes its `BurstWindow`,
   * already evicted up to the minute before `now`, so a decision costs O(1) whatever the window holds.
   */
  burst: BurstTimes;
  day: number;
  month: number;
}

/** The binding window's figures for the X-RateLimit-* headers. */
export interface RateLimitFigures {
  limit: number | null;
  remaining: number | null;
  resetUnix: number;
  /** Which window binds; null on a plan with neither a daily nor a monthly cap. */
  policy: 'daily' | 'monthly' | null;
}

/** The burst window after the decision (the IETF RateLimit header's "burst" policy). */
interface BurstFigures {
  limit: number;
  remaining: number;
  /** Seconds until the oldest admission in the window leaves it. */
  resetSeconds: number;
}

export type Decision = (
  | { kind: 'admitted' }
  | { kind: 'rate_limited'; retryAfterSeconds: number }
  | { kind: 'quota_exhausted'; retryAfterSeconds: number }
) & { rateLimit: RateLimitFigures; burst: BurstFigures | null };

interface Window {
  policy: 'daily' | 'monthly';
  limit: number;
  used: number;
  resetMs: number;
}

function windows(
  caps: Caps,
  usage: Pick<Usage, 'day' | 'month'>,
  now: number,
): { day?: Window; month?: Window } {
  return {
    ...(caps.daily !== null
      ? { day: { policy: 'daily', limit: caps.daily, used: usage.day, resetMs: istNextDayStart(now) } }
      : {}),
    ...(caps.monthly !== null
      ? {
          month: {
            policy: 'monthly',
            limit: caps.monthly,
            used: usage.month,
            resetMs: istNextMonthStart(now),
          },
        }
      : {}),
  };
}

/** The daily window, or the monthly one when it leaves less headroom (SPEC 8 rule 4). */
function bindingWindow(w: { day?: Window; month?: Window }): Window | undefined {
  if (w.day && w.month) return w.month.limit - w.month.used < w.day.limit - w.day.used ? w.month : w.day;
  return w.day ?? w.month;
}

const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

function figures(window: Window | undefined, now: number, extra: number): RateLimitFigures {
  if (!window)
    return { limit: null, remaining: null, resetUnix: Math.floor(istNextDayStart(now) / 1000), policy: null };
  return {
    limit: window.limit,
    remaining: Math.max(0, window.limit - window.used - extra),
    resetUnix: Math.floor(window.resetMs / 1000),
    policy: window.policy,
  };
}

/**
 * The X-RateLimit-* figures of an answer that admits nothing (the free usage read, SPEC 8: the headers
 * are on every 200): the binding window as `decide` names it, with nothing taken for the answer itself.
 */
export function quotaFigures(caps: Caps, used: Pick<Usage, 'day' | 'month'>, now: number): RateLimitFigures {
  const w = windows(caps, used, now);
  const waitedFor = exhaustedWindow(w);
  return waitedFor ? exhaustedFigures(waitedFor) : figures(bindingWindow(w), now, 0);
}

/** The used-up window admission waits for: the one that resets later when both are used up. */
function exhaustedWindow(w: { day?: Window; month?: Window }): Window | undefined {
  const exhausted = [w.day, w.month].filter((x): x is Window => x !== undefined && x.used >= x.limit);
  // Admission resumes only when every exhausted window has reset.
  return exhausted.length > 0 ? exhausted.reduce((a, b) => (b.resetMs > a.resetMs ? b : a)) : undefined;
}

const exhaustedFigures = (window: Window): RateLimitFigures => ({
  limit: window.limit,
  remaining: 0,
  resetUnix: Math.floor(window.resetMs / 1000),
  policy: window.policy,
});

/**
 * Whether one more request may start now. All or nothing: a refusal consumes nothing anywhere. Quota
 * is judged before the burst cap because it is the longer wait, and the one a client must know about.
 */
export function decide(caps: Caps, usage: Usage, now: number): Decision {
  const w = windows(caps, usage, now);
  // The admissions within the minute before `now`: the times after the cutoff, a suffix of the window
  // since it is oldest first (none is skipped when the book has just evicted).
  const times = usage.burst;
  const cutoff = now - BURST_WINDOW_MS;
  let skip = 0;
  while (skip < times.length && times.at(skip)! <= cutoff) skip++;
  const recent = times.length - skip;
  const burst = caps.burst === undefined ? BURST_LIMIT : caps.burst;
  const last = exhaustedWindow(w);
  if (last) {
    return {
      kind: 'quota_exhausted',
      retryAfterSeconds: seconds(last.resetMs - now),
      rateLimit: exhaustedFigures(last),
      burst: burst === null ? null : burstFigures(burst, recent, times.at(skip), now),
    };
  }
  if (burst !== null && recent >= burst) {
    // The admission whose leaving frees a slot: the `burst`-th newest. Then one more fits.
    const freeing = times.at(times.length - burst)!;
    const retryAfterSeconds = seconds(freeing + BURST_WINDOW_MS - now);
    return {
      kind: 'rate_limited',
      retryAfterSeconds,
      rateLimit: figures(bindingWindow(w), now, 0),
      burst: { limit: burst, remaining: 0, resetSeconds: retryAfterSeconds },
    };
  }
  return {
    kind: 'admitted',
    rateLimit: figures(bindingWindow(w), now, 1),
    // The window with this admission added at its newest end.
    burst: burst === null ? null : burstFigures(burst, recent + 1, recent > 0 ? times.at(skip) : now, now),
  };
}

/** The burst window holding `count` admissions within the last minute, the oldest at `oldest`. */
function burstFigures(limit: number, count: number, oldest: number | undefined, now: number): BurstFigures {
  return {
    limit,
    remaining: Math.max(0, limit - count),
    resetSeconds: count > 0 && oldest !== undefined ? seconds(oldest + BURST_WINDOW_MS - now) : 0,
  };
}
