// SIGSTOP faults of the data service equities-data under a paced load (issue 32): a stopped process
// keeps its TCP connections open and answers nothing, so only deadlines show it.
// - `equities-data-paused-1-of-2`: two replicas behind one gateway upstream name (a second
//   equities-data on the same schema; a second gateway whose EQUITIES_ADDR lists both, as a headless
//   Service's name resolves to every ready pod); one is stopped. After the first deadline miss no
//   answer may take over 100 ms, and every answer is a 200.
// - `equities-data-paused-only`: the stack's only replica is stopped. Once the gateway shows its address
//   ejected (the upstream's breaker open), every 502 answers within 50 ms; after SIGCONT, only 200s
//   again within 2 s.
// Either way the gateway sends the stopped address no call from its ejection to SIGCONT, as its own
// per-address call counter shows: the latencies above are what that looks like on a quiet machine.
// Every process is continued and ended however the fault ends. 200s seen must equal units charged.
import { type ChildProcess, spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { nodeArgsFor } from '../bundles.ts';
import { metric } from '../metrics.ts';
import { atProcessEnd } from '../process-end.ts';
import { pauseProcess } from '../process-pause.ts';
import { freePort } from '../stack.ts';
import { ClientLoad, type Sample } from './load.ts';
import {
  type ChaosContext,
  type ChaosOptions,
  chargedCell,
  type Death,
  ms,
  outcomeKey,
  outcomesCell,
  percentile,
  recoveredAt,
  settle,
  tableLines,
} from './runner.ts';

export const REPLICA_FAULTS = ['equities-data-paused-1-of-2', 'equities-data-paused-only'] as const;
export type ReplicaFault = (typeof REPLICA_FAULTS)[number];

export const REPLICA_LIMITS = {
  /** Two replicas: the slowest answer to a request begun after the first deadline miss. */
  afterFirstMissMs: 100,
  /** One replica: the slowest 502 to a request begun once its address is ejected. */
  openRefusalMs: 50,
  /** From SIGCONT to only 200s again. */
  recoveryS: 2,
} as const;

/** The gateway's budget for a data call (UPSTREAM_DEADLINE_MS); a lone replica's attempt waits all of it. */
export const DEADLINE_MS = 2_500;

export interface ReplicaFaultResult {
  fault: ReplicaFault;
  requests: number;
  seen: number;
  charged: number | null;
  chargedInLog: number | null;
  settled: boolean;
  outcomes: Record<string, number>;
  /** From SIGSTOP to the end of the first request that waited out a deadline (s). */
  firstMissS: number | null;
  /** From SIGSTOP to the gateway's metrics showing the address ejected (s). */
  ejectedS: number | null;
  /** Calls the gateway sent the stopped address from its ejection to SIGCONT (health probes apart). */
  sentWhileEjected: number | null;
  /** Requests begun after the first miss (two replicas) or the ejection (one): count, slowest, p99 (ms). */
  after: { count: number; maxMs: number | null; p99Ms: number | null };
  /** From SIGCONT to the first 200 after which every answer was a 200 (s). */
  recoveryS: number | null;
  /**
   * Each answer the fault does not allow (two replicas: any but 200 and 503), timed from SIGSTOP, with
   * the gateway's log lines for its request id (which say the call's error, its deadline and address).
   */
  unexpected: string[];
  deaths: Death[];
  violations: string[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const now = () => performance.now();

interface Spawned {
  child: ChildProcess;
  /** What the process wrote, stdout and stderr, in order (warn and above: LOG_LEVEL=warn). */
  output: string[];
}

async function spawnService(
  name: 'equities-data' | 'gateway',
  env: Record<string, string>,
  opsPort: number,
): Promise<Spawned> {
  const child = spawn(process.execPath, [...nodeArgsFor(`services/${name}/src/server.ts`)], {
    env: { ...process.env, LOG_LEVEL: 'warn', SHUTDOWN_GRACE_MS: '3000', OPS_PORT: String(opsPort), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // However the test process ends, this one goes with it (continued first, in case it is stopped).
  const forget = atProcessEnd(() => {
    child.kill('SIGCONT');
    child.kill('SIGKILL');
  });
  child.once('exit', forget);
  const output: string[] = [];
  child.stdout?.on('data', (c) => output.push(String(c)));
  child.stderr?.on('data', (c) => output.push(String(c)));
  const until = Date.now() + 240_000;
  while (Date.now() < until) {
    if (child.exitCode !== null) break;
    const ready = await fetch(`http://127.0.0.1:${opsPort}/readyz`)
      .then((r) => r.status === 200)
      .catch(() => false);
    if (ready) return { child, output };
    await sleep(100);
  }
  throw new Error(`${name} did not become ready: ${output.join('').slice(-1500)}`);
}

async function stopAll(children: ChildProcess[]): Promise<void> {
  await Promise.all(
    children.map(async (child) => {
      child.kill('SIGCONT');
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    }),
  );
}

/** The calls the gateway has sent `address` of equities-data, or undefined while it is not ejected. */
async function sentWhileOut(opsPort: number, address: string): Promise<number | undefined> {
  const labels = { target: 'equities-data', address };
  try {
    if ((await metric(opsPort, 'grpc_client_address_ejected', labels)) !== 1) return undefined;
    return await metric(opsPort, 'grpc_client_address_calls_total', labels);
  } catch {
    return undefined;
  }
}

/** A second equities-data on the stack's schema and a gateway whose upstream name lists both replicas. */
async function secondReplicaAndGateway(ctx: ChaosContext) {
  const { stack } = ctx;
  const equities = stack.procs.get('equities-data')!;
  const [grpcPort, equitiesOps, httpPort, gatewayOps] = [
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
  ];
  const replica = await spawnService(
    'equities-data',
    {
      GRPC_PORT: String(grpcPort),
      DB_SCHEMA: stack.schemas.find((s) => s.endsWith('_equities_data'))!,
      DATABASE_URL: stack.databaseUrl,
      NATS_URL: stack.natsUrl,
    },
    equitiesOps,
  );
  const addr = (name: 'auth' | 'filings-reader' | 'options-analytics') =>
    `127.0.0.1:${stack.procs.get(name)!.port}`;
  const gateway = await spawnService(
    'gateway',
    {
      ...stack.usage,
      PORT: String(httpPort),
      NATS_URL: stack.natsUrl,
      AUTH_ADDR: addr('auth'),
      EQUITIES_ADDR: `ipv4:127.0.0.1:${equities.port},127.0.0.1:${grpcPort}`,
      FILINGS_ADDR: addr('filings-reader'),
      OPTIONS_ADDR: addr('options-analytics'),
      // Every shard, in shard order, as the stack's own gateway has them: a shard refuses another's accounts.
      LEDGER_ADDR: stack.envOf('gateway').LEDGER_ADDR!,
      DATA_CACHE_TTL_MS: '0',
    },
    gatewayOps,
  ).catch(async (err) => {
    await stopAll([replica.child]);
    throw err;
  });
  return {
    replica: replica.child,
    gateway: gateway.child,
    gatewayOutput: gateway.output,
    baseUrl: `http://127.0.0.1:${httpPort}`,
    opsPort: gatewayOps,
    address: `127.0.0.1:${grpcPort}`,
  };
}

/** One SIGSTOP fault: load, stop, hold, continue, load until stable, settle, count. */
export async function runReplicaFault(
  ctx: ChaosContext,
  fault: ReplicaFault,
  o: ChaosOptions,
): Promise<ReplicaFaultResult> {
  const { stack } = ctx;
  const account = await stack.admin('account', 'create', '--plan', ctx.plan, '--name', `chaos-${fault}`);
  const token = await stack.admin('token', 'issue', account);
  const two = fault === 'equities-data-paused-1-of-2';
  const extra = two ? await secondReplicaAndGateway(ctx) : undefined;
  const opsPort = extra?.opsPort ?? stack.procs.get('gateway')!.opsPort;
  // The stopped process: the second replica, or the stack's only one.
  const victim = extra?.replica ?? stack.procs.get('equities-data')!.child;
  const victimAddress = extra?.address ?? stack.envOf('gateway').EQUITIES_ADDR!;
  ctx.watch.observe();
  let samples: Sample[] = [];
  let stoppedAt = 0;
  let ejectedAt: number | undefined;
  let sentWhileEjected: number | null = null;
  let back: number | undefined;
  try {
    const load = new ClientLoad({
      baseUrl: extra?.baseUrl ?? stack.baseUrl,
      path: ctx.route,
      clients: o.clients,
      ratePerSecond: o.ratePerSecond,
      tokens: [token],
      timeoutMs: o.requestTimeoutMs,
    });
    try {
      await sleep(o.warmupMs);
      await pauseProcess(victim.pid!);
      stoppedAt = now();
      ctx.log(`${fault}: SIGSTOP pid ${victim.pid}`);
      // Held until the gateway has ejected it (a deadline or so), then as long again as the SIGKILL faults' outage.
      const until = now() + DEADLINE_MS * 4;
      while (ejectedAt === undefined && now() < until) {
        if ((await sentWhileOut(opsPort, victimAddress)) !== undefined) ejectedAt = now();
        else await sleep(20);
      }
      // The count from a scrape begun after the ejection: the one that showed it may have read the
      // counter just before the breaker opened.
      const atEjection = ejectedAt === undefined ? undefined : await sentWhileOut(opsPort, victimAddress);
      // A lone replica: every client is held by a request sent before the ejection, which waits out its
      // deadline; only then does the load see the open breaker's fast 502s, for the outage's length.
      await sleep(o.downMs + (two ? 0 : DEADLINE_MS));
      const atEnd = await sentWhileOut(opsPort, victimAddress);
      if (atEjection !== undefined && atEnd !== undefined) sentWhileEjected = atEnd - atEjection;
    } finally {
      victim.kill('SIGCONT');
      back = now();
    }
    ctx.log(`${fault}: SIGCONT after ${((back - stoppedAt) / 1000).toFixed(1)} s`);
    while (now() - back < o.recoveryTimeoutMs) {
      const at = recoveredAt(load.samples, stoppedAt, back);
      if (at !== undefined && now() - at >= o.stableMs) break;
      await sleep(50);
    }
    await load.stop();
    samples = load.samples;
    const { counts, settled } = await settle(ctx, account, o.settleTimeoutMs, opsPort);
    const r = measure(fault, samples, { stoppedAt, ejectedAt, back }, counts, settled, ctx, sentWhileEjected);
    r.unexpected = unexpectedAnswers(
      r,
      samples,
      stoppedAt,
      extra?.gatewayOutput ?? stack.procs.get('gateway')!.output,
    );
    return r;
  } finally {
    victim.kill('SIGCONT');
    if (extra) await stopAll([extra.gateway, extra.replica]);
  }
}

function measure(
  fault: ReplicaFault,
  samples: Sample[],
  t: { stoppedAt: number; ejectedAt: number | undefined; back: number },
  counts: { projection: number; log: number } | null,
  settled: boolean,
  ctx: ChaosContext,
  sentWhileEjected: number | null,
): ReplicaFaultResult {
  const two = fault === 'equities-data-paused-1-of-2';
  const outcomes: Record<string, number> = {};
  for (const s of samples)
    if (s.outcome !== 200) outcomes[outcomeKey(s)] = (outcomes[outcomeKey(s)] ?? 0) + 1;
  // A request that waited out a deadline: half the budget on one of two replicas, all of it on a lone one.
  // Any that ended after the stop counts, begun before it too: `stoppedAt` is when every thread was seen
  // stopped, and on a loaded machine requests sent to the replica in between wait the same (a CI run
  // had its only waits begin there, and read as none).
  const waited = two ? DEADLINE_MS / 2 - 100 : DEADLINE_MS - 100;
  const misses = samples.filter((s) => s.end > t.stoppedAt && s.end - s.start >= waited).map((s) => s.end);
  const firstMiss = misses.length > 0 ? Math.min(...misses) : undefined;
  const from = two ? firstMiss : t.ejectedAt;
  const afterSamples = from === undefined ? [] : samples.filter((s) => s.start > from && s.start < t.back);
  const checked = two ? afterSamples : afterSamples.filter((s) => s.outcome === 502);
  const latencies = checked.map((s) => s.end - s.start).sort((a, b) => a - b);
  const at = recoveredAt(samples, t.stoppedAt, t.back);
  const r: ReplicaFaultResult = {
    fault,
    requests: samples.length,
    seen: samples.filter((s) => s.outcome === 200).length,
    charged: counts?.projection ?? null,
    chargedInLog: counts?.log ?? null,
    settled,
    outcomes,
    firstMissS: firstMiss === undefined ? null : (firstMiss - t.stoppedAt) / 1000,
    ejectedS: t.ejectedAt === undefined ? null : (t.ejectedAt - t.stoppedAt) / 1000,
    sentWhileEjected,
    after: { count: latencies.length, maxMs: latencies.at(-1) ?? null, p99Ms: percentile(latencies, 99) },
    recoveryS: at === undefined ? null : Math.max(0, at - t.back) / 1000,
    unexpected: [],
    deaths: [],
    violations: [],
  };
  ctx.watch.observe();
  r.deaths = ctx.watch.take();
  r.violations = replicaViolations(r);
  return r;
}

/** The fault's answer other than 200 that comes of the fault itself: the 502 when the only replica is stopped. */
const faultAnswer = (fault: ReplicaFault) =>
  fault === 'equities-data-paused-only' ? ['502 upstream_unavailable'] : [];

/**
 * The answers other than 200 a fault allows on a machine however busy (the CI test): its own, and an
 * admission refused in time (503, nothing charged). `make chaos`, on a quiet machine, allows only its own.
 */
function allowedOutcome(fault: ReplicaFault, key: string): boolean {
  return key === '503 service_unavailable' || faultAnswer(fault).includes(key);
}

function unexpectedAnswers(
  r: ReplicaFaultResult,
  samples: Sample[],
  stoppedAt: number,
  log: string[],
): string[] {
  const lines = log.join('').split('\n');
  const unexpected = samples.filter((s) => s.outcome !== 200 && !allowedOutcome(r.fault, outcomeKey(s)));
  const shown = unexpected.slice(0, 10).map((s) => {
    const said = s.requestId === undefined ? [] : lines.filter((l) => l.includes(s.requestId!));
    const when = `begun ${((s.start - stoppedAt) / 1000).toFixed(2)} s after SIGSTOP, took ${(s.end - s.start).toFixed(0)} ms`;
    return `${outcomeKey(s)} (${s.requestId ?? 'no request id'}), ${when}; the gateway said: ${said.join(' | ') || 'nothing'}`;
  });
  if (unexpected.length > shown.length) shown.push(`and ${unexpected.length - shown.length} more`);
  return shown;
}

export function replicaViolations(r: ReplicaFaultResult): string[] {
  const v: string[] = [];
  const two = r.fault === 'equities-data-paused-1-of-2';
  if (r.charged === null) v.push('could not read the ledger projection');
  else if (r.charged !== r.seen) v.push(`200s seen ${r.seen}, units charged ${r.charged}`);
  if (r.chargedInLog !== null && r.charged !== null && r.chargedInLog !== r.charged)
    v.push(`projection ${r.charged} differs from the event log's ${r.chargedInLog}`);
  if (!r.settled) v.push('the ledger had not settled at the deadline');
  if (r.ejectedS === null) v.push('the gateway never showed the stopped address ejected');
  else if (r.sentWhileEjected === null) v.push('the stopped address was not ejected until SIGCONT');
  else if (r.sentWhileEjected > 0)
    v.push(`${r.sentWhileEjected} calls sent to the stopped address while ejected`);
  const allowed = faultAnswer(r.fault);
  const other = Object.entries(r.outcomes).filter(([k]) => !allowed.includes(k));
  if (other.length > 0)
    v.push(
      `answers other than ${['200', ...allowed].join(' or ')}: ${other.map(([k, n]) => `${k} ×${n}`).join(', ')}`,
    );
  if (two && r.firstMissS === null)
    v.push('no request waited out a deadline: was the replica stopped under load?');
  const limit = two ? REPLICA_LIMITS.afterFirstMissMs : REPLICA_LIMITS.openRefusalMs;
  if (r.after.count === 0)
    v.push(two ? 'no request begun after the first deadline miss' : 'no 502 once the breaker was open');
  else if (r.after.maxMs! > limit)
    v.push(
      `${two ? 'an answer begun after the first deadline miss' : 'a 502 begun once the breaker was open'} took ${r.after.maxMs!.toFixed(0)} ms (limit ${limit} ms)`,
    );
  if (r.recoveryS === null) v.push('no recovery after SIGCONT');
  else if (r.recoveryS > REPLICA_LIMITS.recoveryS)
    v.push(`only 200s again ${r.recoveryS.toFixed(2)} s after SIGCONT (limit ${REPLICA_LIMITS.recoveryS} s)`);
  for (const d of r.deaths)
    v.push(`${d.name} (pid ${d.pid ?? '?'}) exited unasked: code ${d.code}, signal ${d.signal}`);
  return v;
}

const s2 = (v: number | null) => (v === null ? '-' : v.toFixed(2));

/** The SIGSTOP rows of the chaos table. */
export function formatReplicaReport(results: ReplicaFaultResult[]): string {
  const head = [
    'SIGSTOP fault',
    'reqs',
    '200 seen',
    'charged',
    'miss s',
    'ejected s',
    'sent ej',
    'after n',
    'after max',
    'after p99',
    'recov s',
    'other outcomes',
  ];
  const rows = results.map((r) => [
    r.fault,
    String(r.requests),
    String(r.seen),
    chargedCell(r),
    s2(r.firstMissS),
    s2(r.ejectedS),
    r.sentWhileEjected === null ? '-' : String(r.sentWhileEjected),
    String(r.after.count),
    ms(r.after.maxMs),
    ms(r.after.p99Ms),
    s2(r.recoveryS),
    outcomesCell(r.outcomes),
  ]);
  return [
    ...tableLines(head, rows),
    '',
    'miss s / ejected s: from SIGSTOP to the first request that waited out a deadline / to the gateway showing the',
    `address ejected; sent ej: calls sent to it from then to SIGCONT (must be 0); after: requests begun after the first miss (1-of-2: every answer, limit ${REPLICA_LIMITS.afterFirstMissMs} ms)`,
    `or after the ejection (only: the 502s, limit ${REPLICA_LIMITS.openRefusalMs} ms), in ms; recov s: SIGCONT to only 200s (limit ${REPLICA_LIMITS.recoveryS} s).`,
  ].join('\n');
}
