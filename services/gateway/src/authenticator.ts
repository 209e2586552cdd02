import { ApiError } from '@mdp/errors';
import type { AsyncClient } from '@mdp/grpc';
import type { Clock } from '@mdp/ist-time';
import {
  type AccountChanged,
  AUTH_EVENTS,
  type NatsConnection,
  type PlanChanged,
  subscribeJson,
  type TokenRevoked,
} from '@mdp/nats';
import { auth } from '@mdp/proto';
import type { Logger } from '@mdp/telemetry';
import { Counter, Gauge, type Registry } from '@mdp/telemetry';
import { isWellFormedToken, TOKEN_LENGTH, tokenFingerprint } from '@mdp/tokens';
import { BrokenCircuitError, CircuitState, ConsecutiveBreaker, circuitBreaker, handleAll } from 'cockatiel';
import { LRUCache } from 'lru-cache';

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
}

const BEARER = /^Bearer +(\S+) *$/i;
const REFUSED_TTL_MS = 30_000;

const unauthenticated = () =>
  new ApiError('authentication_required', 'send your API token as `Authorization: Bearer <token>`', {
    headers: { 'WWW-Authenticate': 'Bearer realm="api"' },
  });
const invalid = () =>
  new ApiError('invalid_token', 'the token is invalid, expired or revoked', {
    headers: { 'WWW-Authenticate': 'Bearer realm="api", error="invalid_token"' },
  });

/**
 * Bearer authentication at the gateway. Malformed tokens are refused without a lookup; verified ones
 * are cached so the steady state costs no hop; refusals are cached briefly so a flood of made-up tokens
 * cannot reach the auth service. Events from NATS drop cached entries within moments of a revocation,
 * suspension or plan change; expiry is checked locally on every use. A dead auth service opens the
 * breaker (fast 503s) while tokens already verified keep working.
 */
export class Authenticator {
  private readonly verified: LRUCache<string, Principal>;
  private readonly refused: LRUCache<string, true>;
  private readonly verifying = new Map<string, Promise<Principal>>();
  private readonly breaker;
  private readonly lookups: Counter<'result'>;
  private readonly invalidations: Counter<'reason'>;

  constructor(private readonly opts: AuthenticatorOptions) {
    this.verified = new LRUCache({ max: opts.cacheMax, ttl: opts.cacheTtlMs });
    this.refused = new LRUCache({
      max: Math.max(1_000, Math.floor(opts.cacheMax / 10)),
      ttl: REFUSED_TTL_MS,
    });
    this.breaker = circuitBreaker(handleAll, {
      // One trial a second while auth is away: cheap, and a returned auth is used within about a second
      // (a trial can still fail while the channel waits out its reconnect backoff; the next one succeeds).
      halfOpenAfter: opts.breakerOpenMs ?? 1_000,
      breaker: new ConsecutiveBreaker(opts.breakerThreshold ?? 5),
    });
    this.lookups = new Counter({
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

  /** The caller behind an `Authorization` header, or the 401/503 to answer with. */
  async authenticate(header: string | undefined): Promise<Principal> {
    const match = header ? BEARER.exec(header) : null;
    if (!match) throw unauthenticated();
    const token = match[1]!;
    if (token.length !== TOKEN_LENGTH) throw invalid();
    const key = tokenFingerprint(token);
    const now = this.opts.clock();

    // A cached token was verified by auth, so it is well formed: the checksum (a CRC and two buffers,
    // about 1% of the gateway's CPU) is checked only before anything else is done with a new one.
    const cached = this.verified.get(key);
    if (cached) {
      this.lookups.inc({ result: 'hit' });
      if (cached.expiresAtMs !== null && cached.expiresAtMs <= now) {
        this.verified.delete(key);
        throw invalid();
      }
      this.opts.onUse?.(cached.tokenId, now);
      return cached;
    }
    if (!isWellFormedToken(token)) throw invalid();
    if (this.refused.has(key)) {
      this.lookups.inc({ result: 'refused_hit' });
      throw invalid();
    }
    this.lookups.inc({ result: 'miss' });
    // Concurrent first requests with one token share one verification (no stampede on the auth service).
    let inFlight = this.verifying.get(key);
    if (!inFlight) {
      inFlight = this.verify(token, key).finally(() => this.verifying.delete(key));
      this.verifying.set(key, inFlight);
    }
    const principal = await inFlight;
    this.opts.onUse?.(principal.tokenId, now);
    return principal;
  }

  private async verify(token: string, key: string): Promise<Principal> {
    let response: auth.VerifyTokenResponse;
    try {
      response = await this.breaker.execute(() =>
        this.opts.client.verifyToken({ token }, { deadlineMs: this.opts.deadlineMs }),
      );
    } catch (err) {
      throw ApiError.serviceUnavailable(5, err instanceof BrokenCircuitError ? undefined : err);
    }
    const p = response.principal;
    if (response.outcome !== auth.VerifyOutcome.VERIFY_OUTCOME_VALID || !p) {
      this.refused.set(key, true);
      throw invalid();
    }
    const principal: Principal = {
      tokenId: p.token_id,
      accountId: p.account_id,
      plan: p.plan,
      dailyCap: p.daily_cap ?? null,
      monthlyCap: p.monthly_cap ?? null,
      expiresAtMs: p.expires_at_ms ?? null,
      burstPerMinute: p.burst_per_minute ?? null,
    };
    this.verified.set(key, principal);
    return principal;
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
