import { randomBytes } from 'node:crypto';
import { DEFAULT_PORTS, usageStreamConfig } from '@mdp/config';
import { systemClock } from '@mdp/nse-calendar';
import { bootstrap, exitOnStartupError, serveUntilSignal } from '@mdp/runtime';
import { DEV_TAG_KEYS, parseTagKeys, TAG_KEYS_PATTERN, type TagKeyring, usesDevTagKey } from '@mdp/tokens';
import { Type } from '@sinclair/typebox';
import { buildGateway } from './app.ts';
import { trustedProxies } from './auth-throttle.ts';
import { connectDependencies } from './dependencies.ts';

const address = (service: keyof typeof DEFAULT_PORTS, port: number) =>
  Type.String({
    default: `localhost:${port}`,
    description: `gRPC target of ${service}: host:port, or dns:///name:port to spread calls over every address the name has`,
  });

const rt = bootstrap(
  'gateway',
  Type.Object({
    HOST: Type.String({ default: '0.0.0.0' }),
    PORT: Type.Integer({ default: DEFAULT_PORTS.gateway.http, minimum: 0, maximum: 65535 }),
    OPS_PORT: Type.Integer({ default: DEFAULT_PORTS.gateway.ops, minimum: 0, maximum: 65535 }),
    AUTH_ADDR: address('auth', DEFAULT_PORTS.auth.grpc),
    EQUITIES_ADDR: address('equities-data', DEFAULT_PORTS['equities-data'].grpc),
    FILINGS_ADDR: address('filings-reader', DEFAULT_PORTS['filings-reader'].grpc),
    OPTIONS_ADDR: address('options-analytics', DEFAULT_PORTS['options-analytics'].grpc),
    LEDGER_ADDR: Type.String({
      default: `localhost:${DEFAULT_PORTS['quota-ledger'].grpc}`,
      pattern: '^[^,\\s]+(,[^,\\s]+)*$',
      description: 'host:port of each quota-ledger shard, comma-separated, in shard order',
    }),
    ...usageStreamConfig,
    UPSTREAM_DEADLINE_MS: Type.Integer({ default: 2_500, minimum: 50, maximum: 60_000 }),
    AUTH_DEADLINE_MS: Type.Integer({ default: 300, minimum: 20, maximum: 5_000 }),
    AUTH_CACHE_MAX: Type.Integer({ default: 100_000, minimum: 100, maximum: 10_000_000 }),
    AUTH_CACHE_TTL_MS: Type.Integer({ default: 300_000, minimum: 1_000, maximum: 86_400_000 }),
    ADMISSION_DEADLINE_MS: Type.Integer({ default: 300, minimum: 20, maximum: 5_000 }),
    SETTLE_ACK_TIMEOUT_MS: Type.Integer({ default: 1_500, minimum: 100, maximum: 30_000 }),
    SETTLE_ATTEMPT_TIMEOUT_MS: Type.Integer({
      default: 200,
      minimum: 20,
      maximum: 30_000,
      description:
        'How long one publish of a charge waits for JetStream before it is sent again (within SETTLE_ACK_TIMEOUT_MS); three such timeouts in a row open the settlement breaker: metered requests get a fast 503 until a probe is acknowledged',
    }),
    SETTLE_LINGER_MS: Type.Integer({
      default: 0,
      minimum: 0,
      maximum: 50,
      description:
        "How long a shard's charges may keep gathering into one JetStream message while its previous one awaits its acknowledgement (0: each event-loop turn's charges go at the turn's end)",
    }),
    DATA_CACHE_TTL_MS: Type.Integer({ default: 30_000, minimum: 0, maximum: 86_400_000 }),
    DATA_CACHE_MAX_MB: Type.Integer({ default: 64, minimum: 1, maximum: 16_384 }),
    SITE_CSRF_KEY: Type.String({
      default: '',
      maxLength: 1_000,
      pattern: '^$|^.{32,}$',
      description:
        "Keys the account web site's CSRF tokens (at least 32 characters); every replica must share it. Empty: a random key per process (one replica only)",
    }),
    TRUST_PROXY_HOPS: Type.Integer({
      default: 0,
      minimum: 0,
      maximum: 10,
      description:
        'Proxies in front of the gateway whose X-Forwarded-For/-Proto are believed (client address for sign-in limits, failed-authentication throttle, Secure cookies)',
    }),
    TRUSTED_PROXY_CIDRS: Type.String({
      default: '127.0.0.0/8,::1/128',
      maxLength: 4_000,
      description:
        'Addresses (CIDRs, comma-separated) a hop must come from for its X-Forwarded-For/-Proto to be believed, within TRUST_PROXY_HOPS',
    }),
    TOKEN_TAG_KEYS: Type.String({
      default: DEV_TAG_KEYS,
      pattern: TAG_KEYS_PATTERN,
      description:
        "Keys of API tokens' tags, <id>:<key>[,<id>:<key>…], the auth service's list: a token is looked up only when its tag is right under one",
    }),
    LEGACY_TOKENS_UNTIL: Type.String({
      default: '',
      pattern: '^$|^\\d{4}-\\d{2}-\\d{2}(T[0-9:.]+(Z|[+-]\\d{2}:\\d{2}))?$',
      description:
        'From this date (ISO 8601, UTC when a day) tokens of the legacy untagged format are refused without a lookup; empty: still accepted',
    }),
    AUTH_LOOKUP_CONCURRENCY: Type.Integer({ default: 256, minimum: 1, maximum: 10_000 }),
    AUTH_LEGACY_LOOKUP_CONCURRENCY: Type.Integer({ default: 4, minimum: 1, maximum: 10_000 }),
    AUTH_FAILURE_LIMIT: Type.Integer({ default: 30, minimum: 1, maximum: 1_000_000 }),
    AUTH_FAILURE_WINDOW_MS: Type.Integer({ default: 60_000, minimum: 1_000, maximum: 86_400_000 }),
    AUTH_FAILURE_MAX_ADDRESSES: Type.Integer({ default: 100_000, minimum: 100, maximum: 10_000_000 }),
  }),
);
const { config, logger } = rt;

