import { quotaFigures } from '@mdp/admission';
import { istMonthStart, istNextMonthStart } from '@mdp/nse-calendar';
import type { ledger } from '@mdp/proto';
import type { Principal } from './authenticator.ts';
import type { QuotaUse } from './catalogue/route.ts';

/**
 * Every rate-limit header the gateway sends, so CORS can expose them all: the SPEC's X-RateLimit-* and
 * Retry-After, and the IETF fields of draft-ietf-httpapi-ratelimit-headers (RateLimit-Policy, RateLimit).
 */
export const RATE_LIMIT_HEADER_NAMES = [
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'Retry-After',
  'RateLimit-Policy',
  'RateLimit',
] as const;

/**
 * The names as the headers objects below hold them: lowercase, as fastify would make them for every
 * answer (a name with capitals costs each answer a lowercased copy and its hashing; the wire is the same).
 */
const LIMIT = 'x-ratelimit-limit';
const REMAINING = 'x-ratelimit-remaining';
export const RESET = 'x-ratelimit-reset';
const POLICY = 'ratelimit-policy';
const CURRENT = 'ratelimit';

const DAY_SECONDS = 86_400;
const BURST_WINDOW_SECONDS = 60;

/** The SPEC's headers, added to `into`: the binding window's limit and remaining (absent on unlimited plans), its reset. */
function addXRateLimitHeaders(into: Record<string, string>, rl: ledger.RateLimit | undefined): void {
  if (!rl) return;
  if (rl.limit !== undefined) into[LIMIT] = String(rl.limit);
  if (rl.remaining !== undefined) into[REMAINING] = String(rl.remaining);
  into[RESET] = String(rl.reset_unix);
}

/** A caller's `RateLimit-Policy`, kept while the IST month it was made in lasts and the burst cap is the same. */
interface PolicyMemo {
  from: number;
  to: number;
  burstLimit: number | undefined;
  text: string;
}

/**
 * Where a caller's `RateLimit-Policy` is kept between its answers: the admission client's record of the
 * caller (one per verified token, whose caps never change: a plan change drops it), so the list is made
 * once a month a token rather than per answer, with no lookup of its own.
 */
export interface PolicyHolder {
  policy?: PolicyMemo;
}

/**
 * `RateLimit-Policy`: every policy of the caller's plan as a Structured Field List (RFC 9651) of
 * quota (`q`) over a window of `w` seconds. The monthly window is the current IST month's length; the
 * burst cap is the one the ledger applied (absent: none).
 */
function rateLimitPolicy(
  caller: Pick<Principal, 'dailyCap' | 'monthlyCap'>,
  burstLimit: number | undefined,
  nowMs: number,
  holder?: PolicyHolder,
): string {
  const memo = holder?.policy;
  if (memo !== undefined && memo.burstLimit === burstLimit && nowMs >= memo.from && nowMs < memo.to)
    return memo.text;
  const from = istMonthStart(nowMs);
  const to = istNextMonthStart(nowMs);
  const items: string[] = [];
  if (caller.dailyCap !== null) items.push(`"daily";q=${caller.dailyCap};w=${DAY_SECONDS}`);
  if (caller.monthlyCap !== null)
    items.push(`"monthly";q=${caller.monthlyCap};w=${Math.round((to - from) / 1000)}`);
  if (burstLimit !== undefined) items.push(`"burst";q=${burstLimit};w=${BURST_WINDOW_SECONDS}`);
  const text = items.join(', ');
  if (holder !== undefined) holder.policy = { from, to, burstLimit, text };
  return text;
}

/**
 * `RateLimit`: the binding policy with what remains (`r`) and the seconds until it resets (`t`). The
 * binding policy is the quota window the X-RateLimit headers describe; on a plan without a daily or
 * monthly cap it is the burst window; a burst refusal names the burst window.
 */
function rateLimit(
  result: Pick<ledger.AdmissionResult, 'rate_limit' | 'burst'>,
  rateLimited: boolean,
  nowMs: number,
): string | undefined {
  const rl = result.rate_limit;
  const burst = result.burst;
  if (rateLimited && burst) return `"burst";r=0;t=${burst.reset_seconds}`;
  if (rl?.policy && rl.remaining !== undefined) {
    return `"${rl.policy}";r=${rl.remaining};t=${Math.max(0, rl.reset_unix - Math.floor(nowMs / 1000))}`;
  }
  if (burst) return `"burst";r=${burst.remaining};t=${burst.reset_seconds}`;
  return undefined;
}

/**
 * The rate-limit headers of an answer that admits nothing (the usage document's 200; SPEC 8 puts
 * X-RateLimit-Reset on every 200): the binding window of the caller's plan at the units used, as an
 * admission would name it, and the plan's policies. `RateLimit` names the binding quota window only:
 * the burst window's state is its shard's, not known here.
 */
export function quotaHeaders(
  caller: Pick<Principal, 'dailyCap' | 'monthlyCap' | 'burstPerMinute'>,
  used: QuotaUse,
  nowMs: number,
): Record<string, string> {
  const figures = quotaFigures({ daily: caller.dailyCap, monthly: caller.monthlyCap }, used, used.within);
  const binding: ledger.RateLimit = {
    limit: figures.limit ?? undefined,
    remaining: figures.remaining ?? undefined,
    reset_unix: figures.resetUnix,
    policy: figures.policy ?? '',
  };
  const headers: Record<string, string> = {};
  addXRateLimitHeaders(headers, binding);
  const policy = rateLimitPolicy(caller, caller.burstPerMinute ?? undefined, nowMs);
  if (policy) headers[POLICY] = policy;
  const current = rateLimit({ rate_limit: binding, burst: undefined }, false, nowMs);
  if (current) headers[CURRENT] = current;
  return headers;
}

/**
 * All rate-limit headers of one admission decision (one object, built in place: one per metered
 * request); the caller's policy list kept in `holder`.
 */
export function rateLimitHeaders(
  result: Pick<ledger.AdmissionResult, 'rate_limit' | 'burst' | 'decision'>,
  caller: Pick<Principal, 'dailyCap' | 'monthlyCap'>,
  rateLimited: boolean,
  nowMs: number,
  holder?: PolicyHolder,
): Record<string, string> {
  const headers: Record<string, string> = {};
  addXRateLimitHeaders(headers, result.rate_limit);
  const policy = rateLimitPolicy(caller, result.burst?.limit, nowMs, holder);
  if (policy) headers[POLICY] = policy;
  const current = rateLimit(result, rateLimited, nowMs);
  if (current) headers[CURRENT] = current;
  return headers;
}
