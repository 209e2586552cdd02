import { DEFAULT_PORTS } from '@mdp/config';
import { systemClock } from '@mdp/ist-time';
import { connectNats } from '@mdp/nats';
import { bootstrap, exitOnStartupError, serveUntilSignal } from '@mdp/runtime';
import { Type } from '@sinclair/typebox';
import { buildGateway } from './app.ts';
import { Authenticator, subscribeAuthEvents } from './authenticator.ts';
import { connectUpstreams } from './upstreams.ts';

const address = (service: keyof typeof DEFAULT_PORTS, port: number) =>
  Type.String({ default: `localhost:${port}`, description: `host:port of ${service} (gRPC)` });

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
    LEDGER_ADDR: address('quota-ledger', DEFAULT_PORTS['quota-ledger'].grpc),
    NATS_URL: Type.String({ default: 'nats://localhost:4222' }),
    UPSTREAM_DEADLINE_MS: Type.Integer({ default: 2_500, minimum: 50, maximum: 60_000 }),
    AUTH_DEADLINE_MS: Type.Integer({ default: 300, minimum: 20, maximum: 5_000 }),
    AUTH_CACHE_MAX: Type.Integer({ default: 100_000, minimum: 100, maximum: 10_000_000 }),
    AUTH_CACHE_TTL_MS: Type.Integer({ default: 300_000, minimum: 1_000, maximum: 86_400_000 }),
  }),
);
const { config, logger } = rt;

try {
  const { upstreams, authClient, close } = connectUpstreams(
    {
      auth: config.AUTH_ADDR,
      equities: config.EQUITIES_ADDR,
      filings: config.FILINGS_ADDR,
      options: config.OPTIONS_ADDR,
      ledger: config.LEDGER_ADDR,
    },
    rt.registry,
    config.UPSTREAM_DEADLINE_MS,
  );
  const authenticator = new Authenticator({
    client: authClient,
    clock: systemClock,
    registry: rt.registry,
    deadlineMs: config.AUTH_DEADLINE_MS,
    cacheMax: config.AUTH_CACHE_MAX,
    cacheTtlMs: config.AUTH_CACHE_TTL_MS,
  });
  const nc = await connectNats({
    url: config.NATS_URL,
    name: 'gateway',
    logger,
    // Events sent while we were away are lost to us: start again from the auth service's word.
    onReconnect: () => authenticator.clear('nats_reconnected'),
  });
  subscribeAuthEvents(nc, authenticator, logger);
  const app = await buildGateway({
    logger,
    tracer: rt.tracing.tracer,
    registry: rt.registry,
    upstreams,
    authenticator,
    clock: systemClock,
  });
  await app.listen({ host: config.HOST, port: config.PORT });
  const ops = await serveUntilSignal(rt, config.OPS_PORT, {
    ready: () => !nc.isClosed(),
    drain: () => app.close(),
    close: async () => {
      close();
      await nc.drain();
    },
  });
  logger.info(
    { port: config.PORT, opsPort: ops.port },
    `gateway listening on http://localhost:${config.PORT}`,
  );
} catch (err) {
  exitOnStartupError(rt, err);
}
