import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { DEFAULT_PORTS, loadConfig, type ServiceName } from '@mdp/config';
import { createPool, dropSchema, type Pool } from '@mdp/db';
import { deleteStreamFamily } from '@mdp/nats';
import { Type } from '@sinclair/typebox';
import { connect } from 'nats';
import { run as runAdmin } from '../services/auth/src/cli.ts';
import { authConfig } from '../services/auth/src/config.ts';
import { AuthStore, outboxChannel } from '../services/auth/src/store.ts';
import { nodeArgsFor } from './bundles.ts';
import { freePort, release } from './ports.ts';
import { type PrivateNatsCluster, startPrivateNatsCluster } from './private-infra.ts';
import { atProcessEnd } from './process-end.ts';

export { freePort };

export const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@localhost:5432/mdp';
export const NATS_URL = process.env.NATS_URL ?? 'nats://localhost:4222';
export const ALL_SERVICES = Object.keys(DEFAULT_PORTS) as ServiceName[];

/**
 * `MDP_TEST_NATS=cluster` (the `int-cluster` project): a stack given no NATS of its own runs on a private
 * three-server JetStream cluster of this test process, started when first needed and shared by its
 * stacks (each with its own stream, in three replicas), so that the files that assert exactness run on
 * the deployment production has as well as on one server.
 */
const ON_CLUSTER = process.env.MDP_TEST_NATS === 'cluster';
let cluster: Promise<PrivateNatsCluster> | undefined;
const sharedCluster = () => {
  cluster ??= startPrivateNatsCluster(3);
  return cluster;
};

export async function deleteStream(natsUrl: string, name: string): Promise<void> {
  const nc = await connect({ servers: natsUrl });
  try {
    await deleteStreamFamily(nc, name);
  } finally {
    await nc.close();
  }
}

/**
 * A process of the stack: a service by its name, and each ledger shard after the first (which is
 * `quota-ledger`) by `quota-ledger-<index>`.
 */
export type InstanceName = ServiceName | `quota-ledger-${number}`;

/** The process of ledger shard `i` in a stack. */
export const shardProcess = (i: number): InstanceName => (i === 0 ? 'quota-ledger' : `quota-ledger-${i}`);

const serviceOf = (name: InstanceName): ServiceName =>
  name.startsWith('quota-ledger') ? 'quota-ledger' : (name as ServiceName);

export interface Proc {
  name: InstanceName;
  child: ChildProcess;
  opsPort: number;
  port: number;
  output: string[];
}

/** Where the stack's services find their infrastructure; the module's DATABASE_URL and NATS_URL by default. */
export interface StackOptions {
  /** Used by the services, admin() and shutdown's schema drop instead of DATABASE_URL. */
  databaseUrl?: string;
  /** Used by the services and shutdown's stream delete instead of NATS_URL. */
  natsUrl?: string;
  /** Extra node options for every service process, e.g. `--cpu-prof` (not allowed in NODE_OPTIONS). */
  nodeArgs?: string[];
  /** Extra node options for one service's processes, after `nodeArgs`. */
  serviceNodeArgs?: Partial<Record<ServiceName, string[]>>;
  /** Ledger shards (default 1): `quota-ledger` is shard 0, `quota-ledger-<i>` the others; one schema. */
  shards?: number;
  /**
   * The SHARD_COUNT the stack starts with (default `shards`): only those shards start, and the gateway
   * routes by them; the others have their ports for a test that changes the count.
   */
  shardCount?: number;
}

