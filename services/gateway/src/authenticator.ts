import { ApiError } from '@mdp/errors';
import type { AsyncClient } from '@mdp/grpc';
import {
  type AccountChanged,
  AUTH_EVENTS,
  type NatsConnection,
  type PlanChanged,
  subscribeJson,
  type TokenRevoked,
} from '@mdp/nats';
import type { Clock } from '@mdp/nse-calendar';
import { auth } from '@mdp/proto';
import type { Logger } from '@mdp/telemetry';
import { CellCounter, Counter, context, Gauge, type Registry, type Span, trace } from '@mdp/telemetry';
import {
  DEV_TAG_KEYS,
  hasValidTag,
  isWellFormedLegacyToken,
  parseTagKeys,
  type TagKeyring,
  tokenFingerprint,
  tokenFormat,
} from '@mdp/tokens';
import { BrokenCircuitError, CircuitState, ConsecutiveBreaker, circuitBreaker, handleAll } from 'cockatiel';
import { LRUCache } from 'lru-cache';
import { FailureThrottle, LookupBound } from './auth-throttle.ts';
import { TTL_RESOLUTION_MS } from './cache-clock.ts';

/** Who is calling, as the auth service vouched for them. */
export interface Principal {
  tokenId: string;
  accountId: string;
  plan: string;
  dailyCap: number | null;
  monthlyCap: number | null;
  /** Unix ms, or null for a token that does not expire. */
  expiresAtMs: number | null;
  /** Requests admitted in any rolling minute; null when the plan has no burst cap. */
  burstPerMinute: number | null;
  /** Presented in the legacy (untagged) format: counted, and refused after the legacy deadline. */
  legacy?: boolean;
}

export interface AuthenticatorOptions {
  client: AsyncClient<typeof auth.AuthServiceService>;
  clock: Clock;
  registry: Registry;
  /** Deadline of one verification call. */
  deadlineMs: number;
  /** Most verified tokens held. */
  cacheMax: number;
  /** Longest a verification is trusted without an event; bounds staleness if an event were ever missed. */
  cacheTtlMs: number;
  /** Consecutive failures that open the breaker, and how long it stays open before one trial call. */
  breakerThreshold?: number;
  breakerOpenMs?: number;
  /** Told of every accepted token, for its "last used" time. */
  onUse?: (tokenId: string, atMs: number) => void;
  /** `TOKEN_TAG_KEYS`: a tagged token is looked up only when its tag is right under one of them. */
  tagKeys?: TagKeyring;
  /**
   * Unix ms from which legacy (untagged) tokens are refused without a lookup, cached ones included;
   * null or absent: accepted (on the bounded, throttled path).
   */
  legacyUntilMs?: number | null;
  /** Lookups at once of tagged tokens not yet cached, and of legacy ones (anyone can make those). */
  lookupConcurrency?: number;
  legacyLookupConcurrency?: number;
  /** Failed authentications per client address per window before it is answered 429, no lookup. */
  failureLimit?: number;
  failureWindowMs?: number;
  failureMaxAddresses?: number;
}

/** Why a request with a token was not served; every one but the two 503s is also a failed authentication. */
const REJECTIONS = [
  'malformed',
  'bad_tag',
  'legacy_retired',
  'refused',
  'refused_cached',
  'throttled',
  'busy',
  'unavailable',
] as const;
type Rejection = (typeof REJECTIONS)[number];

const BEARER = /^Bearer +(\S+) *$/i;

/** A well-formed `Authorization` header as read: the token, its format and its cache key. */
interface ReadHeader {
  header: string;
  token: string;
  format: 'tagged' | 'legacy';
  key: string;
  /** In `reads`: found there, or put there once its token was found verified. */
  kept?: true;
}

const REFUSED_TTL_MS = 30_000;
/**
 * Headers kept read: a client sends the same one on every request (a proxy for many accounts, one of
 * several over the same connections), and reading it means a SHA-256 of the token.
 */
