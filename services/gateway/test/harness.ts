import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { ServerDuplexStream } from '@grpc/grpc-js';
import { createPool, dropSchema, migratedPool } from '@mdp/db';
import {
  type AsyncServiceImpl,
  GrpcServer,
  jsonDocument,
  RpcError,
  type ServiceDefinitionOf,
} from '@mdp/grpc';
import { connectNats, deleteStreamFamily } from '@mdp/nats';
import { equities, filings, ledger, options } from '@mdp/proto';
import { createLogger, createRegistry, type Logger, type Registry, trace } from '@mdp/telemetry';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import { nodeArgsFor } from '../../../test/bundles.ts';
import { freePort } from '../../../test/stack.ts';
import { buildApp as buildAuthApp } from '../../auth/src/app.ts';
import { startOutboxRelay } from '../../auth/src/outbox-relay.ts';
import { AuthStore, outboxChannel } from '../../auth/src/store.ts';
import { assembleLedger } from '../../quota-ledger/src/ledger.ts';
import { openRecorder, ProjectionStore } from '../../quota-ledger/src/settlement/projections.ts';
import { buildGateway } from '../src/app.ts';
import type { Authenticator } from '../src/authenticator.ts';
import type { Upstreams } from '../src/catalogue/index.ts';
import { connectDependencies } from '../src/dependencies.ts';
import type { UpstreamAddresses } from '../src/upstreams.ts';

export const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@localhost:5432/mdp';
export const NATS_URL = process.env.NATS_URL ?? 'nats://localhost:4222';
export const silentLogger = createLogger('test', 'silent');
const tracer = trace.getTracer('test');

/**
 * A ledger shard whose admission stream the test scripts, over real gRPC (its usage reads are not found):
 * listen on it and give its address to the gateway's admission client.
 */
export function scriptedShard(
  admit: (call: ServerDuplexStream<ledger.AdmitRequest, ledger.AdmitResponse>) => void,
): GrpcServer {
  const notHere = async () => {
    throw RpcError.notFound('not in this test');
  };
  return new GrpcServer({ logger: silentLogger, tracer, registry: createRegistry('test-ledger') }).add(
    ledger.QuotaLedgerServiceService,
    { admit, getUsage: notHere, getUsageHistory: notHere },
  );
}

/** The sum of a metric's series in `registry` whose labels include `labels` (0 when it has none). */
export async function metricValue(
  registry: Registry,
  name: string,
  labels: Record<string, string> = {},
): Promise<number> {
  const m = await registry.getSingleMetric(name)?.get();
  const match = (l: Record<string, unknown>) => Object.entries(labels).every(([k, v]) => l[k] === v);
  return (m?.values ?? []).filter((v) => match(v.labels)).reduce((n, v) => n + v.value, 0);
}

/** A scripted shard's answer admitting each of `admissions` now. */
export const admittedResponse = (admissions: readonly ledger.Admission[]): ledger.AdmitResponse => ({
  results: admissions.map(admittedResult),
  released: [],
  recalls: [],
  extensions: [],
});

/** A scripted shard's answer to `releases`: each acknowledged. */
export const releasedResponse = (releases: readonly ledger.RequestKey[]): ledger.AdmitResponse => ({
  results: [],
  released: releases.map((r) => r.request_id),
  recalls: [],
  extensions: [],
});

/** A scripted shard's result admitting `a` now: no caps, no lease. */
function admittedResult(a: ledger.Admission): ledger.AdmissionResult {
  return {
    request_id: a.request_id,
    decision: ledger.AdmitDecision.ADMIT_DECISION_ADMITTED,
    rate_limit: { limit: undefined, remaining: undefined, reset_unix: 1_800_000_000, policy: '' },
    retry_after_seconds: 0,
    admitted_at_ms: Date.now(),
    burst: undefined,
    lease: undefined,
  };
}

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

export interface RunningServices {
  addresses: UpstreamAddresses;
  /** The real auth store on this run's own schema. */
  store: AuthStore;
  /** The real ledger's projections on this run's own schema. */
  projections: ProjectionStore;
  /** Resolves when the ledger has recorded every settlement received so far (in-process ledger only). */
  ledgerIdle(): Promise<void>;
  /** With `ledgerProcess`: SIGKILL the ledger, and start it again on the same port and schema. */
  killLedger(): Promise<void>;
  restartLedger(): Promise<void>;
  usageStream: string;
  usageSubject: string;
  /** The ledger's own schema (its event log and projections). */
  ledgerSchema: string;
  /** A token of a fresh account on a test plan with no caps and no practical burst cap. */
  token: string;
  accountId: string;
  stopAuth(): Promise<void>;
  startAuth(): Promise<void>;
  /** Stops the data services only (auth and the ledger keep answering). */
  stopData(): Promise<void>;
  stop(): Promise<void>;
}

async function listen(server: GrpcServer, port = 0): Promise<string> {
  return `127.0.0.1:${await server.listen('127.0.0.1', port)}`;
}

