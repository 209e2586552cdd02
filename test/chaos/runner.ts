// The chaos scenario shared by `make chaos` (bench/chaos.ts) and its integration test: the platform on a
// private Postgres and NATS, a bounded paced load on a metered route, and each process killed with
// SIGKILL and brought back in turn. Per fault it reports what the clients saw against what the ledger
// charged, how fast refusals came, how long recovery took and which processes died.
import { type ChildProcess, execFile } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import type { ServiceName } from '@mdp/config';
import { streamFamily } from '@mdp/nats';
import { shardOf } from '@mdp/usage';
import { connect } from 'nats';
import pg from 'pg';
import { nodeArgsFor } from '../bundles.ts';
import {
  type ClusterServer,
  type PrivateNatsCluster,
  type PrivateServer,
  startPrivateNats,
  startPrivateNatsCluster,
  startPrivatePostgres,
} from '../private-infra.ts';
import { type Stack, startStack } from '../stack.ts';
import { ClientLoad, type Outcome, type Sample } from './load.ts';
import {
  formatReplicaReport,
  type ReplicaFault,
  type ReplicaFaultResult,
  runReplicaFault,
} from './replicas.ts';

/**
 * The client timeout of the chaos tests run beside the suite: long enough that only a request never
 * answered reaches it. In a clean-clone CI run of 29 November the machine was so starved that the first
 * request to wait out the gateway's 2.5 s upstream deadline ended 6.4 s after the replica stopped, and a
 * 6 s timeout turned 8 slow 502s into `timeout`s; how slow an answer is there is not the invariant.
 */
export const HANG_MS = 30_000;

const exec = promisify(execFile);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const now = () => performance.now();

/** What is killed, in the order the scenario kills them. */
export const FAULTS = [
  'gateway',
  'quota-ledger',
  'auth',
  'equities-data',
  'nats-server',
  'postgres',
] as const;
export type Fault = (typeof FAULTS)[number];

/** The issue's acceptance numbers. */
export const LIMITS = {
  /** p99 of the 503s answered while a dependency is down. */
  refusalP99Ms: 300,
  /** From the dependency's return to the platform serving only 200s again. */
  recoveryS: 5,
} as const;

/**
 * What clients may see while each fault lasts, besides 200s. The gateway's own death cuts connections;
 * a dead data service is a 502 `upstream_unavailable` (SPEC 7); everything else is a 503.
 */
const ALLOWED: Record<Fault, { statuses: number[]; connectionErrors: boolean }> = {
  gateway: { statuses: [503], connectionErrors: true },
  'quota-ledger': { statuses: [503], connectionErrors: false },
  auth: { statuses: [503], connectionErrors: false },
  'equities-data': { statuses: [502, 503], connectionErrors: false },
  'nats-server': { statuses: [503], connectionErrors: false },
  postgres: { statuses: [503], connectionErrors: false },
};

/**
 * Faults after which half the clients switch to tokens the gateway has never verified, so requests
 * need auth (and auth's Postgres) while the fault lasts; the other half keep cached tokens.
 */
const COLD_TOKEN_FAULTS: ReadonlySet<Fault> = new Set(['auth', 'postgres']);

export interface ChaosOptions {
  clients: number;
  ratePerSecond: number;
  /** Load before the kill. */
  warmupMs: number;
  /** Time between the kill and the restart (the restart itself adds the process's start-up time). */
  downMs: number;
  /** Only 200s for this long after the return ends the fault. */
  stableMs: number;
  /** Give up waiting for recovery this long after the return. */
  recoveryTimeoutMs: number;
  /** Give up waiting for the ledger to settle this long after the load stopped. */
  settleTimeoutMs: number;
  /** A client gives up on a request after this long: its outcome is `timeout`. */
  requestTimeoutMs: number;
  faults?: readonly Fault[];
  /** SIGSTOP faults of equities-data replicas run after the SIGKILL faults (test/chaos/replicas.ts); none unless given. */
  replicaFaults?: readonly ReplicaFault[];
  /** Equities dataset size (stocks); the route is one stock's quote, so small is enough. */
  datasetSize?: number;
  /**
   * Ledger shards (default 2, the topology operators scale to): the `quota-ledger` fault kills shard 0,
   * and its account is one shard 0 owns.
   */
  shards?: number;
  /**
   * One nats-server (default), or a three-server JetStream cluster with the usage streams in three
   * replicas, where the `nats-server` fault kills the server leading shard 0's stream.
   */
  nats?: 'server' | 'cluster';
  log?: (line: string) => void;
}