const READS_MAX = 10_000;

/** Auth's definite refusals: only these are remembered as refused. Anything else is not an answer. */
const REFUSALS = new Set([
  auth.VerifyOutcome.VERIFY_OUTCOME_UNKNOWN,
  auth.VerifyOutcome.VERIFY_OUTCOME_EXPIRED,
  auth.VerifyOutcome.VERIFY_OUTCOME_REVOKED,
  auth.VerifyOutcome.VERIFY_OUTCOME_SUSPENDED,
]);

/** A cached caller whose token expired is never served: `authenticate` drops it, `cachedCaller` defers to it. */
const hasExpired = (p: Principal, now: number) => p.expiresAtMs !== null && p.expiresAtMs <= now;

const unauthenticated = () =>
  new ApiError('authentication_required', 'send your API token as `Authorization: Bearer <token>`', {
    headers: { 'WWW-Authenticate': 'Bearer realm="api"' },
  });
const invalid = () =>
  new ApiError('invalid_token', 'the token is invalid, expired or revoked', {
    headers: { 'WWW-Authenticate': 'Bearer realm="api", error="invalid_token"' },
  });

/**
 * Bearer authentication at the gateway. Verified tokens are cached, so the steady state costs no hop and
 * a paying caller's request never waits on anything below. A token not cached is looked up only when
 * nobody without the server's key could have made it (its tag is right), or while legacy tokens are
 * still accepted, on a small bound of concurrent lookups with refusals per client address counted:
 * past the limit an address is answered 429 with no lookup. Malformed, badly tagged and refused tokens
 * all get the same 401 (no oracle). Events from NATS drop cached entries within moments of a
 * revocation, suspension or plan change; expiry is checked locally on every use. A dead auth service
 * opens the breaker (fast 503s) while tokens already verified keep working; its silence is never
 * remembered as a refusal.
 */
export class Authenticator {
  private readonly verified: LRUCache<string, Principal>;
  /** `Authorization` headers of tokens found verified, read (`read`); oldest dropped past `READS_MAX`. */
  private readonly reads = new Map<string, ReadHeader>();
  private readonly refused: LRUCache<string, true>;
  private readonly verifying = new Map<string, Promise<Principal | undefined>>();
  private readonly breaker;
  private readonly lookups: CellCounter<'result'>;
  private readonly invalidations: Counter<'reason'>;
  private readonly rejections: Counter<'reason'>;
  private readonly legacyUses: Counter;
  private readonly tagKeys: TagKeyring;
  private readonly bounds: { tagged: LookupBound; legacy: LookupBound };
  private readonly throttle: FailureThrottle;
  private readonly failureWindowMs: number;

