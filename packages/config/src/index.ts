import { type Static, type TObject, type TProperties, Type } from '@sinclair/typebox';
import envSchema from 'env-schema';

/**
 * Configuration is a validated schema read once at start-up from the environment. A bad value stops the
 * process with a message naming the variable; nothing downstream re-reads `process.env`.
 */
export function loadConfig<T extends TObject>(schema: T, env: NodeJS.ProcessEnv = process.env): Static<T> {
  return envSchema({ schema, data: [env], dotenv: false }) as Static<T>;
}

/** Variables every service reads. */
export const commonConfig = {
  LOG_LEVEL: Type.Union(
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)),
    { default: 'info' },
  ),
  OPS_HOST: Type.String({ default: '0.0.0.0' }),
  OTEL_EXPORTER_OTLP_ENDPOINT: Type.Optional(Type.String({ pattern: '^https?://' })),
  SHUTDOWN_GRACE_MS: Type.Integer({ default: 10_000, minimum: 0, maximum: 120_000 }),
} satisfies TProperties;

export const databaseConfig = {
  DATABASE_URL: Type.String({ default: 'postgres://postgres@localhost:5432/mdp' }),
  DB_POOL_MAX: Type.Integer({ default: 10, minimum: 1, maximum: 200 }),
} satisfies TProperties;

/** Where NATS (with JetStream) is: auth events, settlements, data-change announcements. */
export const natsConfig = {
  NATS_URL: Type.String({ default: 'nats://localhost:4222' }),
} satisfies TProperties;

/**
 * Where settlement events live. The gateway (publisher) and every ledger shard (consumer) read the
 * same variables and each declares the stream with them at start-up, so neither depends on the other
 * having started first and a change (retention, replicas) is applied by whichever starts next.
 */
export const usageStreamConfig = {
  ...natsConfig,
  USAGE_STREAM: Type.String({ default: 'USAGE', pattern: '^[A-Za-z0-9_-]{1,64}$' }),
  USAGE_SUBJECT: Type.String({ default: 'usage', pattern: '^[A-Za-z0-9_-]{1,64}$' }),
  USAGE_RETENTION_DAYS: Type.Integer({ default: 7, minimum: 1, maximum: 365 }),
  HOLD_TTL_MS: Type.Integer({
    default: 30_000,
    minimum: 1_000,
    maximum: 600_000,
    description:
      'How long an admitted request counts as in flight without settling (ledger), and is kept for restoring after a ledger restart (gateway)',
  }),
  USAGE_STREAM_REPLICAS: Type.Integer({
    default: 1,
    minimum: 1,
    maximum: 5,
    description: 'JetStream replicas of the settlement stream: 3 on a clustered NATS',
  }),
} satisfies TProperties;

/** Default listening ports, one place for every process and for `make run`. */
export const DEFAULT_PORTS = {
  gateway: { http: 8080, ops: 9100 },
  auth: { grpc: 50051, ops: 9101 },
  'quota-ledger': { grpc: 50052, ops: 9102 },
  'equities-data': { grpc: 50053, ops: 9103 },
  'filings-reader': { grpc: 50054, ops: 9104 },
  'options-analytics': { grpc: 50055, ops: 9105 },
} as const;

export type ServiceName = keyof typeof DEFAULT_PORTS;
export type GrpcServiceName = Exclude<ServiceName, 'gateway'>;

export { Type };