/**
 * What the schema cannot say about the token settings, checked as it is: exit 78 naming the variable,
 * never echoing a key.
 */
function tokenSettings(): { tagKeys: TagKeyring; legacyUntilMs: number | null } {
  try {
    trustedProxies(config.TRUST_PROXY_HOPS, config.TRUSTED_PROXY_CIDRS);
    const legacyUntilMs = config.LEGACY_TOKENS_UNTIL ? Date.parse(config.LEGACY_TOKENS_UNTIL) : null;
    if (legacyUntilMs !== null && Number.isNaN(legacyUntilMs))
      throw new Error(`LEGACY_TOKENS_UNTIL is not a date: "${config.LEGACY_TOKENS_UNTIL}"`);
    return { tagKeys: parseTagKeys(config.TOKEN_TAG_KEYS), legacyUntilMs };
  } catch (err) {
    process.stderr.write(`gateway: invalid configuration: ${(err as Error).message}\n`);
    process.exit(78); // EX_CONFIG, as for the schema's own refusals
  }
}
const { tagKeys, legacyUntilMs } = tokenSettings();

try {
  if (usesDevTagKey(tagKeys))
    logger.warn('TOKEN_TAG_KEYS is the development key: anyone can tag tokens; set your own in production');
  const deps = await connectDependencies({
    addresses: {
      auth: config.AUTH_ADDR,
      equities: config.EQUITIES_ADDR,
      filings: config.FILINGS_ADDR,
      options: config.OPTIONS_ADDR,
      ledger: config.LEDGER_ADDR.split(','),
    },
    natsUrl: config.NATS_URL,
    usageStream: config.USAGE_STREAM,
    usageSubject: config.USAGE_SUBJECT,
    usageRetentionDays: config.USAGE_RETENTION_DAYS,
    usageReplicas: config.USAGE_STREAM_REPLICAS,
    holdTtlMs: config.HOLD_TTL_MS,
    upstreamDeadlineMs: config.UPSTREAM_DEADLINE_MS,
    authDeadlineMs: config.AUTH_DEADLINE_MS,
    authCacheMax: config.AUTH_CACHE_MAX,
    authCacheTtlMs: config.AUTH_CACHE_TTL_MS,
    authFlood: {
      tagKeys,
      legacyUntilMs,
      lookupConcurrency: config.AUTH_LOOKUP_CONCURRENCY,
      legacyLookupConcurrency: config.AUTH_LEGACY_LOOKUP_CONCURRENCY,
      failureLimit: config.AUTH_FAILURE_LIMIT,
      failureWindowMs: config.AUTH_FAILURE_WINDOW_MS,
      failureMaxAddresses: config.AUTH_FAILURE_MAX_ADDRESSES,
    },
    admissionDeadlineMs: config.ADMISSION_DEADLINE_MS,
    settleAckTimeoutMs: config.SETTLE_ACK_TIMEOUT_MS,
    settleAttemptTimeoutMs: config.SETTLE_ATTEMPT_TIMEOUT_MS,
    settleLingerMs: config.SETTLE_LINGER_MS,
    dataCacheTtlMs: config.DATA_CACHE_TTL_MS,
    dataCacheMaxBytes: config.DATA_CACHE_MAX_MB * 1024 * 1024,
    clock: systemClock,
    logger,
    registry: rt.registry,
  });
  let siteCsrfKey = config.SITE_CSRF_KEY;
  if (!siteCsrfKey) {
    logger.warn('SITE_CSRF_KEY is not set: using a random key, valid for this process only');
    siteCsrfKey = randomBytes(32).toString('base64url');
  }
  const app = await buildGateway({
    siteCsrfKey,
    trustProxyHops: config.TRUST_PROXY_HOPS,
    trustedProxyCidrs: config.TRUSTED_PROXY_CIDRS,
    logger,
    tracer: rt.tracing.tracer,
    registry: rt.registry,
    clock: systemClock,
    ...deps,
  });
  await app.listen({ host: config.HOST, port: config.PORT });
  const ops = await serveUntilSignal(rt, config.OPS_PORT, {
    ready: deps.isConnected,
    drain: () => app.close(),
    close: deps.close,
  });
  logger.info(
    { port: config.PORT, opsPort: ops.port },
    `gateway listening on http://localhost:${config.PORT}`,
  );
} catch (err) {
  exitOnStartupError(rt, err);
}