  constructor(private readonly opts: AuthenticatorOptions) {
    this.tagKeys = opts.tagKeys ?? parseTagKeys(DEV_TAG_KEYS);
    this.bounds = {
      tagged: new LookupBound(opts.lookupConcurrency ?? 256),
      legacy: new LookupBound(opts.legacyLookupConcurrency ?? 4),
    };
    this.failureWindowMs = opts.failureWindowMs ?? 60_000;
    this.throttle = new FailureThrottle({
      limit: opts.failureLimit ?? 30,
      windowMs: this.failureWindowMs,
      maxAddresses: opts.failureMaxAddresses ?? 100_000,
      clock: opts.clock,
    });
    this.verified = new LRUCache({
      max: opts.cacheMax,
      ttl: opts.cacheTtlMs,
      ttlResolution: TTL_RESOLUTION_MS,
    });
    this.refused = new LRUCache({
      max: Math.max(1_000, Math.floor(opts.cacheMax / 10)),
      ttl: REFUSED_TTL_MS,
      ttlResolution: TTL_RESOLUTION_MS,
    });
    this.breaker = circuitBreaker(handleAll, {
      // One trial a second while auth is away: cheap, and a returned auth is used within about a second
      // (a trial can still fail while the channel waits out its reconnect backoff; the next one succeeds).
      halfOpenAfter: opts.breakerOpenMs ?? 1_000,
      breaker: new ConsecutiveBreaker(opts.breakerThreshold ?? 5),
    });
    this.lookups = new CellCounter({
      name: 'auth_cache_lookups_total',
      help: 'Token lookups at the gateway: hit, refused_hit (cached refusal), miss (asked auth)',
      labelNames: ['result'] as const,
      registers: [opts.registry],
    });
    this.invalidations = new Counter({
      name: 'auth_cache_invalidations_total',
      help: 'Cached verifications dropped, by the event that dropped them',
      labelNames: ['reason'] as const,
      registers: [opts.registry],
    });
    this.rejections = new Counter({
      name: 'gateway_auth_rejections_total',
      help: 'Requests with a token not served, by reason: malformed, bad_tag, legacy_retired, refused (auth said no), refused_cached, throttled (429: too many failures from the address), busy (503: lookups at their bound), unavailable (503: auth did not answer)',
      labelNames: ['reason'] as const,
      registers: [opts.registry],
    });
    for (const reason of REJECTIONS) this.rejections.inc({ reason }, 0);
    this.legacyUses = new Counter({
      name: 'gateway_auth_legacy_token_requests_total',
      help: 'Requests authenticated with a legacy (untagged) token: its owner has yet to rotate it',
      registers: [opts.registry],
    });
    const bounds = this.bounds;
    new Gauge({
      name: 'gateway_auth_lookups_in_flight',
      help: 'Token lookups waiting on the auth service, by format (tagged, legacy); each is bounded',
      labelNames: ['format'] as const,
      registers: [opts.registry],
      collect() {
        this.set({ format: 'tagged' }, bounds.tagged.current);
        this.set({ format: 'legacy' }, bounds.legacy.current);
      },
    });
    const throttle = this.throttle;
    new Gauge({
      name: 'gateway_auth_throttled_addresses',
      help: 'Client addresses (IPv6: /64s) answered 429 for too many failed authentications right now',
      registers: [opts.registry],
      collect() {
        this.set(throttle.throttledCount());
      },
    });
    const breaker = this.breaker;
    new Gauge({
      name: 'auth_circuit_open',
      help: '1 while the breaker in front of the auth service is open (auth calls short-circuited)',
      registers: [opts.registry],
      collect() {
        this.set(breaker.state === CircuitState.Open ? 1 : 0);
      },
    });
  }

  /**
   * The caller behind an `Authorization` header, or the 401/429/503 to answer with. `clientAddress` is
   * the request's address as the trusted proxies give it (fastify's `req.ip`); `span`, the request's,
   * which a lookup at the auth service joins (absent: the active context's).
   */
  async authenticate(header: string | undefined, clientAddress = '', span?: Span): Promise<Principal> {
    const read = this.read(header, clientAddress);
    const { token, format, key } = read;
    const now = this.opts.clock();

    // A cached token was verified by auth: it is served before anything a flood can occupy is consulted.
    const cached = this.verified.get(key);
    if (cached) {
      this.lookups.cell('hit').inc();
      if (cached.legacy) {
        if (this.legacyRetired(now)) throw this.reject(clientAddress, 'legacy_retired');
        this.legacyUses.inc();
      }
      if (hasExpired(cached, now)) {
        this.verified.delete(key);
        throw invalid();
      }
      this.opts.onUse?.(cached.tokenId, now);
      this.keepRead(read);
      return cached;
    }
    if (format === 'tagged') {
      // Nobody without the key makes a right tag: these alone are looked up whatever their address.
      if (!hasValidTag(token, this.tagKeys)) throw this.reject(clientAddress, 'bad_tag');
      return this.lookUp(token, key, now, 'tagged', clientAddress, span);
    }
    // Anyone can make a legacy token: an address that keeps failing is not looked at.
    const waitMs = this.throttle.retryAfterMs(clientAddress);
    if (waitMs > 0) throw this.throttled(waitMs);
    if (!isWellFormedLegacyToken(token)) throw this.reject(clientAddress, 'malformed');
    if (this.legacyRetired(now)) throw this.reject(clientAddress, 'legacy_retired');
    return this.lookUp(token, key, now, 'legacy', clientAddress, span);
  }

