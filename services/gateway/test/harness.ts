import { randomBytes } from 'node:crypto';
import { createPool, dropSchema, migrate } from '@mdp/db';
import { type AsyncServiceImpl, GrpcServer, jsonDocument, type ServiceDefinitionOf } from '@mdp/grpc';
import { connectNats, type NatsConnection } from '@mdp/nats';
import { equities, filings, ledger, options } from '@mdp/proto';
import { createLogger, createRegistry, type Logger, type Registry, trace } from '@mdp/telemetry';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { buildApp as buildAuthApp } from '../../auth/src/app.ts';
import { startOutboxRelay } from '../../auth/src/outbox-relay.ts';
import { AuthStore, outboxChannel } from '../../auth/src/store.ts';
import { buildGateway } from '../src/app.ts';
import { Authenticator, subscribeAuthEvents } from '../src/authenticator.ts';
import type { Upstreams } from '../src/catalogue/index.ts';
import { connectUpstreams, type UpstreamAddresses } from '../src/upstreams.ts';

export const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@localhost:5432/mdp';
export const NATS_URL = process.env.NATS_URL ?? 'nats://localhost:4222';
export const silentLogger = createLogger('test', 'silent');
const tracer = trace.getTracer('test');

/** A data service that answers every call with the request it received, as a document. */
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

type DataImpls = Partial<{ [K in keyof typeof DEFINITIONS]: AsyncServiceImpl<(typeof DEFINITIONS)[K]> }>;

export interface RunningServices {
  addresses: UpstreamAddresses;
  /** The real auth store on this run's own schema. */
  store: AuthStore;
  /** A token of a fresh account on the free plan. */
  token: string;
  accountId: string;
  stopAuth(): Promise<void>;
  startAuth(): Promise<void>;
  /** Stops the data services only (auth keeps answering). */
  stopData(): Promise<void>;
  stop(): Promise<void>;
}

async function listen(server: GrpcServer, port = 0): Promise<string> {
  return `127.0.0.1:${await server.listen('127.0.0.1', port)}`;
}

/**
 * The services a gateway talks to, on loopback: the real auth service (fresh schema in real Postgres,
 * outbox relayed to real NATS) and one gRPC server per data owner answering with `impls` or an echo.
 */
export async function startServices(
  impls: DataImpls = {},
  logger: Logger = silentLogger,
): Promise<RunningServices> {
  const schema = `gw_${randomBytes(5).toString('hex')}`;
  await migrate({
    url: DATABASE_URL,
    schema,
    dir: new URL('../../auth/migrations/', import.meta.url).pathname,
    logger: silentLogger,
  });
  const pool = createPool({ url: DATABASE_URL, schema, max: 4, applicationName: 'gateway-test' });
  const channel = outboxChannel(schema);
  const store = new AuthStore(pool, 'test-token-hash-secret', channel);
  const nc = await connectNats({ url: NATS_URL, name: 'gateway-test-auth', logger: silentLogger });
  const relay = startOutboxRelay({
    pool,
    databaseUrl: DATABASE_URL,
    schema,
    channel,
    nc,
    logger: silentLogger,
    pollMs: 200,
  });

  const newAuthServer = () =>
    buildAuthApp({ logger, tracer, registry: createRegistry('auth'), store, clock: Date.now });
  let authServer = newAuthServer();
  const authAddress = await listen(authServer);
  const authPort = Number(authAddress.split(':')[1]);

  const servers: GrpcServer[] = [];
  const addresses = { auth: authAddress } as Record<keyof UpstreamAddresses, string>;
  for (const [name, definition] of Object.entries(DEFINITIONS) as [
    keyof typeof DEFINITIONS,
    ServiceDefinitionOf,
  ][]) {
    const server = new GrpcServer({ logger: silentLogger, tracer, registry: createRegistry(name) }).add(
      definition,
      (impls[name] as AsyncServiceImpl<ServiceDefinitionOf>) ?? echoImpl(definition),
    );
    addresses[name] = await listen(server);
    servers.push(server);
  }
  const accountId = await store.createAccount('free', 'gateway test');
  const { token } = await store.issueToken(accountId);
  return {
    addresses,
    store,
    token,
    accountId,
    stopAuth: () => authServer.shutdown(500),
    startAuth: async () => {
      authServer = newAuthServer();
      await listen(authServer, authPort);
    },
    stopData: async () => void (await Promise.all(servers.map((s) => s.shutdown(500)))),
    stop: async () => {
      await Promise.all([...servers, authServer].map((s) => s.shutdown(1_000)));
      await relay.stop();
      await nc.drain();
      await pool.end();
      await dropSchema(DATABASE_URL, schema);
    },
  };
}

export interface TestGateway {
  app: FastifyInstance;
  registry: Registry;
  upstreams: Upstreams;
  authenticator: Authenticator;
  /** Injects a request carrying the run's token unless the headers say otherwise. */
  inject(opts: InjectOptions & { anonymous?: boolean }): Promise<LightMyRequestResponse>;
  /** GET with the run's token. */
  get(url: string): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

export async function startGateway(
  services: RunningServices,
  opts: { deadlineMs?: number; clock?: () => number; authDeadlineMs?: number; logger?: Logger } = {},
): Promise<TestGateway> {
  const registry = createRegistry('gateway');
  const { upstreams, authClient, close } = connectUpstreams(
    services.addresses,
    registry,
    opts.deadlineMs ?? 2_000,
  );
  const authenticator = new Authenticator({
    client: authClient,
    clock: opts.clock ?? Date.now,
    registry,
    deadlineMs: opts.authDeadlineMs ?? 300,
    cacheMax: 10_000,
    cacheTtlMs: 300_000,
    breakerOpenMs: 1_000,
  });
  const nc: NatsConnection = await connectNats({
    url: NATS_URL,
    name: 'gateway-test',
    logger: silentLogger,
    onReconnect: () => authenticator.clear('nats_reconnected'),
  });
  subscribeAuthEvents(nc, authenticator, silentLogger);
  const app = await buildGateway({
    logger: opts.logger ?? silentLogger,
    tracer,
    registry,
    upstreams,
    authenticator,
    clock: opts.clock ?? Date.now,
  });
  await app.ready();
  const inject = (o: InjectOptions & { anonymous?: boolean }) => {
    const { anonymous, ...rest } = o;
    const headers = {
      ...(anonymous ? {} : { authorization: `Bearer ${services.token}` }),
      ...(rest.headers ?? {}),
    };
    return app.inject({ ...rest, headers });
  };
  return {
    app,
    registry,
    upstreams,
    authenticator,
    inject,
    get: (url) => inject({ method: 'GET', url }),
    close: async () => {
      await app.close();
      close();
      await nc.drain();
    },
  };
}
