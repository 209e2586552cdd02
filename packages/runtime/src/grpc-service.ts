import { existsSync } from 'node:fs';
import { DEFAULT_PORTS, databaseConfig, type GrpcServiceName } from '@mdp/config';
import { createPool, migrate, type Pool } from '@mdp/db';
import type { GrpcServer } from '@mdp/grpc';
import { Type } from '@sinclair/typebox';
import { bootstrap, exitOnStartupError, type Runtime, serveUntilSignal } from './index.ts';

function grpcServiceConfig(name: GrpcServiceName, defaultSchema: string) {
  return Type.Object({
    ...databaseConfig,
    GRPC_HOST: Type.String({ default: '0.0.0.0' }),
    GRPC_PORT: Type.Integer({ default: DEFAULT_PORTS[name].grpc, minimum: 0, maximum: 65535 }),
    OPS_PORT: Type.Integer({ default: DEFAULT_PORTS[name].ops, minimum: 0, maximum: 65535 }),
    DB_SCHEMA: Type.String({ default: defaultSchema, pattern: '^[a-z_][a-z0-9_]{0,62}$' }),
  });
}

export type GrpcServiceRuntime = Runtime<{ DATABASE_URL: string; DB_SCHEMA: string }>;

export interface GrpcServiceSpec {
  name: GrpcServiceName;
  /** The Postgres schema this service owns by default (each test uses its own). */
  defaultSchema: string;
  /** SQL migrations folder; the schema is created even when there is none yet. */
  migrationsDir: URL;
  build: (rt: GrpcServiceRuntime, pool: Pool) => GrpcServer | Promise<GrpcServer>;
}

/** Caches a readiness probe's answer briefly so a scraping load balancer costs one query a second. */
function cachedProbe(probe: () => Promise<boolean>, ttlMs = 1_000): () => Promise<boolean> {
  let last = { at: 0, ok: false };
  return async () => {
    if (Date.now() - last.at < ttlMs) return last.ok;
    const ok = await probe().catch(() => false);
    last = { at: Date.now(), ok };
    return ok;
  };
}

/** The whole life of a gRPC service process: config, migrations, serve, drain on signal. */
export async function runGrpcService(spec: GrpcServiceSpec): Promise<void> {
  const rt = bootstrap(spec.name, grpcServiceConfig(spec.name, spec.defaultSchema));
  const { config, logger } = rt;
  try {
    const dir = spec.migrationsDir.pathname;
    await migrate({
      url: config.DATABASE_URL,
      schema: config.DB_SCHEMA,
      dir: existsSync(dir) ? dir : null,
      logger,
    });
    const pool = createPool({
      url: config.DATABASE_URL,
      schema: config.DB_SCHEMA,
      max: config.DB_POOL_MAX,
      applicationName: spec.name,
    });
    const server = await spec.build(rt, pool);
    const port = await server.listen(config.GRPC_HOST, config.GRPC_PORT);
    const ops = await serveUntilSignal(rt, config.OPS_PORT, {
      ready: cachedProbe(async () => (await pool.query('SELECT 1')).rowCount === 1),
      drain: (graceMs) => server.shutdown(graceMs),
      close: () => pool.end(),
    });
    logger.info({ grpcPort: port, opsPort: ops.port, schema: config.DB_SCHEMA }, `${spec.name} listening`);
  } catch (err) {
    exitOnStartupError(rt, err);
  }
}
