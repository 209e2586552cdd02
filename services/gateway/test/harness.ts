import { type AsyncServiceImpl, GrpcServer, jsonDocument, type ServiceDefinitionOf } from '@mdp/grpc';
import { equities, filings, ledger, options } from '@mdp/proto';
import { createLogger, createRegistry, type Registry, trace } from '@mdp/telemetry';
import type { FastifyInstance } from 'fastify';
import { buildGateway } from '../src/app.ts';
import type { Upstreams } from '../src/catalogue/index.ts';
import { connectUpstreams, type UpstreamAddresses } from '../src/upstreams.ts';

export const silentLogger = createLogger('test', 'silent');
const tracer = trace.getTracer('test');

/** A service that answers every call with the request it received, as a document. */
export function echoImpl<D extends ServiceDefinitionOf>(definition: D): AsyncServiceImpl<D> {
  const impl = {} as Record<string, (req: unknown) => Promise<unknown>>;
  for (const method of Object.keys(definition)) {
    impl[method] = async (request) => jsonDocument({ method, request }, { echoed: true });
  }
  return impl as AsyncServiceImpl<D>;
}

export const DEFINITIONS = {
  equities: equities.EquitiesDataServiceService,
  filings: filings.FilingsReaderServiceService,
  options: options.OptionsAnalyticsServiceService,
  ledger: ledger.QuotaLedgerServiceService,
} as const;

export interface RunningServices {
  addresses: UpstreamAddresses;
  stop(): Promise<void>;
}

/** Real gRPC servers on loopback, one per owning service, each with the implementation given (default: echo). */
export async function startServices(
  impls: Partial<{ [K in keyof typeof DEFINITIONS]: AsyncServiceImpl<(typeof DEFINITIONS)[K]> }> = {},
): Promise<RunningServices> {
  const servers: GrpcServer[] = [];
  const addresses = {} as Record<keyof typeof DEFINITIONS, string>;
  for (const [name, definition] of Object.entries(DEFINITIONS) as [
    keyof typeof DEFINITIONS,
    ServiceDefinitionOf,
  ][]) {
    const server = new GrpcServer({ logger: silentLogger, tracer, registry: createRegistry(name) }).add(
      definition,
      (impls[name] as AsyncServiceImpl<ServiceDefinitionOf>) ?? echoImpl(definition),
    );
    const port = await server.listen('127.0.0.1', 0);
    addresses[name] = `127.0.0.1:${port}`;
    servers.push(server);
  }
  return { addresses, stop: async () => void (await Promise.all(servers.map((s) => s.shutdown(1_000)))) };
}

export interface TestGateway {
  app: FastifyInstance;
  registry: Registry;
  upstreams: Upstreams;
  close(): Promise<void>;
}

export async function startGateway(
  addresses: UpstreamAddresses,
  opts: { deadlineMs?: number; clock?: () => number } = {},
): Promise<TestGateway> {
  const registry = createRegistry('gateway');
  const { upstreams, close } = connectUpstreams(addresses, registry, opts.deadlineMs ?? 2_000);
  const app = await buildGateway({
    logger: silentLogger,
    tracer,
    registry,
    upstreams,
    clock: opts.clock ?? Date.now,
  });
  await app.ready();
  return {
    app,
    registry,
    upstreams,
    close: async () => {
      await app.close();
      close();
    },
  };
}
