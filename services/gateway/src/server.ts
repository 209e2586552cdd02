import { randomBytes } from 'node:crypto';
import { DEFAULT_PORTS, usageStreamConfig } from '@mdp/config';
import { systemClock } from '@mdp/ist-time';
import { bootstrap, exitOnStartupError, serveUntilSignal } from '@mdp/runtime';
import { Type } from '@sinclair/typebox';
import { buildGateway } from './app.ts';
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
        'Proxies in front of the gateway whose X-Forwarded-For/-Proto are believed (client address for sign-in limits, Secure cookies)',
    }),
  }),
);
const { config, logger } = rt;

try {
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
    admissionDeadlineMs: config.ADMISSION_DEADLINE_MS,
    settleAckTimeoutMs: config.SETTLE_ACK_TIMEOUT_MS,
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