  /**
   * The caller of a header read before whose token the cache holds and may serve as it is (tagged, not
   * expired): most requests, answered here without the promise and the turn that `authenticate` costs.
   * Undefined for anything else, which `authenticate` answers (and counts).
   */
  cachedCaller(header: string | undefined): Principal | undefined {
    const read = header === undefined ? undefined : this.reads.get(header);
    const cached = read === undefined ? undefined : this.verified.get(read.key);
    if (cached === undefined || cached.legacy) return undefined;
    const now = this.opts.clock();
    if (hasExpired(cached, now)) return undefined;
    this.lookups.cell('hit').inc();
    this.opts.onUse?.(cached.tokenId, now);
    return cached;
  }

  /**
   * The token an `Authorization` header carries, its format and its cache key. Only reading: whether the
   * token is good is asked of the cache or auth on every request, whether or not the header was read before.
   */
  private read(header: string | undefined, clientAddress: string): ReadHeader {
    if (header === undefined) throw unauthenticated();
    const known = this.reads.get(header);
    if (known !== undefined) return known;
    const match = BEARER.exec(header);
    if (!match) throw unauthenticated();
    const token = match[1]!;
    const format = tokenFormat(token);
    if (!format) throw this.reject(clientAddress, 'malformed');
    return { header, token, format, key: tokenFingerprint(token) };
  }

  /** Kept only once its token was found verified: a flood of made-up tokens never displaces a subscriber's. */
  private keepRead(read: ReadHeader): void {
    if (read.kept) return;
    if (this.reads.size >= READS_MAX) this.reads.delete(this.reads.keys().next().value!);
    read.kept = true;
    this.reads.set(read.header, read);
  }

  private legacyRetired(now: number): boolean {
    const until = this.opts.legacyUntilMs;
    return until !== undefined && until !== null && now >= until;
  }

  /**
   * A 401 counted against the address, or the 429 when the address is already over its limit. A tagged
   * token auth refused (revoked, expired) gets its 401 whatever the address: only its owner holds it, and
   * its refusal is cached.
   */
  private reject(clientAddress: string, reason: Rejection, gated = true): ApiError {
    const waitMs = gated ? this.throttle.retryAfterMs(clientAddress) : 0;
    if (waitMs > 0) return this.throttled(waitMs);
    this.throttle.fail(clientAddress);
    this.rejections.inc({ reason });
    return invalid();
  }

  private throttled(waitMs: number): ApiError {
    this.rejections.inc({ reason: 'throttled' });
    const seconds = Math.max(1, Math.ceil(waitMs / 1000));
    return new ApiError('rate_limited', 'too many failed authentications from this address; retry later', {
      headers: {
        'Retry-After': seconds,
        'X-RateLimit-Reset': Math.ceil((this.opts.clock() + waitMs) / 1000),
      },
    });
  }

  private async lookUp(
    token: string,
    key: string,
    now: number,
    format: 'tagged' | 'legacy',
    clientAddress: string,
    span: Span | undefined,
  ): Promise<Principal> {
    if (this.refused.has(key)) {
      this.lookups.cell('refused_hit').inc();
      throw this.reject(clientAddress, 'refused_cached', format === 'legacy');
    }
    // Concurrent first requests with one token share one verification (no stampede on the auth service).
    let inFlight = this.verifying.get(key);
    if (!inFlight) {
      const bound = this.bounds[format];
      if (!bound.tryAcquire()) {
        this.rejections.inc({ reason: 'busy' });
        throw ApiError.serviceUnavailable();
      }
      this.lookups.cell('miss').inc();
      const ctx = span ? trace.setSpan(context.active(), span) : context.active();
      inFlight = context
        .with(ctx, () => this.verify(token, key, format === 'legacy'))
        .finally(() => {
          bound.release();
          this.verifying.delete(key);
        });
      this.verifying.set(key, inFlight);
    }
    const principal = await inFlight;
    if (!principal) throw this.reject(clientAddress, 'refused', format === 'legacy');
    if (principal.legacy) this.legacyUses.inc();
    this.opts.onUse?.(principal.tokenId, now);
    return principal;
  }

