import { commonConfig, loadConfig, type ServiceName } from '@mdp/config';
import {
  createLogger,
  createRegistry,
  initTracing,
  type Logger,
  type OpsServer,
  type Registry,
  startOpsServer,
  type Tracing,
} from '@mdp/telemetry';
import { type Static, type TObject, Type } from '@sinclair/typebox';
import { assertSupportedNode } from './node-version.ts';
import { keepTickShape } from './tick-shape.ts';

type CommonConfig = Static<TObject<typeof commonConfig>>;

export interface Runtime<C> {
  name: ServiceName;
  config: C & CommonConfig;
  logger: Logger;
  tracing: Tracing;
  registry: Registry;
}

/**
 * Everything a service process sets up before building its app: a supported Node (or exit 78), config,
 * logs, traces, metrics.
 */
export function bootstrap<T extends TObject>(name: ServiceName, schema: T): Runtime<Static<T>> {
  assertSupportedNode(name);
  keepTickShape();
  let config: Static<T> & CommonConfig;
  try {
    config = loadConfig(Type.Composite([Type.Object(commonConfig), schema])) as unknown as Static<T> &
      CommonConfig;
  } catch (err) {
    // The only place a service prints without its logger: the logger's level is itself config.
    process.stderr.write(`${name}: invalid configuration: ${(err as Error).message}\n`);
    process.exit(78); // EX_CONFIG
  }
  const logger = createLogger(name, config.LOG_LEVEL);
  const tracing = initTracing({ serviceName: name, otlpEndpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT });
  return { name, config, logger, tracing, registry: createRegistry(name) };
}

export interface Lifecycle {
  /** Readiness as the ops port reports it; `false` once draining starts. */
  ready: () => Promise<boolean> | boolean;
  /** Stops taking work and drains in-flight work; called once, on SIGTERM or SIGINT. */
  drain: (graceMs: number) => Promise<void>;
  /** Releases pools and connections after draining. */
  close?: () => Promise<void>;
}

/**
 * Serves the ops port and waits for a signal, then shuts down in order: report not-ready (load
 * balancers stop sending), drain in-flight work within the grace period, release resources, flush
 * traces, exit. A second signal exits at once.
 */
export async function serveUntilSignal(
  rt: Runtime<unknown>,
  opsPort: number,
  lifecycle: Lifecycle,
): Promise<OpsServer> {
  let draining = false;
  const ops = await startOpsServer(rt.config.OPS_HOST, opsPort, {
    registry: rt.registry,
    ready: () => !draining && lifecycle.ready(),
  });
  const stop = async (signal: string) => {
    if (draining) {
      rt.logger.warn({ signal }, 'second signal, exiting now');
      process.exit(1);
    }
    draining = true;
    rt.logger.info({ signal }, 'shutting down: draining in-flight work');
    const hardStop = setTimeout(() => {
      rt.logger.error('shutdown grace period exceeded, exiting');
      process.exit(1);
    }, rt.config.SHUTDOWN_GRACE_MS + 2_000);
    hardStop.unref();
    try {
      await lifecycle.drain(rt.config.SHUTDOWN_GRACE_MS);
      await lifecycle.close?.();
      await ops.close();
      await rt.tracing.shutdown();
      rt.logger.info('stopped');
      process.exit(0);
    } catch (err) {
      rt.logger.error({ err }, 'error during shutdown');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  return ops;
}

/** Logs a fatal start-up error and exits non-zero, so an orchestrator sees the failure. */
export function exitOnStartupError(rt: Pick<Runtime<unknown>, 'logger'>, err: unknown): never {
  rt.logger.fatal({ err }, 'failed to start');
  process.exit(1);
}