export interface ServiceOptions {
  impls?: Partial<{ equities: unknown; filings: unknown; options: unknown }>;
  natsUrl?: string;
  /** Run the ledger as its own process (so a test can kill it) instead of in this one. */
  ledgerProcess?: boolean;
  logger?: Logger;
  /** The ledger's clock (IST windows are decided by it). */
  ledgerClock?: () => number;
  holdTtlMs?: number;
  /** How long the in-process ledger's admission leases last (default 0: none). */
  leaseMs?: number;
}

/**
 * The services a gateway talks to, on loopback: the real auth service and the real quota ledger (each on
 * a fresh schema in real Postgres, with real NATS and a fresh JetStream stream), and one gRPC server per
 * data owner answering with `impls` or an echo.
 */
export async function startServices(opts: ServiceOptions = {}): Promise<RunningServices> {
  const logger = opts.logger ?? silentLogger;
  const tag = randomBytes(5).toString('hex');
  const authSchema = `gw_${tag}_auth`;
  const ledgerSchema = `gw_${tag}_ledger`;
  const usageStream = `USAGE_T${tag}`;
  const usageSubject = `usage_t${tag}`;
  const authPool = await migratedPool({
    url: DATABASE_URL,
    schema: authSchema,
    dir: new URL('../../auth/migrations/', import.meta.url).pathname,
    max: 4,
    applicationName: 'gateway-test-auth',
  });
  const ledgerPool = await migratedPool({
    url: DATABASE_URL,
    schema: ledgerSchema,
    dir: new URL('../../quota-ledger/migrations/', import.meta.url).pathname,
    max: 4,
    applicationName: 'gateway-test-ledger',
  });
  const ledgerRecorder = openRecorder({
    url: DATABASE_URL,
    schema: ledgerSchema,
    applicationName: 'gateway-test-ledger-recorder',
  });
  const channel = outboxChannel(authSchema);
  const store = new AuthStore(authPool, 'test-token-hash-secret', channel);
  const natsUrl = opts.natsUrl ?? NATS_URL;
  const nc = await connectNats({ url: natsUrl, name: 'gateway-test-services', logger: silentLogger });
  const relay = startOutboxRelay({
    pool: authPool,
    databaseUrl: DATABASE_URL,
    schema: authSchema,
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

  const ledger = opts.ledgerProcess
    ? await startLedgerProcess({
        schema: ledgerSchema,
        natsUrl,
        usageStream,
        usageSubject,
        holdTtlMs: opts.holdTtlMs,
      })
    : await startLedgerInProcess();
  async function startLedgerInProcess() {
    const assembled = await assembleLedger({
      pool: ledgerPool,
      recorder: ledgerRecorder,
      nc,
      stream: usageStream,
      subjectPrefix: usageSubject,
      shard: 0,
      shardCount: 1,
      holder: 'test',
      holdTtlMs: opts.holdTtlMs ?? 30_000,
      leaseMs: opts.leaseMs ?? 0,
      retentionDays: 7, // as the gateway declares the stream by default
      clock: opts.ledgerClock ?? Date.now,
      logger,
      tracer,
      registry: createRegistry('quota-ledger'),
    });
    await assembled.catchingUp;
    return {
      address: await listen(assembled.server),
      store: assembled.store,
      idle: () => assembled.consumer.idle(),
      kill: async () => {},
      restart: async () => {},
      stop: async () => {
        await assembled.server.shutdown(1_000);
        await assembled.close();
      },
    };
  }
  const ledgerAddress = ledger.address;

  const dataServers: GrpcServer[] = [];
  const addresses: UpstreamAddresses = {
    auth: authAddress,
    ledger: [ledgerAddress],
    equities: '',
    filings: '',
    options: '',
  };
  for (const name of ['equities', 'filings', 'options'] as const) {
    const definition = DEFINITIONS[name] as ServiceDefinitionOf;
    const server = new GrpcServer({ logger: silentLogger, tracer, registry: createRegistry(name) }).add(
      definition,
      (opts.impls?.[name] as AsyncServiceImpl<ServiceDefinitionOf>) ?? echoImpl(definition),
    );
    addresses[name] = await listen(server);
    dataServers.push(server);
  }
  // Contract tests make hundreds of requests a minute: their account is on a plan without caps.
  await store.createPlan('test_unmetered', { daily: null, monthly: null, burst: 1_000_000 });
  const accountId = await store.createAccount('test_unmetered', 'gateway test');
  const { token } = await store.issueToken(accountId);
  return {
    addresses,
    store,
    projections: ledger.store,
    ledgerIdle: () => ledger.idle(),
    killLedger: () => ledger.kill(),
    restartLedger: () => ledger.restart(),
    usageStream,
    usageSubject,
    ledgerSchema,
    token,
    accountId,
    stopAuth: () => authServer.shutdown(500),
    startAuth: async () => {
      authServer = newAuthServer();
      await listen(authServer, authPort);
    },
    stopData: async () => void (await Promise.all(dataServers.map((s) => s.shutdown(500)))),
    stop: async () => {
      await Promise.all([...dataServers, authServer].map((s) => s.shutdown(1_000)));
      await ledger.stop();
      await relay.stop();
      await deleteStreamFamily(nc, usageStream);
      await nc.drain();
      await authPool.end();
      await ledgerPool.end();
      await ledgerRecorder.end();
      await dropSchema(DATABASE_URL, authSchema);
      await dropSchema(DATABASE_URL, ledgerSchema);
    },
  };
}

/** The quota-ledger service as a child process, run from source with its own ports. */
async function startLedgerProcess(o: {
  schema: string;
  natsUrl: string;
  usageStream: string;
  usageSubject: string;
  holdTtlMs?: number;
}) {
  const port = await freePort();
  const opsPort = await freePort();
  const env = {
    ...process.env,
    DATABASE_URL,
    DB_SCHEMA: o.schema,
    NATS_URL: o.natsUrl,
    USAGE_STREAM: o.usageStream,
    USAGE_SUBJECT: o.usageSubject,
    GRPC_PORT: String(port),
    OPS_PORT: String(opsPort),
    HOLD_TTL_MS: String(o.holdTtlMs ?? 30_000),
    LOG_LEVEL: 'warn',
  };
  let child: ChildProcess;
  const spawnLedger = async () => {
    child = spawn(process.execPath, [...nodeArgsFor('services/quota-ledger/src/server.ts')], {
      env,
      stdio: 'ignore',
    });
    for (let i = 0; i < 300; i++) {
      const ready = await fetch(`http://127.0.0.1:${opsPort}/readyz`).then(
        (r) => r.ok,
        () => false,
      );
      if (ready) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('the ledger process did not become ready');
  };
  await spawnLedger();
  const pool = createPool({
    url: DATABASE_URL,
    schema: o.schema,
    max: 2,
    applicationName: 'ledger-test-reader',
  });
  const exited = () =>
    new Promise<void>((resolve) =>
      child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve()),
    );
  return {
    address: `127.0.0.1:${port}`,
    store: new ProjectionStore(pool),
    idle: async () => {},
    kill: async () => {
      child.kill('SIGKILL');
      await exited();
    },
    restart: spawnLedger,
    stop: async () => {
      child.kill('SIGTERM');
      await exited();
      await pool.end();
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
  opts: {
    deadlineMs?: number;
    clock?: () => number;
    authDeadlineMs?: number;
    settleAckTimeoutMs?: number;
    admissionDeadlineMs?: number;
    dataCacheTtlMs?: number;
    logger?: Logger;
    natsUrl?: string;
  } = {},
): Promise<TestGateway> {
  const registry = createRegistry('gateway');
  const logger = opts.logger ?? silentLogger;
  const deps = await connectDependencies({
    addresses: services.addresses,
    natsUrl: opts.natsUrl ?? NATS_URL,
    usageStream: services.usageStream,
    usageSubject: services.usageSubject,
    // Deadlines for a machine at load 12 (a new machine's first `make test`): a test meets a 503 of a
    // deadline only when it asks for a short one.
    upstreamDeadlineMs: opts.deadlineMs ?? 5_000,
    authDeadlineMs: opts.authDeadlineMs ?? 5_000,
    authCacheMax: 10_000,
    authCacheTtlMs: 300_000,
    authBreakerOpenMs: 1_000,
    admissionDeadlineMs: opts.admissionDeadlineMs ?? 5_000,
    settleAckTimeoutMs: opts.settleAckTimeoutMs ?? 30_000,
    dataCacheTtlMs: opts.dataCacheTtlMs ?? 30_000,
    dataCacheMaxBytes: 16 * 1024 * 1024,
    clock: opts.clock ?? Date.now,
    logger,
    registry,
  });
  const app = await buildGateway({
    logger,
    tracer,
    registry,
    clock: opts.clock ?? Date.now,
    siteCsrfKey: 'harness-site-csrf-key-of-32-characters',
    ...deps,
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
    upstreams: deps.upstreams,
    authenticator: deps.authenticator,
    inject,
    get: (url) => inject({ method: 'GET', url }),
    close: async () => {
      await app.close();
      await deps.close();
    },
  };
}

/** The ledger's recording held back, as by a database that stopped answering, until `resume`. */
export interface RecordingStall {
  resume(): Promise<void>;
}

/**
 * Locks the ledger's event log: from here its batch statements wait, and the charges behind them stay in
 * JetStream, until `resume` (idempotent, for an afterAll after a failed test too).
 */
export async function stallRecording(services: RunningServices): Promise<RecordingStall> {
  const blocker = new pg.Client({ connectionString: DATABASE_URL });
  await blocker.connect();
  await blocker.query('BEGIN');
  await blocker.query(`LOCK TABLE "${services.ledgerSchema}".usage_events IN ACCESS EXCLUSIVE MODE`);
  let resumed = false;
  return {
    resume: async () => {
      if (resumed) return;
      resumed = true;
      await blocker.query('ROLLBACK').catch(() => {});
      await blocker.end().catch(() => {});
    },
  };
}

export { freePort };