export interface Death {
  name: string;
  pid: number | undefined;
  code: number | null;
  signal: string | null;
  /** The last lines the process wrote. */
  tail: string;
}

export interface FaultResult {
  fault: Fault;
  killedPid: number | undefined;
  requests: number;
  /** 200s the clients received. */
  seen: number;
  /** Units the ledger's projection holds for this fault's account once settled. */
  charged: number | null;
  /** The same count from the event log (charged and not voided). */
  chargedInLog: number | null;
  /** `/v1/me/usage` day.used of the account afterwards (the ledger's live counter). */
  usageUsed: number | null;
  settled: boolean;
  connectionErrors: number;
  /**
   * Connection errors other than ECONNREFUSED: requests that may have reached the gateway and been cut
   * off in flight, the only way a charged 200 can go unseen.
   */
  cutOff: number;
  timeouts: number;
  refusals503: {
    count: number;
    p50Ms: number | null;
    p99Ms: number | null;
    maxMs: number | null;
    missingRetryAfter: number;
    wrongCode: number;
    retryAfterValues: string[];
  };
  /** Every outcome other than 200, as "status code" (or connection error kind) → count. */
  outcomes: Record<string, number>;
  /** Latency p99 (ms) of each outcome other than 200. */
  outcomeP99Ms: Record<string, number>;
  /** Responses other than 200 that ended after the return: how many, the last one (s after the return), on cold tokens. */
  afterBack: { failures: number; lastS: number | null; onColdTokens: number; kinds: Record<string, number> };
  /** Outcomes the fault does not allow (see ALLOWED), "status code" → count. */
  unexpected: Record<string, number>;
  /** Kill to return (readiness of a service; accepting connections for Postgres and NATS). */
  downS: number;
  /** From the return to the first 200 after which every response was a 200; null: never within the timeout. */
  recoveryS: number | null;
  restartError?: string;
  /** Processes that exited though nobody killed them (the killed one excluded). */
  deaths: Death[];
  violations: string[];
}

export interface ChaosReport {
  options: ChaosOptions;
  route: string;
  results: FaultResult[];
  replicaResults: ReplicaFaultResult[];
  setupS: number;
  totalS: number;
}

export function percentile(sorted: number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export function outcomeKey(s: Sample): string {
  if (s.outcome === 'connection_error') return `conn ${s.errno ?? ''}`.trim();
  if (s.outcome === 'timeout') return 'timeout';
  return s.code ? `${s.outcome} ${s.code}` : String(s.outcome);
}

/** When did the platform serve only 200s again after `back`? The end of that first 200, or undefined. */
export function recoveredAt(samples: Sample[], from: number, back: number): number | undefined {
  let lastBad = Number.NEGATIVE_INFINITY;
  for (const s of samples) if (s.end >= from && s.outcome !== 200 && s.end > lastBad) lastBad = s.end;
  const after = Math.max(lastBad, back);
  let first: number | undefined;
  for (const s of samples)
    if (s.outcome === 200 && s.end > after && (first === undefined || s.end < first)) first = s.end;
  return first;
}

/** Watches the stack's processes and the private servers for exits nobody asked for. */
class DeathWatch {
  readonly deaths: Death[] = [];
  private readonly watched = new WeakSet<ChildProcess>();
  private readonly expected = new WeakSet<ChildProcess>();

  constructor(private readonly stack: Stack) {}

  /** Starts watching every current process of the stack (call after each restart). */
  observe(): void {
    for (const proc of this.stack.procs.values()) {
      const { child } = proc;
      if (this.watched.has(child)) continue;
      this.watched.add(child);
      const record = (code: number | null, signal: string | null) => {
        if (this.expected.has(child)) return;
        this.deaths.push({
          name: proc.name,
          pid: child.pid,
          code,
          signal,
          tail: proc.output.join('').slice(-1500),
        });
      };
      if (child.exitCode !== null || child.signalCode !== null) record(child.exitCode, child.signalCode);
      else child.once('exit', record);
    }
  }

  expect(child: ChildProcess): void {
    this.expected.add(child);
  }

  take(): Death[] {
    return this.deaths.splice(0);
  }
}

async function sql<T extends pg.QueryResultRow>(
  url: string,
  text: string,
  params: unknown[] = [],
): Promise<T[]> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  client.on('error', () => {});
  try {
    await client.connect();
    return (await client.query<T>(text, params)).rows;
  } finally {
    await client.end().catch(() => {});
  }
}

