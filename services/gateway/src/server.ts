import { DEFAULT_PORTS } from '@mdp/config';
import { systemClock } from '@mdp/ist-time';
import { bootstrap, exitOnStartupError, serveUntilSignal } from '@mdp/runtime';
import { Type } from '@sinclair/typebox';
import { buildGateway } from './app.ts';
import { connectUpstreams } from './upstreams.ts';

const address = (service: keyof typeof DEFAULT_PORTS, port: number, what: string) =>
  Type.String({ default: `localhost:${port}`, description: `host:port of ${service} (${what})` });

const rt = bootstrap(
  'gateway',
  Type.Object({
    HOST: Type.String({ default: '0.0.0.0' }),
    PORT: Type.Integer({ default: DEFAULT_PORTS.gateway.http, minimum: 0, maximum: 65535 }),
    OPS_PORT: Type.Integer({ default: DEFAULT_PORTS.gateway.ops, minimum: 0, maximum: 65535 }),
    EQUITIES_ADDR: address('equities-data', DEFAULT_PORTS['equities-data'].grpc, 'gRPC'),
    FILINGS_ADDR: address('filings-reader', DEFAULT_PORTS['filings-reader'].grpc, 'gRPC'),
    OPTIONS_ADDR: address('options-analytics', DEFAULT_PORTS['options-analytics'].grpc, 'gRPC'),
    LEDGER_ADDR: address('quota-ledger', DEFAULT_PORTS['quota-ledger'].grpc, 'gRPC'),
    UPSTREAM_DEADLINE_MS: Type.Integer({ default: 2_500, minimum: 50, maximum: 60_000 }),
  }),
);
const { config, logger } = rt;

try {
  const { upstreams, close } = connectUpstreams(
    {
      equities: config.EQUITIES_ADDR,
      filings: config.FILINGS_ADDR,
      options: config.OPTIONS_ADDR,
      ledger: config.LEDGER_ADDR,
    },
    rt.registry,
    config.UPSTREAM_DEADLINE_MS,
  );
  const app = await buildGateway({
    logger,
    tracer: rt.tracing.tracer,
    registry: rt.registry,
    upstreams,
    clock: systemClock,
  });
  await app.listen({ host: config.HOST, port: config.PORT });
  const ops = await serveUntilSignal(rt, config.OPS_PORT, {
    ready: () => true,
    drain: () => app.close(),
    close: async () => close(),
  });
  logger.info(
    { port: config.PORT, opsPort: ops.port },
    `gateway listening on http://localhost:${config.PORT}`,
  );
} catch (err) {
  exitOnStartupError(rt, err);
}
