import { existsSync } from 'node:fs';
import { DEFAULT_PORTS, databaseConfig, type GrpcServiceName } from '@mdp/config';
import { migratedPool, type Pool } from '@mdp/db';
import { GrpcServer } from '@mdp/grpc';
import { type Static, type TObject, type TProperties, Type } from '@sinclair/typebox';
import { bootstrap, exitOnStartupError, type Runtime, serveUntilSignal } from './bootstrap.ts';

/** The variables every gRPC service reads besides the common ones. */
function grpcVariables(name: GrpcServiceName, defaultSchema: string) {
  return {
    ...databaseConfig,
    GRPC_HOST: Type.String({ default: '0.0.0.0' }),
    GRPC_PORT: Type.Integer({ default: DEFAULT_PORTS[name].grpc, minimum: 0, maximum: 65535 }),
    OPS_PORT: Type.Integer({ default: DEFAULT_PORTS[name].ops, minimum: 0, maximum: 65535 }),
    DB_SCHEMA: Type.String({ default: defaultSchema, pattern: '^[a-z_][a-z0-9_]{0,62}$' }),
  };
}

/** A service's runtime, its `config` typed from the gRPC variables and the service's own (`P`). */
export type GrpcServiceRuntime<P extends TProperties = {}> = Runtime<
  Static<TObject<ReturnType<typeof grpcVariables>>> & Static<TObject<P>>
>;

/** What `build` hands back: the server, and anything besides the pool to release after draining. */
export interface BuiltService {
  server: GrpcServer;
  /** Readiness beyond the database (e.g. a message broker connection). */
  ready?: () => boolean;
  /** Work to finish while clients are still connected, before the server drains (within the grace). */
  beforeDrain?: (graceMs: number) => Promise<void>;
  /**
   * Listen only once this resolves (the ops port serves meanwhile): clients that cannot connect go
   * elsewhere until the service can answer them (the ledger's gateways, to a shard's relief).
   */
  listenWhen?: Promise<void>;
  close?: () => Promise<void>;
}

export interface GrpcServiceSpec<P extends TProperties = {}> {
  name: GrpcServiceName;
  /** The Postgres schema this service owns by default (each test uses its own). */
  defaultSchema: string;
  /** SQL migrations folder; the schema is created even when there is none yet. */
  migrationsDir: URL;
  /** Configuration beyond the common and database variables (validated with them at start-up). */
  config?: P;
  build: (
    rt: GrpcServiceRuntime<P>,
    pool: Pool,
  ) => GrpcServer | BuiltService | Promise<GrpcServer | BuiltService>;
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
export async function runGrpcService<P extends TProperties = {}>(spec: GrpcServiceSpec<P>): Promise<void> {
  const schema = Type.Object({ ...spec.config, ...grpcVariables(spec.name, spec.defaultSchema) });
  // TypeBox cannot compute Static of a schema over a type parameter; loadConfig has validated it.
  const rt = bootstrap(spec.name, schema) as unknown as GrpcServiceRuntime<P>;
  const { config, logger } = rt;
  try {
    const dir = spec.migrationsDir.pathname;
    const pool = await migratedPool({
      url: config.DATABASE_URL,
      schema: config.DB_SCHEMA,
      dir: existsSync(dir) ? dir : null,
      max: config.DB_POOL_MAX,
      applicationName: spec.name,
      logger,
      poolLogger: logger,
    });
    const built = await spec.build(rt, pool);
    const { server, close, ready, beforeDrain, listenWhen }: BuiltService =
      built instanceof GrpcServer ? { server: built } : built;
    const dbReady = cachedProbe(async () => (await pool.query('SELECT 1')).rowCount === 1);
    let draining = false;
    const listen = () => server.listen(config.GRPC_HOST, config.GRPC_PORT);
    const early = listenWhen ? null : await listen();
    const ops = await serveUntilSignal(rt, config.OPS_PORT, {
      ready: async () => (ready?.() ?? true) && (await dbReady()),
      drain: async (graceMs) => {
        draining = true;
        const started = Date.now();
        await beforeDrain?.(graceMs);
        await server.shutdown(Math.max(0, graceMs - (Date.now() - started)));
      },
      close: async () => {
        await close?.();
        await pool.end();
      },
    });
    if (listenWhen) await listenWhen;
    // Asked to stop while it waited: it never listens.
    if (draining) return;
    const port = early ?? (await listen());
    logger.info({ grpcPort: port, opsPort: ops.port, schema: config.DB_SCHEMA }, `${spec.name} listening`);
  } catch (err) {
    exitOnStartupError(rt, err);
  }
}