export interface Stack {
  procs: Map<InstanceName, Proc>;
  /** This stack's settlement stream and subject prefix. */
  usage: { USAGE_STREAM: string; USAGE_SUBJECT: string };
  baseUrl: string;
  schemas: string[];
  /** The Postgres and NATS this stack's services use. */
  databaseUrl: string;
  natsUrl: string;
  /**
   * Runs an auth admin tool command against this stack's auth schema, with the auth service's settings;
   * resolves to what the tool prints on stdout. In this process: one tool process per call cost about
   * 0.7 s of CPU on two cores, and the shard tests make dozens (services/auth/test/cli.int.test.ts
   * runs the tool itself).
   */
  admin(...args: string[]): Promise<string>;
  /**
   * A second gateway process sharing the same services (`env` over the first one's, e.g. another
   * LEDGER_ADDR); resolves to its base URL, ops port and what it prints.
   */
  startSecondGateway(
    env?: Record<string, string>,
  ): Promise<{ baseUrl: string; opsPort: number; output: readonly string[]; stop(): Promise<void> }>;
  /** The environment the stack gives `name` (its ports, schema, stream, shard), for a look-alike process. */
  envOf(name: InstanceName): Record<string, string>;
  /** The data import tool's environment (`make import`) for this stack's data schemas. */
  importEnv(): Record<string, string>;
  /** Starts (or starts again) an instance; `env` over the stack's (e.g. another SHARD_COUNT). */
  start(name: InstanceName, env?: Record<string, string>): Promise<Proc>;
  /** The gateway's LEDGER_ADDR for the first `count` shards. */
  ledgerAddr(count: number): string;
  stop(name: InstanceName, signal?: NodeJS.Signals): Promise<number | null>;
  shutdown(): Promise<void>;
}

/**
 * Service processes of every stack of this test process still running. A test process that ends
 * without shutting its stack down (a start-up that outlived its hook's timeout) takes them with it, so
 * no stack is left loading the machine and holding ports for the test runs after it.
 */
const running = new Set<ChildProcess>();
atProcessEnd(() => {
  for (const child of running) child.kill('SIGKILL');
});