  /** The principal, undefined when auth refused the token, or a 503 when auth gave no answer. */
  private async verify(token: string, key: string, legacy: boolean): Promise<Principal | undefined> {
    let response: auth.VerifyTokenResponse;
    try {
      response = await this.breaker.execute(() =>
        this.opts.client.verifyToken({ token }, { deadlineMs: this.opts.deadlineMs }),
      );
    } catch (err) {
      this.rejections.inc({ reason: 'unavailable' });
      throw ApiError.serviceUnavailable(err instanceof BrokenCircuitError ? undefined : err);
    }
    const p = response.principal;
    if (response.outcome === auth.VerifyOutcome.VERIFY_OUTCOME_VALID && p) {
      const principal: Principal = {
        tokenId: p.token_id,
        accountId: p.account_id,
        plan: p.plan,
        dailyCap: p.daily_cap ?? null,
        monthlyCap: p.monthly_cap ?? null,
        expiresAtMs: p.expires_at_ms ?? null,
        burstPerMinute: p.burst_per_minute ?? null,
        ...(legacy ? { legacy: true } : {}),
      };
      this.verified.set(key, principal);
      return principal;
    }
    if (REFUSALS.has(response.outcome)) {
      this.refused.set(key, true);
      return undefined;
    }
    // Not an answer (an unset outcome, one this gateway does not know, VALID without a principal): a
    // fault on auth's side, so a 503 to retry, never remembered as "invalid".
    this.rejections.inc({ reason: 'unavailable' });
    throw ApiError.serviceUnavailable();
  }

  onTokenRevoked(event: TokenRevoked): void {
    this.dropWhere((p) => p.tokenId === event.token_id, 'token_revoked');
  }

  onAccountChanged(event: AccountChanged): void {
    this.dropWhere((p) => p.accountId === event.account_id, `account_${event.change}`);
  }

  onPlanChanged(event: PlanChanged): void {
    this.dropWhere((p) => p.plan === event.plan, 'plan_changed');
  }

  /** After a NATS outage events may have been missed: trust nothing cached. */
  clear(reason: string): void {
    const n = this.verified.size;
    this.verified.clear();
    this.refused.clear();
    this.invalidations.inc({ reason }, n);
  }

  private dropWhere(match: (p: Principal) => boolean, reason: string): void {
    let n = 0;
    for (const [key, principal] of this.verified.entries()) {
      if (match(principal)) {
        this.verified.delete(key);
        n++;
      }
    }
    // A token refused earlier (e.g. while suspended) may be good now.
    if (reason === 'account_reactivated' || reason === 'plan_changed' || reason === 'account_plan_changed')
      this.refused.clear();
    this.invalidations.inc({ reason }, n);
  }
}

/** Feeds auth events from NATS into the authenticator's cache. */
export function subscribeAuthEvents(nc: NatsConnection, authenticator: Authenticator, logger: Logger): void {
  subscribeJson<TokenRevoked>(nc, AUTH_EVENTS.tokenRevoked, (e) => authenticator.onTokenRevoked(e), logger);
  subscribeJson<AccountChanged>(
    nc,
    AUTH_EVENTS.accountChanged,
    (e) => authenticator.onAccountChanged(e),
    logger,
  );
  subscribeJson<PlanChanged>(nc, AUTH_EVENTS.planChanged, (e) => authenticator.onPlanChanged(e), logger);
}