export interface ChaosContext {
  stack: Stack;
  shards: number;
  postgres: PrivateServer;
  nats: PrivateServer;
  route: string;
  plan: string;
  ledgerSchema: string;
  watch: DeathWatch;
  log: (line: string) => void;
}

/** Starts the private Postgres and NATS, the platform on them, a plan without caps and the quote data. */
export async function setUpChaos(o: ChaosOptions): Promise<ChaosContext> {
  const log = o.log ?? (() => {});
  const postgres = await startPrivatePostgres();
  let nats: PrivateServer | undefined;
  let stack: Stack | undefined;
  try {
    const onCluster = o.nats === 'cluster';
    let usageStream = '';
    nats = onCluster
      ? clusterAsServer(await startPrivateNatsCluster(3), () => `${usageStream}_0`)
      : await startPrivateNats();
    log(`private Postgres ${postgres.url} (${postgres.dir}), nats-server ${nats.url} (${nats.dir})`);
    // No data cache at the gateway: every request reaches equities-data, so its death shows.
    const shards = o.shards ?? 2;
    stack = await startStack(
      {
        LOG_LEVEL: 'warn',
        DATA_CACHE_TTL_MS: '0',
        ...(onCluster ? { USAGE_STREAM_REPLICAS: '3' } : {}),
      },
      { databaseUrl: postgres.url, natsUrl: nats.url, shards },
    );
    usageStream = stack.usage.USAGE_STREAM;
    log(`platform up (${stack.procs.size} processes, ${shards} ledger shards)`);
    // Uncapped, and a burst cap the load never reaches: only faults refuse requests.
    const plan = 'chaos';
    await stack.admin('plan', 'create', plan, '--daily', 'none', '--monthly', 'none', '--burst', '100000000');
    const equities = stack.schemas.find((s) => s.endsWith('_equities_data'))!;
    const ledgerSchema = stack.schemas.find((s) => s.endsWith('_quota_ledger'))!;
    await exec(
      process.execPath,
      [
        ...nodeArgsFor('services/equities-data/src/cli.ts'),
        'load-default',
        '--size',
        String(o.datasetSize ?? 20),
        '--history-days',
        '30',
      ],
      { env: { ...process.env, DATABASE_URL: postgres.url, NATS_URL: nats.url, DB_SCHEMA: equities } },
    );
    const symbols = await sql<{ symbol: string }>(
      postgres.url,
      `SELECT symbol FROM "${equities}".stocks WHERE status = 'listed' ORDER BY symbol`,
    );
    const probe = await stack.admin('demo-token', '--plan', plan);
    const token = probe.split('\n').at(-1)!;
    // The equities service reloads on the load's notification; the first listed stock with a quote is the route.
    let route: string | undefined;
    const until = Date.now() + 60_000;
    while (!route && Date.now() < until) {
      for (const { symbol } of symbols) {
        const path = `/v1/stocks/${encodeURIComponent(symbol)}/quote`;
        const res = await fetch(`${stack.baseUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });
        await res.arrayBuffer();
        if (res.status === 200) {
          route = path;
          break;
        }
      }
      if (!route) await sleep(250);
    }
    if (!route) throw new Error('the equities service never served a quote of the loaded data');
    log(`route ${route}`);
    const ctx = {
      stack,
      shards,
      postgres,
      nats,
      route,
      plan,
      ledgerSchema,
      watch: new DeathWatch(stack),
      log,
    };
    ctx.watch.observe();
    return ctx;
  } catch (err) {
    await stack?.shutdown().catch(() => {});
    await nats?.cleanup().catch(() => {});
    await postgres.cleanup().catch(() => {});
    throw err;
  }
}

/**
 * A private cluster as the chaos runner's one NATS: its URL is every server's, and its `nats-server` fault
 * is the SIGKILL of the server leading `stream` then (the first server while the stream has no leader),
 * started again by `start`.
 */
function clusterAsServer(cluster: PrivateNatsCluster, stream: () => string): PrivateServer {
  let down: ClusterServer | undefined;
  const first = cluster.servers[0]!;
  return {
    url: cluster.url,
    port: first.port,
    dir: cluster.dir,
    // Down while any of its servers is (one that died unasked counts too).
    pid: () => (cluster.servers.every((s) => s.running()) ? first.pid() : undefined),
    kill: async () => {
      down = (await cluster.streamLeader(stream())) ?? first;
      const pid = down.pid();
      await down.signal('SIGKILL');
      return pid;
    },
    start: async () => {
      for (const s of cluster.servers) await s.start();
      down = undefined;
    },
    stop: () => cluster.stop(),
    cleanup: () => cluster.stop(),
    logTail: (lines) => (down ?? first).logTail(lines),
  };
}

export async function tearDownChaos(ctx: ChaosContext): Promise<void> {
  // Bring back whatever is down so the stack can drop its schemas and stream, then remove everything.
  if (ctx.postgres.pid() === undefined) await ctx.postgres.start().catch(() => {});
  if (ctx.nats.pid() === undefined) await ctx.nats.start().catch(() => {});
  await ctx.stack.shutdown().catch((err) => ctx.log(`stack shutdown: ${(err as Error).message}`));
  await ctx.nats.cleanup();
  await ctx.postgres.cleanup();
}

const SERVICE_FAULTS: Partial<Record<Fault, ServiceName>> = {
  gateway: 'gateway',
  'quota-ledger': 'quota-ledger',
  auth: 'auth',
  'equities-data': 'equities-data',
};

async function kill(ctx: ChaosContext, fault: Fault): Promise<number | undefined> {
  const service = SERVICE_FAULTS[fault];
  if (service) {
    const { child } = ctx.stack.procs.get(service)!;
    ctx.watch.expect(child);
    await ctx.stack.stop(service, 'SIGKILL');
    return child.pid;
  }
  return (fault === 'nats-server' ? ctx.nats : ctx.postgres).kill();
}

async function restart(ctx: ChaosContext, fault: Fault): Promise<void> {
  const service = SERVICE_FAULTS[fault];
  if (service) await ctx.stack.start(service);
  else await (fault === 'nats-server' ? ctx.nats : ctx.postgres).start();
  ctx.watch.observe();
}

/** Settlements still being retried at the gateway (its metrics), or null when it does not answer. */
async function gatewayPending(opsPort: number): Promise<number | null> {
  try {
    const text = await (await fetch(`http://127.0.0.1:${opsPort}/metrics`)).text();
    const m = /^gateway_settlements_pending(?:\{[^}]*\})?\s+(\S+)/m.exec(text);
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

/** Messages of this stack's usage streams not yet delivered or acknowledged, over every consumer. */
async function streamBacklog(ctx: ChaosContext): Promise<number | null> {
  let nc: Awaited<ReturnType<typeof connect>> | undefined;
  try {
    nc = await connect({ servers: ctx.nats.url, timeout: 2000, reconnect: false });
    const jsm = await nc.jetstreamManager();
    let backlog = 0;
    let consumers = 0;
    // Each shard's stream, and the legacy stream of every shard where one exists.
    const name = ctx.stack.usage.USAGE_STREAM;
    const { base, numbered } = await streamFamily(jsm, name);
    for (const stream of [...(base ? [name] : []), ...numbered.values()]) {
      for await (const info of jsm.consumers.list(stream)) {
        consumers++;
        backlog += info.num_pending + info.num_ack_pending;
      }
    }
    return consumers === 0 ? null : backlog;
  } catch {
    return null;
  } finally {
    await nc?.close().catch(() => {});
  }
}

export async function chargedFor(
  ctx: ChaosContext,
  account: string,
): Promise<{ projection: number; log: number } | null> {
  try {
    const [row] = await sql<{ projection: string; log: string }>(
      ctx.postgres.url,
      `SELECT (SELECT coalesce(sum(charged), 0) FROM "${ctx.ledgerSchema}".usage_daily WHERE account_id = $1) AS projection,
              (SELECT count(*) FROM (SELECT request_id FROM "${ctx.ledgerSchema}".usage_events WHERE account = (SELECT id FROM "${ctx.ledgerSchema}".usage_accounts WHERE account_id = $1::uuid)
                 GROUP BY request_id HAVING bool_or(kind = 'c') AND NOT bool_or(kind = 'v')) AS c) AS log`,
      [account],
    );
    return { projection: Number(row!.projection), log: Number(row!.log) };
  } catch {
    return null;
  }
}

/**
 * Waits until nothing is left to settle (no settlement pending at the gateway — the stack's, or the
 * one on `gatewayOpsPort` — the usage stream fully acknowledged by the ledger) and the account's counts
 * have stopped moving.
 */
export async function settle(
  ctx: ChaosContext,
  account: string,
  timeoutMs: number,
  gatewayOpsPort = ctx.stack.procs.get('gateway')!.opsPort,
) {
  const until = now() + timeoutMs;
  let previous: { projection: number; log: number } | null = null;
  let last: { projection: number; log: number } | null = null;
  while (now() < until) {
    const [pending, backlog, counts] = await Promise.all([
      gatewayPending(gatewayOpsPort),
      streamBacklog(ctx),
      chargedFor(ctx, account),
    ]);
    last = counts ?? last;
    const quiet = pending === 0 && backlog === 0 && counts !== null;
    if (
      quiet &&
      previous !== null &&
      previous.projection === counts.projection &&
      previous.log === counts.log
    ) {
      return { counts, settled: true };
    }
    previous = quiet ? counts : null;
    await sleep(500);
  }
  return { counts: last, settled: false };
}

async function usageUsed(ctx: ChaosContext, token: string): Promise<number | null> {
  try {
    const res = await fetch(`${ctx.stack.baseUrl}/v1/me/usage`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const body = (await res.json()) as { data?: { day?: { used?: number } } };
    return res.status === 200 ? (body.data?.day?.used ?? null) : null;
  } catch {
    return null;
  }
}

/** One fault: load, SIGKILL, wait, restart, load until stable, stop, settle, count. */
export async function runFault(ctx: ChaosContext, fault: Fault, o: ChaosOptions): Promise<FaultResult> {
  const { stack } = ctx;
  // One account per fault: its charges are this fault's alone. A killed shard's is one it owns.
  let account = await stack.admin('account', 'create', '--plan', ctx.plan, '--name', `chaos-${fault}`);
  while (fault === 'quota-ledger' && shardOf(account, ctx.shards) !== 0)
    account = await stack.admin('account', 'create', '--plan', ctx.plan, '--name', `chaos-${fault}`);
  const token = await stack.admin('token', 'issue', account);
  const cold = COLD_TOKEN_FAULTS.has(fault)
    ? await Promise.all([1, 2].map(() => stack.admin('token', 'issue', account)))
    : [];
  ctx.watch.observe();
  const load = new ClientLoad({
    baseUrl: stack.baseUrl,
    path: ctx.route,
    clients: o.clients,
    ratePerSecond: o.ratePerSecond,
    tokens: [token],
    timeoutMs: o.requestTimeoutMs,
  });
  let killedPid: number | undefined;
  let restartError: string | undefined;
  const tKill = { at: 0 };
  let back = 0;
  try {
    await sleep(o.warmupMs);
    tKill.at = now();
    killedPid = await kill(ctx, fault);
    if (cold.length > 0) load.useColdTokens(cold);
    ctx.log(`${fault}: SIGKILL pid ${killedPid}`);
    await sleep(o.downMs);
    try {
      await restart(ctx, fault);
    } catch (err) {
      restartError = (err as Error).message.slice(0, 500);
    }
    back = now();
    ctx.log(`${fault}: back after ${((back - tKill.at) / 1000).toFixed(1)} s`);
    while (now() - back < o.recoveryTimeoutMs) {
      const at = recoveredAt(load.samples, tKill.at, back);
      if (at !== undefined && now() - at >= o.stableMs) break;
      await sleep(50);
    }
  } finally {
    await load.stop();
  }

  const samples = load.samples;
  const at = recoveredAt(samples, tKill.at, back);
  const recoveryS = at !== undefined && !restartError ? Math.max(0, at - back) / 1000 : null;
  const { counts, settled } = await settle(ctx, account, o.settleTimeoutMs);
  const used = await usageUsed(ctx, token);
  ctx.watch.observe();
  const deaths = ctx.watch.take();
  // A private server that died without being killed in this fault counts too; bring it back for the next.
  for (const [name, server] of [
    ['nats-server', ctx.nats],
    ['postgres', ctx.postgres],
  ] as const) {
    if (server.pid() === undefined) {
      deaths.push({ name, pid: undefined, code: null, signal: null, tail: server.logTail(10) });
      await server.start().catch(() => {});
    }
  }
  // Likewise a service: restarted so the next fault starts from a whole platform.
  for (const proc of [...stack.procs.values()]) {
    if (proc.child.exitCode !== null || proc.child.signalCode !== null) {
      await stack
        .start(proc.name)
        .catch((err) => ctx.log(`could not restart ${proc.name}: ${(err as Error).message}`));
    }
  }
  ctx.watch.observe();

  const outcomes: Record<string, number> = {};
  const unexpected: Record<string, number> = {};
  const allowed = ALLOWED[fault];
  const latencies503: number[] = [];
  let missingRetryAfter = 0;
  let wrongCode = 0;
  const retryAfterValues = new Set<string>();
  for (const s of samples) {
    if (s.outcome === 200) continue;
    const key = outcomeKey(s);
    outcomes[key] = (outcomes[key] ?? 0) + 1;
    if (s.outcome === 503) {
      latencies503.push(s.end - s.start);
      if (s.retryAfter === undefined) missingRetryAfter++;
      else retryAfterValues.add(s.retryAfter);
      if (s.code !== 'service_unavailable') wrongCode++;
    }
    const ok =
      (s.outcome === 'connection_error' && allowed.connectionErrors) ||
      (typeof s.outcome === 'number' && allowed.statuses.includes(s.outcome));
    if (!ok) unexpected[key] = (unexpected[key] ?? 0) + 1;
  }
  latencies503.sort((a, b) => a - b);
  const outcomeP99Ms: Record<string, number> = {};
  for (const key of Object.keys(outcomes)) {
    const lat = samples
      .filter((s) => s.outcome !== 200 && outcomeKey(s) === key)
      .map((s) => s.end - s.start)
      .sort((a, b) => a - b);
    outcomeP99Ms[key] = percentile(lat, 99)!;
  }
  const late = samples.filter((s) => s.outcome !== 200 && s.end > back);
  const lateKinds: Record<string, number> = {};
  for (const s of late) lateKinds[outcomeKey(s)] = (lateKinds[outcomeKey(s)] ?? 0) + 1;
  const count = (o: Outcome) => samples.filter((s) => s.outcome === o).length;
  const result: FaultResult = {
    fault,
    killedPid,
    requests: samples.length,
    seen: count(200),
    charged: counts?.projection ?? null,
    chargedInLog: counts?.log ?? null,
    usageUsed: used,
    settled,
    connectionErrors: count('connection_error'),
    cutOff: samples.filter((s) => s.outcome === 'connection_error' && s.errno !== 'ECONNREFUSED').length,
    timeouts: count('timeout'),
    refusals503: {
      count: latencies503.length,
      p50Ms: percentile(latencies503, 50),
      p99Ms: percentile(latencies503, 99),
      maxMs: latencies503.at(-1) ?? null,
      missingRetryAfter,
      wrongCode,
      retryAfterValues: [...retryAfterValues].sort(),
    },
    outcomes,
    outcomeP99Ms,
    afterBack: {
      failures: late.length,
      lastS: late.length === 0 ? null : (Math.max(...late.map((s) => s.end)) - back) / 1000,
      onColdTokens: late.filter((s) => s.cold).length,
      kinds: lateKinds,
    },
    unexpected,
    downS: (back - tKill.at) / 1000,
    recoveryS,
    ...(restartError ? { restartError } : {}),
    deaths,
    violations: [],
  };
  result.violations = violations(result);
  return result;
}

/** How many charged-but-unseen units a fault may show: only a killed gateway can cut a charged 200 off. */
export function unseenAllowance(r: FaultResult): number {
  return r.fault === 'gateway' ? r.cutOff : 0;
}

/** Every acceptance criterion this fault's result breaks, in words with the numbers. */
export function violations(r: FaultResult): string[] {
  const v: string[] = [];
  if (r.charged === null) v.push('could not read the ledger projection');
  else {
    if (r.charged < r.seen)
      v.push(
        `${r.seen - r.charged} 200s seen by clients were not charged (seen ${r.seen}, charged ${r.charged})`,
      );
    if (r.charged > r.seen + unseenAllowance(r)) {
      v.push(
        `${r.charged - r.seen} units charged for no 200 seen (seen ${r.seen}, charged ${r.charged}` +
          (r.fault === 'gateway' ? `, only ${r.cutOff} requests cut off in flight)` : ')'),
      );
    }
    if (r.chargedInLog !== null && r.chargedInLog !== r.charged)
      v.push(`projection ${r.charged} differs from the event log's ${r.chargedInLog}`);
  }
  if (!r.settled)
    v.push('the ledger had not settled (settlements pending or counts still moving) at the deadline');
  for (const d of r.deaths)
    v.push(`${d.name} (pid ${d.pid ?? '?'}) exited unasked: code ${d.code}, signal ${d.signal}`);
  if (r.restartError) v.push(`${r.fault} did not come back: ${r.restartError}`);
  if (r.recoveryS === null) v.push('no recovery: responses other than 200 until the recovery deadline');
  else if (r.recoveryS > LIMITS.recoveryS) {
    const a = r.afterBack;
    v.push(
      `recovery took ${r.recoveryS.toFixed(2)} s (limit ${LIMITS.recoveryS} s): ${a.failures} responses other than 200 ` +
        `after the return (${Object.entries(a.kinds)
          .map(([k, n]) => `${k} ×${n}`)
          .join(
            ', ',
          )}; ${a.onColdTokens} on never-verified tokens), the last ${a.lastS?.toFixed(2)} s after it`,
    );
  }
  const p99 = r.refusals503.p99Ms;
  if (p99 !== null && p99 > LIMITS.refusalP99Ms)
    v.push(`503 p99 ${p99.toFixed(0)} ms (limit ${LIMITS.refusalP99Ms} ms)`);
  if (r.refusals503.missingRetryAfter > 0)
    v.push(`${r.refusals503.missingRetryAfter} 503s without Retry-After`);
  if (r.refusals503.wrongCode > 0)
    v.push(`${r.refusals503.wrongCode} 503s whose error.code is not service_unavailable`);
  const unexpected = Object.entries(r.unexpected);
  if (unexpected.length > 0)
    v.push(
      `responses a ${r.fault} outage must not produce: ${unexpected.map(([k, n]) => `${k} ×${n}`).join(', ')}`,
    );
  return v;
}

/** The whole scenario: set up, every fault in turn, tear down. */
export async function runChaos(o: ChaosOptions): Promise<ChaosReport> {
  const t0 = now();
  const ctx = await setUpChaos(o);
  const setupS = (now() - t0) / 1000;
  const results: FaultResult[] = [];
  const replicaResults: ReplicaFaultResult[] = [];
  try {
    for (const fault of o.faults ?? FAULTS) {
      const r = await runFault(ctx, fault, o);
      ctx.log(
        `${fault}: ${r.requests} requests, ${r.seen} 200s, charged ${r.charged}, ${r.refusals503.count} 503s, recovery ${r.recoveryS?.toFixed(2) ?? 'none'} s, ${r.violations.length} violation(s)`,
      );
      results.push(r);
    }
    for (const fault of o.replicaFaults ?? []) {
      const r = await runReplicaFault(ctx, fault, o);
      ctx.log(
        `${fault}: ${r.requests} requests, ${r.seen} 200s, charged ${r.charged}, ${r.violations.length} violation(s)`,
      );
      replicaResults.push(r);
    }
  } finally {
    await tearDownChaos(ctx);
  }
  return { options: o, route: ctx.route, results, replicaResults, setupS, totalS: (now() - t0) / 1000 };
}

// Function declarations, not consts: replicas.ts, which runner.ts imports, imports these back.

/** Milliseconds as a cell of the chaos tables: whole, '-' where there were none. */
export function ms(v: number | null): string {
  return v === null ? '-' : v.toFixed(0);
}

/** The units charged as a cell: '?' when the projection could not be read, '*' when not settled in time. */
export function chargedCell(r: { charged: number | null; settled: boolean }): string {
  return r.charged === null ? '?' : `${r.charged}${r.settled ? '' : '*'}`;
}

/** A fault's outcomes other than 200 as a cell (`kind×n`, '-' for none), those `shown` keeps. */
export function outcomesCell(outcomes: Record<string, number>, shown = (_key: string) => true): string {
  return (
    Object.entries(outcomes)
      .filter(([k]) => shown(k))
      .map(([k, n]) => `${k}×${n}`)
      .join(' ') || '-'
  );
}

/**
 * The lines of a chaos table, each column as wide as its widest cell: the first (the fault) and the last
 * (free text) left-aligned, the figures between right-aligned.
 */
export function tableLines(head: string[], rows: string[][]): string[] {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === 0 || i === cells.length - 1 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [head, ...rows].map(line);
}

/** One row per fault, then every violation spelled out. */
export function formatReport(report: ChaosReport): string {
  const head = [
    'fault',
    'reqs',
    '200 seen',
    'charged',
    'unseen ok',
    '503s',
    '503 p50',
    '503 p99',
    'down s',
    'recov s',
    'died',
    'other outcomes',
  ];
  const rows = report.results.map((r) => [
    r.fault,
    String(r.requests),
    String(r.seen),
    chargedCell(r),
    r.fault === 'gateway' ? `≤${unseenAllowance(r)}` : '0',
    String(r.refusals503.count),
    ms(r.refusals503.p50Ms),
    ms(r.refusals503.p99Ms),
    r.downS.toFixed(1),
    r.recoveryS === null ? 'never' : r.recoveryS.toFixed(2),
    r.deaths.length === 0 ? '-' : r.deaths.map((d) => d.name).join(','),
    // The 503s have columns of their own.
    outcomesCell(r.outcomes, (k) => !k.startsWith('503 ')),
  ]);
  const out = [
    `route ${report.route}; ${report.options.clients} clients at about ${report.options.ratePerSecond} req/s; ` +
      `${report.results.reduce((n, r) => n + r.requests, 0)} requests; setup ${report.setupS.toFixed(0)} s, total ${report.totalS.toFixed(0)} s`,
    '',
    ...tableLines(head, rows),
    '',
    'charged: units in the ledger projection once settled (* = not settled by the deadline); unseen ok: charged 200s',
    'the clients may not have seen (only requests cut off in flight, i.e. connection errors other than ECONNREFUSED,',
    'when the gateway itself is killed);',
    `503 p50/p99 in ms (limit p99 ${LIMITS.refusalP99Ms}); down s: SIGKILL to back (ready / accepting connections);`,
    `recov s: from back to the first 200 after which every response was a 200 (limit ${LIMITS.recoveryS} s).`,
  ];
  if (report.replicaResults.length > 0) out.push('', formatReplicaReport(report.replicaResults));
  const failed = [...report.results, ...report.replicaResults].filter((r) => r.violations.length > 0);
  out.push('');
  if (failed.length === 0) out.push('every invariant and limit of make chaos held');
  for (const r of failed) {
    out.push(`${r.fault}: outside make chaos's invariants or limits`);
    for (const v of r.violations) out.push(`  - ${v}`);
    for (const d of r.deaths) out.push(`  ${d.name} last output:\n${d.tail.replace(/^/gm, '    | ')}`);
  }
  for (const r of report.results) {
    if (r.usageUsed !== null && r.charged !== null && r.usageUsed !== r.charged) {
      out.push(
        `note: ${r.fault}: /v1/me/usage says ${r.usageUsed} used, the projection ${r.charged} (the live count includes holds of admitted requests never settled, until HOLD_TTL_MS)`,
      );
    }
    for (const [key, p99] of Object.entries(r.outcomeP99Ms)) {
      if (!key.startsWith('503')) out.push(`note: ${r.fault}: ${key} ×${r.outcomes[key]}, p99 ${ms(p99)} ms`);
    }
    if (r.refusals503.count > 0) {
      out.push(
        `note: ${r.fault}: 503 Retry-After values ${r.refusals503.retryAfterValues.join(', ') || '(none)'}, max ${ms(r.refusals503.maxMs)} ms`,
      );
    }
  }
  return out.join('\n');
}