/** `what` is read when the wait fails, so it can say what the process printed by then. */
async function waitFor(check: () => Promise<boolean>, timeoutMs: number, what: () => string): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what()}`);
}

/**
 * What a test file's afterAll gives `shutdown`: every process stopped (each exits within its
 * SHUTDOWN_GRACE_MS, 3 s here, and 2 s more), then its schemas dropped and its streams deleted. Beside
 * the rest of the suite on a slow night one took over 30 s (29 November), and a hook that times out
 * leaves the stack's processes running.
 */
export const STACK_SHUTDOWN_MS = 90_000;

/**
 * The gateway's deadlines at their most patient, for tests about what a 200 costs rather than about
 * 503s (test/chaos*.int.test.ts are about those). Beside a whole test run on two cores a metered call
 * may wait over the default 300 ms for auth or the ledger and answer a 503, which such a test would
 * read as a wrong answer; a data call may wait over the default 2.5 s for its upstream the same way (a
 * clean-clone CI run on 30 November had one MCP tool call of the loaded platform answer an error).
 */
export const PATIENT_DEADLINES: Readonly<Record<string, string>> = {
  UPSTREAM_DEADLINE_MS: '10000',
  AUTH_DEADLINE_MS: '5000',
  ADMISSION_DEADLINE_MS: '5000',
  SETTLE_ACK_TIMEOUT_MS: '30000',
  SETTLE_ATTEMPT_TIMEOUT_MS: '30000',
};

/**
 * The whole platform as real processes run from source, on ports leased to this test process (a
 * service killed and started again binds the same ones; see ports.ts) and on uniquely named schemas
 * (dropped at shutdown), so several test files and a developer's `make run` never collide.
 */
export async function startStack(
  env: Record<string, string> = {},
  options: StackOptions = {},
): Promise<Stack> {
  const databaseUrl = options.databaseUrl ?? DATABASE_URL;
  const onCluster = ON_CLUSTER && options.natsUrl === undefined;
  const natsUrl = options.natsUrl ?? (onCluster ? (await sharedCluster()).url : NATS_URL);
  if (onCluster) env = { USAGE_STREAM_REPLICAS: '3', ...env };
  const tag = `t${randomBytes(4).toString('hex')}`;
  const shardCount = options.shardCount ?? options.shards ?? 1;
  const shards = Array.from({ length: Math.max(options.shards ?? 1, shardCount) }, (_, i) => shardProcess(i));
  const instances: InstanceName[] = [...ALL_SERVICES, ...shards.slice(1)];
  const ports = new Map<InstanceName, { port: number; ops: number }>();
  for (const name of instances) ports.set(name, { port: await freePort(), ops: await freePort() });
  const filesPort = await freePort();
  const addr = (name: InstanceName) => `127.0.0.1:${ports.get(name)!.port}`;
  const schemas: string[] = [];
  const procs = new Map<InstanceName, Proc>();

  const envFor = (name: InstanceName): Record<string, string> => {
    const p = ports.get(name)!;
    if (name === 'gateway') {
      return {
        PORT: String(p.port),
        OPS_PORT: String(p.ops),
        NATS_URL: natsUrl,
        AUTH_ADDR: addr('auth'),
        EQUITIES_ADDR: addr('equities-data'),
        FILINGS_ADDR: addr('filings-reader'),
        OPTIONS_ADDR: addr('options-analytics'),
        LEDGER_ADDR: shards.slice(0, shardCount).map(addr).join(','),
      };
    }
    const service = serviceOf(name);
    const schema = `${tag}_${service.replace(/-/g, '_')}`;
    if (!schemas.includes(schema)) schemas.push(schema);
    const own = {
      GRPC_PORT: String(p.port),
      OPS_PORT: String(p.ops),
      DB_SCHEMA: schema,
      DATABASE_URL: databaseUrl,
      NATS_URL: natsUrl,
    };
    if (service === 'quota-ledger')
      return { ...own, SHARD_INDEX: String(shards.indexOf(name)), SHARD_COUNT: String(shardCount) };
    // filings-reader also serves signed public links on a port of its own; options-analytics follows
    // equities-data's trading calendar.
    if (name === 'options-analytics') return { ...own, EQUITIES_ADDR: addr('equities-data') };
    return name === 'filings-reader' ? { ...own, FILES_PORT: String(filesPort) } : own;
  };
  const authSchema = `${tag}_auth`;

  // Settlement events of this stack only: its own JetStream stream and subjects.
  const usage = { USAGE_STREAM: `USAGE_${tag.toUpperCase()}`, USAGE_SUBJECT: `usage_${tag}` };
  const spawnService = (
    name: InstanceName,
    serviceEnv: Record<string, string>,
    extra: Record<string, string> = {},
  ) => {
    const service = serviceOf(name);
    const args = [
      ...(options.nodeArgs ?? []),
      ...(options.serviceNodeArgs?.[service] ?? []),
      ...nodeArgsFor(`services/${service}/src/server.ts`),
    ];
    const child = spawn(process.execPath, args, {
      env: {
        ...process.env,
        LOG_LEVEL: 'info',
        SHUTDOWN_GRACE_MS: '3000',
        ...usage,
        ...serviceEnv,
        ...env,
        ...extra,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    running.add(child);
    child.once('exit', () => running.delete(child));
    return child;
  };

  const start = async (name: InstanceName, extra: Record<string, string> = {}): Promise<Proc> => {
    const startedAt = Date.now();
    const child = spawnService(name, envFor(name), extra);
    const output: string[] = [];
    child.stdout?.on('data', (c) => output.push(String(c)));
    child.stderr?.on('data', (c) => output.push(String(c)));
    let exited = false;
    child.once('exit', () => {
      exited = true;
    });
    const proc = { name, child, port: ports.get(name)!.port, opsPort: ports.get(name)!.ops, output };
    procs.set(name, proc);
    await waitFor(
      async () => exited || (await fetch(`http://127.0.0.1:${proc.opsPort}/readyz`)).status === 200,
      // Generous: several stacks and the platform tests' data loads may start at once on two cores, each
      // process compiling its TypeScript on a clean clone's first run (seen: over 120 s in CI).
      240_000,
      () =>
        `${name} to be ready after ${(Date.now() - startedAt) / 1000} s (output: ${output.join('').slice(-2000)})`,
    );
    if (exited)
      throw new Error(`${name} exited before it was ready (output: ${output.join('').slice(-2000)})`);
    return proc;
  };

  const stop = async (name: InstanceName, signal: NodeJS.Signals = 'SIGTERM') => {
    const proc = procs.get(name);
    // Ended already (a process killed by a signal has no exit code, but a signal code).
    if (!proc || proc.child.exitCode !== null || proc.child.signalCode !== null)
      return proc?.child.exitCode ?? null;
    const exited = new Promise<number | null>((resolve) => proc.child.once('exit', (code) => resolve(code)));
    proc.child.kill(signal);
    return exited;
  };

  let adminTool: { pool: Pool; store: AuthStore } | undefined;
  const admin = async (...args: string[]) => {
    if (!adminTool) {
      const config = loadConfig(Type.Object(authConfig), {
        ...process.env,
        ...usage,
        ...envFor('auth'),
        ...env,
      });
      const pool = createPool({
        url: databaseUrl,
        schema: authSchema,
        max: 2,
        applicationName: 'stack-admin',
      });
      const keys = config.TOKEN_TAG_KEYS;
      adminTool = {
        pool,
        store: new AuthStore(pool, config.TOKEN_HASH_SECRET, outboxChannel(authSchema), keys),
      };
    }
    return (await runAdmin(adminTool.store, args, { say: () => {} })).trim();
  };

  const shutdown = async () => {
    await adminTool?.pool.end().catch(() => {});
    await Promise.all(instances.map((n) => stop(n)));
    for (const p of ports.values()) for (const port of [p.port, p.ops]) release(port);
    release(filesPort);
    for (const schema of schemas) await dropSchema(databaseUrl, schema);
    await deleteStream(natsUrl, usage.USAGE_STREAM);
  };
  // The gateway needs NATS and the auth service at start-up; the rest are independent. A stack that
  // fails to start stops what did start, so no process outlives the test run.
  try {
    await Promise.all(
      instances.filter((n) => n !== 'gateway' && !shards.slice(shardCount).includes(n)).map((n) => start(n)),
    );
    await start('gateway');
  } catch (err) {
    await shutdown().catch(() => {});
    throw err;
  }
  return {
    procs,
    schemas,
    databaseUrl,
    natsUrl,
    admin,
    startSecondGateway: async (extra = {}) => {
      const port = await freePort();
      const opsPort = await freePort();
      const child = spawnService('gateway', {
        ...envFor('gateway'),
        ...extra,
        PORT: String(port),
        OPS_PORT: String(opsPort),
      });
      const output: string[] = [];
      child.stdout?.on('data', (c) => output.push(String(c)));
      child.stderr?.on('data', (c) => output.push(String(c)));
      await waitFor(
        async () => (await fetch(`http://127.0.0.1:${opsPort}/readyz`)).status === 200,
        120_000,
        () => `the second gateway (output: ${output.join('').slice(-2000)})`,
      );
      return {
        baseUrl: `http://127.0.0.1:${port}`,
        opsPort,
        output,
        stop: () =>
          new Promise<void>((resolve) => {
            child.once('exit', () => {
              release(port);
              release(opsPort);
              resolve();
            });
            child.kill('SIGTERM');
          }),
      };
    },
    baseUrl: `http://127.0.0.1:${ports.get('gateway')!.port}`,
    envOf: (name) => ({ ...usage, ...envFor(name), ...env }),
    importEnv: () => ({
      DATABASE_URL: databaseUrl,
      EQUITIES_DB_SCHEMA: envFor('equities-data').DB_SCHEMA!,
      OPTIONS_DB_SCHEMA: envFor('options-analytics').DB_SCHEMA!,
      FILINGS_DB_SCHEMA: envFor('filings-reader').DB_SCHEMA!,
    }),
    ledgerAddr: (count) => shards.slice(0, count).map(addr).join(','),
    start,
    stop,
    usage,
    shutdown,
  };
}
