// `make bench`: figures, not assertions. The platform as real processes on this machine, loaded with the
// default dataset, driven by autocannon from this process, beside bare fastify routes measured in the
// same run (before and after the metered scenarios): one answering a quote-sized document, one a
// price-page-sized one; and beside a peer, fastify with @fastify/rate-limit on a Redis of the bench's own
// (bench/peer-server.ts), answering the quote-sized document; and beside the floor, bare fastify that
// answers only once a JetStream acknowledgement of its charge came back and does nothing else
// (bench/floor-server.ts). Tokens are on the shipped `load-test` plan
// (no cap, no burst cap), on the shipped `business` plan for the `capped` scenario (burst cap 60 a
// minute, which its request counts keep under), or for the opt-in `burst` scenario on a plan whose burst
// cap no run reaches, so every answer should be a 200: any 429 or 5xx, or a run without a single 200,
// fails the run after the table. After each metered row, what the ledger shard's admission leases did
// over its priming, warm-up and run (issue 49): leases granted, returned and recalled a 1,000 requests,
// the share of admissions the shard decided itself, and units allotted against used.
// The steady reading is each process's CPU per request; req/s moves with the machine.
import { type ChildProcess, spawn } from 'node:child_process';
import type { EventEmitter } from 'node:events';
import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import autocannon from 'autocannon';
import pg from 'pg';
import { atProcessEnd } from '../test/process-end.ts';
import { DATABASE_URL, freePort, startStack } from '../test/stack.ts';
import { runBundled } from './bundled.ts';
import { burstCapError } from './burst-budget.ts';
import {
  type CpuGroup,
  contextSwitchesOf,
  cpuBetween,
  cpuOverIdle,
  listenerPid,
  pidsNamed,
  type Switches,
  snapshot,
  switchesPer,
  withChildren,
} from './cpu.ts';
import { loadDefaultDataset } from './default-dataset.ts';
import { envInt, envScenarios } from './env.ts';
import { type Floor, startFloor } from './floor.ts';
import {
  LEASE_HEAD,
  type LeaseTraffic,
  leaseCells,
  leaseCounters,
  leaseLine,
  leaseTraffic,
} from './lease-traffic.ts';
import { benchLedger } from './ledger.ts';
import { median } from './ledger-goals.ts';
import { benchNats } from './nats-as-deployed.ts';
import { type ComparedGateway, nodeVersion, startComparedGateway } from './node-compare.ts';
import {
  BENCH_SERVICE_NODE_ARGS,
  histogramBuckets,
  type LoopDelay,
  loopDelays,
  metricsPage,
  type OpsProbe,
  quantileBetween,
  seriesSum,
  waitForHttp,
} from './ops-metrics.ts';
import { createOpenPlan } from './plans.ts';
import { type BenchRedis, startRedis } from './redis.ts';
import { type Round, type RoundRun, readRounds, roundLines, slowedRuns } from './rounds.ts';

/** Requests per scenario: a fixed count (not a duration), so every response is seen and counted. */
const REQUESTS = envInt('BENCH_REQUESTS', 20_000);
/** Set to a folder to have every platform process write a V8 CPU profile there (node --cpu-prof). */
const PROFILE_DIR = process.env.BENCH_PROFILE_DIR;
/**
 * Requests before each measured run, not measured: the gateway's JIT reaches its steady state only after
 * several thousand requests (with 2,000 the first metered scenario ran about 15% below the later ones).
 */
const WARMUP = Math.min(envInt('BENCH_WARMUP', 10_000, 0), REQUESTS);
const CONNECTIONS = envInt('BENCH_CONNECTIONS', 50);
/**
 * Requests of the bare route, the peer, the floor and then of the metered quote before the first row, not
 * measured (0: none).
 * A gateway's cost a request kept falling long after `WARMUP`: in consecutive runs of 45,000 quotes on one
 * stack, 168, 130, then 99 µs a request, and a gateway restarted on a warm stack 130 then 98 to 100 (28
 * November 2026); the first bare run after the data load was also the slowest (55.5 µs against 29.0). A
 * long-running gateway is the one subscribers meet. Its warm-up's parts levelled only after 90,000 to
 * 120,000 requests (4 December 2026: 146.7, 115.7, 79.0, 62.0, 66.3 µs a 30,000), and after 60,000 the
 * first round read the dearest in every run.
 */
const PLATFORM_WARMUP = envInt('BENCH_PLATFORM_WARMUP', 200_000, 0);
/** The metered quote's platform warm-up is sent in parts of this many, each part's gateway CPU printed. */
const WARMUP_PART = 30_000;
/**
 * Seconds in which the warmed platform is asked nothing, its processes' CPU read before the first run:
 * their background, which the rows share the cores with (0: not measured).
 */
const IDLE_SECONDS = envInt('BENCH_IDLE_SECONDS', 10, 0);
const POOL_ACCOUNTS = envInt('BENCH_ACCOUNTS', 1_000);
/**
 * A run over a pool of tokens first sends each token once over this few connections, charged and
 * counted like the warm-up: a token's first request waits for the auth service to verify it (300 ms
 * deadline, a breaker after 5 misses), and a thousand new tokens at 50 connections missed that deadline
 * on a loaded machine (27 November 2026, load average 12 to 14: 62 to 2,901 503s a pool run, in the
 * warm-up and then in the run for the tokens never verified). The scenarios measure the steady state.
 */
const PRIME_CONNECTIONS = 4;
/**
 * The metered scenarios, by key; `BENCH_SCENARIOS=quote,capped` runs only those (the bare route and the
 * peer always run). `capped`: the quote over `BENCH_ACCOUNTS` accounts of the shipped `business` plan
 * (burst cap 60 a minute), one request per account in turn. `two-gateways`: the quote on one `load-test`
 * account of its own through the stack's gateway and a second one (`stack.startSecondGateway()`), the
 * connections alternating between them; an account seen on two gateways is not leased, the shard admits
 * it per request, so the row is what such an account costs. Both gateways' CPU is its front.
 * `linger`: the gateway started again with each `SETTLE_LINGER_MS` of `BENCH_LINGERS` (0, 2 and 8 ms),
 * the quote on the hot account each time: the charges a JetStream message, and the CPU of what records
 * them (quota ledger, nats-server and Postgres) over bare fastify's, at each batch size.
 * `returned`: the quote over a fresh pool of `business` accounts whose run starts once every lease of its
 * warm-up is back at the shard (the other rows' runs start with theirs), so that each account's first
 * request of the run is decided by its shard, which grants the lease with it: what an account back after
 * a pause longer than a lease (or once every half minute to a minute, `leaseLife`, however busy) sees. Its p99
 * and its shard waits against the capped row's are that cost.
 */
const SCENARIOS = [
  'quote',
  'search',
  'price',
  'accounts',
  'capped',
  'returned',
  'two-gateways',
  'linger',
  'compression',
] as const;
/**
 * Scenarios run only when named (`BENCH_SCENARIOS=burst`). `burst`: the quote over a few accounts of a
 * plan with a very large burst cap, in consecutive timed runs, so each account's burst window grows to
 * tens of thousands of admissions: the later runs should be as fast as the first (the window costs O(1)
 * per admission; kept as an array, its cost grew with it and the fourth run was half the first).
 * `node-compare`: the quote on one account through the stack's gateway (the Node the bench runs under)
 * and through a second gateway of the same source under `BENCH_COMPARE_NODE`, in alternating rounds.
 * `no-leases`: after the other scenarios, the quota ledger started again with `LEASE_MS=0` (no leases: the
 * shard decides every admission), then the quote on the hot account and over a fresh pool of `business`
 * accounts, each as before. `cold`: a fresh pool of `business` accounts whose tokens the gateway has
 * verified (the priming), the quota ledger then started again, so that every account's first request of
 * the run is decided after its counts are loaded from the projections: what callers back after a quiet
 * spell (idle accounts are forgotten after 10 minutes) or a shard's restart see. Its p50 and p99 against
 * the capped row's are the cost of those loads. `steady`: the quote over a fresh pool of
 * `BENCH_STEADY_ACCOUNTS` `business` accounts, each called once every `BENCH_STEADY_PERIOD_MS` (within
 * its burst cap, as a subscriber's program calls steadily), the run held to that rate for
 * `BENCH_STEADY_SECONDS`, longer than a lease lasts (`leaseLife`): how many of its admissions wait for
 * their shard, and what its lease traffic costs a request.
 */
const OPT_IN = ['burst', 'node-compare', 'no-leases', 'cold', 'steady'] as const;
const scenarios = envScenarios('BENCH_SCENARIOS', SCENARIOS, OPT_IN);
const runs = (key: (typeof SCENARIOS)[number] | (typeof OPT_IN)[number]) => scenarios.includes(key);
/** The burst scenario: how many accounts, how many consecutive runs of how many seconds, and the cap. */
const BURST_ACCOUNTS = envInt('BENCH_BURST_ACCOUNTS', 8);
const BURST_RUNS = envInt('BENCH_BURST_RUNS', 4);
const BURST_SECONDS = envInt('BENCH_BURST_SECONDS', 10);
/** The steady scenario: how many accounts, how often each is called, and for how long. */
const STEADY_ACCOUNTS = envInt('BENCH_STEADY_ACCOUNTS', 2_000);
const STEADY_PERIOD_MS = envInt('BENCH_STEADY_PERIOD_MS', 1_500);
const STEADY_SECONDS = envInt('BENCH_STEADY_SECONDS', 75);
/** The capped scenario's plan (services/auth/migrations: 50,000 a day, 1,000,000 a month) and its burst cap. */
const CAPPED_PLAN = 'business';
const CAPPED_BURST_PER_MINUTE = 60;
/** The node-compare scenario: rounds of each gateway (A B A B for 2), and the other Node binary. */
const COMPARE_ROUNDS = envInt('BENCH_COMPARE_ROUNDS', 2);
const COMPARE_NODE = process.env.BENCH_COMPARE_NODE;
/** The linger scenario's `SETTLE_LINGER_MS` values, comma-separated. */
const LINGERS = (process.env.BENCH_LINGERS ?? '0,2,8')
  .split(',')
  .map((v) => Number(v.trim()))
  .filter((v) => Number.isInteger(v) && v >= 0 && v <= 50);
/** The CPU group of the two-gateways scenario's second gateway. */
const SECOND_GATEWAY = 'gateway-2';
export const QUOTE = '/v1/stocks/ARAVALIHOU/quote';
/**
 * The one-account and `business` quote rows (and bare fastify beside them) are measured in this many
 * alternated rounds, each with a pool of its own for `capped`; issue 49's goals are read from the median
 * round, each row against its own round's bare run (bench/rounds.ts).
 */
const ROUNDS = envInt('BENCH_ROUNDS', 3);
/** How long bare fastify runs held to a metered row's req/s (`pacedAs`). */
const PACED_SECONDS = envInt('BENCH_PACED_SECONDS', 5);
/** 0: skip the quota ledger's own bench at the end of the run (bench/ledger.ts). */
const LEDGER_BENCH = envInt('BENCH_LEDGER', 1, 0);
/** The quota ledger's process group, as the stack names it. */
const LEDGER = 'quota-ledger';
/**
 * The goals printed beside the figures (never asserted): issue 49's gateway CPU, req/s and p99 at 50
 * connections; issue 50's CPU of all the processes serving a request.
 */
const GOALS = { frontOverBare: 2.0, allOverBare: 3, rpsOverBare: 0.45, p99Ms: 10, connections: 50 };
/**
 * The compression scenario: the 2,000-day price page asked for with each Accept-Encoding, fewer requests
 * than the others (each answer is a few hundred KB uncompressed).
 */
const COMPRESSION_REQUESTS = envInt('BENCH_COMPRESSION_REQUESTS', 3_000);
const COMPRESSION_PAGE = '/v1/stocks/ARAVALIHOU/price?days=2000';
const ENCODINGS = ['identity', 'gzip', 'br'] as const;

interface Figure {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  ok: number;
  /**
   * Answers that may have been sent but not read: a timed run ends by closing its connections with a
   * request in flight on each (those 200s are charged, never seen). 0 for a run of a fixed count.
   */
  unread: number;
  failed: Record<string, number>;
  cpuPer1k: Map<string, number>;
  /** Event-loop delay of the probed processes over the measured run, and their GC pauses in it (`gcMs`). */
  loop: Map<string, LoopDelay>;
  /** The measured run's wall time, s. */
  elapsedS: number;
  /** Mean response size. */
  kb: number;
  /** The bare route this figure is (`bare`) or is compared with: quote-sized or price-page-sized. */
  shape: Shape;
  bare: boolean;
  /**
   * The CPU groups of the processes that answered the HTTP requests (the gateway, or both gateways of
   * `two-gateways`; bare fastify; the peer).
   */
  front: string[];
  /** The CPU groups that served the run, whose sum is its total (the rest is background). */
  serving: string[];
  /** The most requests set up with one token (warm-up and run); 0 without tokens. */
  maxPerToken: number;
  /** The 200s of the measured run alone. */
  runOk: number;
  /**
   * A bare run held to another row's req/s (`LoadOptions.pacedAs`): that row's name. Not a reference
   * (bare fastify's reference runs at the rate it reaches); read only beside the row it is paced as.
   */
  pacedAs?: string;
  /** What the ledger shard's leases did over the measured run, when asked for (`LoadOptions.leases`). */
  leases?: LeaseTraffic;
  /** The gateway's settlement messages and the charges in them over the measured run (`LoadOptions.settlements`). */
  settlements?: { messages: number; charges: number; compact: number; seconds: number };
  /** The gateway's waits for its shards' admissions over the measured run (`gateway_shard_admission_seconds`), ms. */
  shardWaits?: ShardWaits;
  /**
   * Context switches a request over the measured run (`contextSwitches`): the front processes', and the
   * quota ledger's where it serves the row (its waits are its wake-ups: a message it is woken for).
   */
  switches: { front: Switches; ledger?: Switches };
}

interface ShardWaits {
  count: number;
  p50: number;
  p90: number;
  p99: number;
}

/** `large`: a response no bare route is sized like (no same-size ratio). */
type Shape = 'quote' | 'page' | 'large';

interface LoadOptions {
  groups: CpuGroup[];
  /** Processes whose event-loop delay is read around the run. */
  probes?: OpsProbe[];
  /** Bearer tokens, one per request round robin; none for the bare routes. */
  tokens?: string[];
  shape?: Shape;
  bare?: boolean;
  /** A timed run of this many seconds instead of `BENCH_REQUESTS` requests. */
  seconds?: number;
  /** Requests before the run, not measured; none when 0. */
  warmup?: number;
  /** This many requests instead of `BENCH_REQUESTS`. */
  requests?: number;
  /** Sent with every request (an Accept-Encoding). */
  headers?: Record<string, string>;
  /** The group (or groups) of the processes answering HTTP; `gateway` unless told. */
  front?: string | string[];
  /** The groups that serve the run; every group but `autocannon` unless told. */
  serving?: string[];
  /**
   * Resolves once the ledger has recorded this many of the load's 200s (priming and warm-up, then the
   * run too), so that the CPU window starts after the recording of what came before it and ends after
   * its own (see `recorded` in the bench's main). None for runs that charge nothing.
   */
  settle?: (ok: number) => Promise<void>;
  /**
   * A ledger shard whose lease and admission counters are read before the priming (after `beforeRun`
   * when there is one) and after the run, each time once it has no lease out (bench/lease-traffic.ts);
   * outside the event-loop delay window.
   */
  leases?: OpsProbe;
  /** A gateway whose settlement messages (`gateway_settlement_batch_events`) are counted over the run. */
  settlements?: OpsProbe;
  /** The measured run held to this row's req/s (autocannon's `overallRate`); its warm-up is not held. */
  pacedAs?: Figure;
  /** The measured run held to this many requests a second (`overallRate`); its warm-up is not held. */
  rate?: number;
  /** Done after the priming and the warm-up, before anything of the run is read (`cold`: the ledger started again). */
  beforeRun?: () => Promise<void>;
}

/**
 * One autocannon load of `url`; with several URLs, autocannon gives connection i the URL i modulo their
 * number (its `url` option), so two URLs and an even number of connections split the load in halves.
 */
export async function load(name: string, url: string | string[], opts: LoadOptions): Promise<Figure> {
  const { groups, probes = [], tokens = [], shape = 'quote', bare = false, seconds, headers = {} } = opts;
  const amount = opts.requests ?? REQUESTS;
  const warmup = Math.min(opts.warmup ?? WARMUP, amount);
  const { serving = groups.map((g) => g.name).filter((n) => n !== 'autocannon') } = opts;
  const front = typeof opts.front === 'string' ? [opts.front] : (opts.front ?? ['gateway']);
  let next = 0;
  // Requests set up per token, warm-up included: the capped scenario's accounts must stay under their burst cap.
  const perToken = new Array<number>(tokens.length).fill(0);
  let lastResponse = 0;
  const run = (amount: number | { seconds: number }, connections = CONNECTIONS, overallRate = 0) => {
    const instance = autocannon({
      // autocannon refuses an `overallRate` of 0 (its default, unpaced, is the option absent).
      ...(overallRate > 0 ? { overallRate } : {}),
      // autocannon takes an array of URLs too (its README's `url`); its types say a string only.
      url: url as string,
      headers,
      connections,
      // autocannon reads an amount of 0 as "run for its default 10 s": a timed run says so.
      ...(typeof amount === 'number' ? { amount } : { duration: amount.seconds }),
      // One token per request, round robin over the pool (one token: the same hot account every time).
      requests: [
        {
          setupRequest: (req) => {
            if (tokens.length === 0) return req;
            const i = next++ % tokens.length;
            perToken[i]!++;
            const token = tokens[i];
            return { ...req, headers: { ...req.headers, authorization: `Bearer ${token}` } };
          },
        },
      ],
    });
    // Without a callback autocannon returns its instance, which is both a promise and an emitter.
    (instance as unknown as EventEmitter).on('response', () => {
      lastResponse = performance.now();
    });
    return instance;
  };
  // Read before the priming and after the run, each once no lease is out: the run starts holding the
  // leases its warm-up took, as a steadily busy account does. Read between the warm-up and the run, each
  // account's first request of the run waited for its lease to go back and then for its shard (5% of
  // the pool's run, and its p99; 6 December 2026). A row that does something between them (`beforeRun`:
  // a ledger started again, leases waited back) is read around its run alone.
  const leaseRow = opts.leases !== undefined && opts.beforeRun === undefined;
  const leasesOfRow = leaseRow ? await leaseCounters(opts.leases!) : undefined;
  // Warm-up, not measured: a cold JIT and cold connections made the first bare run a third of the next.
  // Each token of a pool once, a few at a time, before the warm-up (see PRIME_CONNECTIONS).
  const primed = tokens.length > 1 ? await run(tokens.length, PRIME_CONNECTIONS) : undefined;
  const warm = warmup > 0 ? await run(warmup) : undefined;
  const okBefore = (primed?.['2xx'] ?? 0) + (warm?.['2xx'] ?? 0);
  await opts.settle?.(okBefore);
  await opts.beforeRun?.();
  // Before the delay window starts: each scrape of a process's /metrics restarts it.
  const leasesBefore = leasesOfRow ?? (opts.leases ? await leaseCounters(opts.leases) : undefined);
  const batchesBefore = opts.settlements ? await batchEvents(opts.settlements) : undefined;
  const loopBefore = await loopDelays(probes);
  const pidsOf = (names: readonly string[]) =>
    groups.filter((g) => names.includes(g.name)).flatMap((g) => g.pids());
  const switchesNow = () => ({
    front: contextSwitchesOf(pidsOf(front)),
    ledger: contextSwitchesOf(pidsOf([LEDGER])),
  });
  const switchesBefore = switchesNow();
  const before = snapshot(groups);
  const started = performance.now();
  const result = await run(
    seconds === undefined ? amount : { seconds },
    CONNECTIONS,
    opts.rate ?? (opts.pacedAs ? Math.round(opts.pacedAs.rps) : 0),
  );
  const elapsed = (lastResponse - started) / 1000;
  await opts.settle?.(okBefore + result['2xx']);
  const after = snapshot(groups);
  const switchesAfter = switchesNow();
  const loopAfter = await loopDelays(probes);
  const loop = new Map(
    [...loopAfter].map(([name, d]) => [
      name,
      { ...d, gcMs: d.gcMs - (loopBefore.get(name)?.gcMs ?? Number.NaN) },
    ]),
  );
  const requests = result.requests.total;
  const batchesAfter = opts.settlements ? await batchEvents(opts.settlements) : undefined;
  const settlements =
    batchesBefore && batchesAfter
      ? {
          messages: batchesAfter.count - batchesBefore.count,
          charges: batchesAfter.sum - batchesBefore.sum,
          compact: batchesAfter.compact - batchesBefore.compact,
          seconds: elapsed,
        }
      : undefined;
  const waited = (q: number) => quantileBetween(batchesBefore!.waits, batchesAfter!.waits, q) * 1000;
  const shardWaits: ShardWaits | undefined =
    batchesBefore && batchesAfter
      ? {
          count:
            (batchesAfter.waits.get(Number.POSITIVE_INFINITY) ?? 0) -
            (batchesBefore.waits.get(Number.POSITIVE_INFINITY) ?? 0),
          p50: waited(0.5),
          p90: waited(0.9),
          p99: waited(0.99),
        }
      : undefined;
  // The loads the lease readings bracket.
  const bracketed = leaseRow ? [primed, warm, result] : [result];
  const leases =
    opts.leases && leasesBefore
      ? leaseTraffic(
          leasesBefore.counters,
          await leaseCounters(opts.leases),
          leaseRow ? 'priming, warm-up and run' : 'run',
          bracketed.reduce((n, r) => n + (r?.requests.total ?? 0), 0),
          bracketed.reduce((n, r) => n + (r?.['2xx'] ?? 0), 0),
        )
      : undefined;
  // Failures and 200s of every run: the priming's and the warm-up's are charged too.
  const failed: Record<string, number> = {};
  const add = (key: string, n: number) => {
    if (n > 0) failed[key] = (failed[key] ?? 0) + n;
  };
  for (const r of [primed, warm, result]) {
    if (!r) continue;
    for (const [code, { count }] of Object.entries(r.statusCodeStats ?? {}))
      if (code !== '200') add(code, count ?? 0);
    add('connection_errors', r.errors);
    add('timeouts', r.timeouts);
  }
  return {
    name,
    // From the start to the last response, timed here: autocannon notices the end of an `amount` run on
    // its one-second tick, so its duration is whole seconds (every figure came out as 20,000 / n.01).
    rps: requests / elapsed,
    p50: result.latency.p50,
    p99: result.latency.p99,
    ok: okBefore + result['2xx'],
    unread: seconds === undefined ? 0 : CONNECTIONS,
    failed,
    cpuPer1k: new Map(
      groups.map((g) => [g.name, (cpuBetween(before.get(g.name)!, after.get(g.name)!) / requests) * 1_000]),
    ),
    loop,
    elapsedS: elapsed,
    kb: result.throughput.total / requests / 1024,
    shape,
    bare,
    front,
    serving,
    maxPerToken: perToken.reduce((a, b) => Math.max(a, b), 0),
    runOk: result['2xx'],
    switches: {
      front: switchesPer(switchesBefore.front, switchesAfter.front, requests),
      ...(serving.includes(LEDGER)
        ? { ledger: switchesPer(switchesBefore.ledger, switchesAfter.ledger, requests) }
        : {}),
    },
    ...(leases ? { leases } : {}),
    ...(settlements ? { settlements } : {}),
    ...(shardWaits ? { shardWaits } : {}),
    ...(opts.pacedAs ? { pacedAs: opts.pacedAs.name } : {}),
  };
}

/** CPU µs a request of one group in a run (CPU seconds per 1,000 requests are ms a request). */
const cpuUs = (f: Figure, group: string) => (f.cpuPer1k.get(group) ?? Number.NaN) * 1_000;
/** CPU µs a request of the processes that answered a run's HTTP requests. */
const frontUs = (f: Figure) => f.front.reduce((sum, g) => sum + cpuUs(f, g), 0);
/** What a round reads of a run (bench/rounds.ts). */
const roundRun = (f: Figure): RoundRun => ({ frontUs: frontUs(f), rps: f.rps, p99: f.p99 });
/** CPU µs a request of the processes that served a run. */
const totalUs = (f: Figure) => f.serving.reduce((sum, g) => sum + cpuUs(f, g), 0);

/** The bare runs of one shape at full rate (none held to a row's rate). */
const fullRateBare = (figures: Figure[], shape: Shape) =>
  figures.filter((f) => f.bare && f.shape === shape && f.pacedAs === undefined);

/** The bare runs of one shape: the median req/s, p99 and CPU µs a request of the bare process. */
function bareReference(
  figures: Figure[],
  shape: Shape,
): { rps: number; p99: number; us: number; runs: number } {
  const runs = fullRateBare(figures, shape);
  return {
    rps: median(runs.map((f) => f.rps)),
    p99: median(runs.map((f) => f.p99)),
    us: median(runs.map((f) => frontUs(f))),
    runs: runs.length,
  };
}

/** How the table names the process groups: the columns of one process, and the services summed as `others`. */
interface Columns {
  ledger: string;
  nats: string;
  postgres: string;
  redis: string;
  /** The platform's services other than the gateway and the ledger (auth and the data services). */
  others: string[];
}

const fmtUs = (n: number) => (Number.isNaN(n) ? '-' : n >= 1_000 ? n.toFixed(0) : n.toFixed(1));
const fmtRatio = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : '-');

function print(figures: Figure[], groups: CpuGroup[], columns: Columns) {
  // Every table's first column fits the longest row name (the `steady` row's is longer than most).
  const nameWidth = Math.max(44, ...figures.map((f) => f.name.length + 1));
  const rowName = (name: string) => name.padEnd(nameWidth);
  const bare = bareReference(figures, 'quote');
  const page = bareReference(figures, 'page');
  const ref = (f: Figure) => (f.shape === 'quote' ? bare : f.shape === 'page' ? page : undefined);
  console.log(
    `\n${CONNECTIONS} connections, ${REQUESTS} requests a run after ${WARMUP} not measured (and ${PLATFORM_WARMUP} each of the bare route, the peer, the floor and the metered quote before the first run), autocannon on loopback; ` +
      `CPU from /proc, in µs a request (${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')} load average at the end, ` +
      `node ${process.version})`,
  );
  console.log(
    `bare reference, median of its ${bare.runs} runs: ${bare.rps.toFixed(0)} req/s, ${fmtUs(bare.us)} µs a request (quote-shaped)` +
      (page.runs > 0 ? `; ${page.rps.toFixed(0)} req/s, ${fmtUs(page.us)} µs (price-page-shaped)` : ''),
  );
  console.log(
    "front: the process answering HTTP (the gateway, both gateways in the two-gateways row; bare fastify; the peer's fastify; the floor's). " +
      `others: ${columns.others.join(', ')}. total: the processes serving the row ` +
      '(bare: its fastify; peer: its fastify and Redis; floor: its fastify and NATS; metered: the platform, NATS, Postgres).\n' +
      '(…): a process not serving the row, its background (Postgres serves other users of the cluster too), not in ' +
      "the total. ÷bare: front and total over the bare process's µs, req/s over bare req/s (same shape; " +
      'req/s÷q always over the quote-shaped bare route). autocannon: the load generator, on the same cores.\n',
  );
  const head = [
    rowName('scenario'),
    'req/s'.padStart(7),
    'p50'.padStart(4),
    'p99'.padStart(4),
    'KB'.padStart(5),
    ' |',
    'front'.padStart(7),
    'ledger'.padStart(8),
    'nats'.padStart(7),
    'postgres'.padStart(9),
    'redis'.padStart(7),
    'others'.padStart(8),
    'total'.padStart(7),
    ' | ÷bare:',
    'front'.padStart(6),
    'total'.padStart(6),
    'req/s'.padStart(6),
    'req/s÷q'.padStart(8),
    ' |',
    'autocannon'.padStart(11),
  ];
  console.log(head.join(' '));
  for (const f of figures) {
    const cell = (groupNames: string[], width: number) => {
      const value = groupNames.reduce((sum, g) => sum + cpuUs(f, g), 0);
      const served = groupNames.every((g) => f.serving.includes(g));
      return (served ? fmtUs(value) : `(${fmtUs(value)})`).padStart(width);
    };
    const r = ref(f);
    const row = [
      rowName(f.name),
      f.rps.toFixed(0).padStart(7),
      String(f.p50).padStart(4),
      String(f.p99).padStart(4),
      f.kb.toFixed(1).padStart(5),
      ' |',
      fmtUs(frontUs(f)).padStart(7),
      cell([columns.ledger], 8),
      cell([columns.nats], 7),
      cell([columns.postgres], 9),
      cell([columns.redis], 7),
      cell(columns.others, 8),
      fmtUs(totalUs(f)).padStart(7),
      ' |      ',
      fmtRatio(r ? frontUs(f) / r.us : Number.NaN).padStart(6),
      fmtRatio(r ? totalUs(f) / r.us : Number.NaN).padStart(6),
      (r ? (f.rps / r.rps).toFixed(3) : '-').padStart(6),
      (f.rps / bare.rps).toFixed(3).padStart(8),
      ' |',
      fmtUs(cpuUs(f, 'autocannon')).padStart(11),
    ];
    console.log(row.join(' '));
  }

  // Every process on its own, as the columns above sum some of them.
  const width = (g: CpuGroup) => Math.max(8, g.name.length) + 2;
  console.log(
    `\nCPU µs a request of each process:\n${' '.repeat(nameWidth)}${groups.map((g) => g.name.padStart(width(g))).join('')}`,
  );
  for (const f of figures)
    console.log(
      `${rowName(f.name)}${groups.map((g) => fmtUs(cpuUs(f, g.name)).padStart(width(g))).join('')}`,
    );
  // Each figure of a quote-shaped row over bare fastify's same figure (the issue's "each figure's ratio to
  // bare"): every process's CPU over the bare process's, the p99 over bare's median p99.
  const quoteRows = figures.filter((f) => !f.bare && f.shape === 'quote');
  if (quoteRows.length > 0 && bare.runs > 0) {
    const named = [
      ['front', (f: Figure) => frontUs(f)],
      ['ledger', (f: Figure) => cpuUs(f, columns.ledger)],
      ['nats', (f: Figure) => cpuUs(f, columns.nats)],
      ['postgres', (f: Figure) => cpuUs(f, columns.postgres)],
      ['redis', (f: Figure) => cpuUs(f, columns.redis)],
      ['total', totalUs],
    ] as const;
    console.log(
      `\neach figure over bare fastify's (quote-shaped: ${fmtUs(bare.us)} µs a request, ${bare.rps.toFixed(0)} req/s, p99 ${bare.p99} ms), ` +
        'a process not serving the row left out:\n' +
        `${' '.repeat(nameWidth)}${named.map(([n]) => n.padStart(9)).join('')}${'req/s'.padStart(9)}${'p99'.padStart(9)}`,
    );
    for (const f of quoteRows) {
      const cpu = named.map(([n, us]) =>
        (n === 'front' || n === 'total' || f.serving.includes(columns[n])
          ? fmtRatio(us(f) / bare.us)
          : '-'
        ).padStart(9),
      );
      console.log(
        `${rowName(f.name)}${cpu.join('')}${(f.rps / bare.rps).toFixed(3).padStart(9)}${fmtRatio(f.p99 / bare.p99).padStart(9)}`,
      );
    }
  }

  // The same CPU as cores in use over each run. Where the processes sum to nearly all the machine's
  // cores the run is CPU-bound: its µs a request are that CPU shared out over its req/s, so a process
  // whose CPU a second stays the same shows fewer µs a request in a faster run.
  console.log(
    `\nCPU in use over each run, in cores (of ${availableParallelism()}):\n${' '.repeat(nameWidth)}${groups.map((g) => g.name.padStart(width(g))).join('')}${'all'.padStart(8)}`,
  );
  for (const f of figures) {
    const cores = groups.map((g) => (cpuUs(f, g.name) * f.rps) / 1e6);
    console.log(
      `${rowName(f.name)}${groups.map((g, i) => cores[i]!.toFixed(2).padStart(width(g))).join('')}${cores
        .reduce((a, b) => a + b, 0)
        .toFixed(2)
        .padStart(8)}`,
    );
  }

  // The issues' goals beside the quote-shaped runs' figures: printed, never asserted.
  if (quoteRows.length > 0 && bare.runs > 0) {
    const mark = (ok: boolean) => (ok ? 'met' : 'not met');
    console.log(
      `\ngoals, against the quote-shaped bare route (printed, not asserted): issue 49's front (gateway) CPU ≤ ${GOALS.frontOverBare}× bare, ` +
        `req/s ≥ ${GOALS.rpsOverBare} of bare, p99 ≤ ${GOALS.p99Ms} ms at ${GOALS.connections} connections` +
        (CONNECTIONS === GOALS.connections ? '' : ` (this run: ${CONNECTIONS} connections)`) +
        `; issue 50's all processes ≤ ${GOALS.allOverBare}×`,
    );
    for (const f of quoteRows) {
      const front = frontUs(f) / bare.us;
      const all = totalUs(f) / bare.us;
      const rps = f.rps / bare.rps;
      console.log(
        `  ${rowName(f.name)} front ${front.toFixed(2)}× (${mark(front <= GOALS.frontOverBare)}), ` +
          `req/s ${rps.toFixed(3)} (${mark(rps >= GOALS.rpsOverBare)}), p99 ${f.p99} ms (${mark(f.p99 <= GOALS.p99Ms)}); ` +
          `all ${all.toFixed(2)}× (issue 50: ${mark(all <= GOALS.allOverBare)})`,
      );
    }
    // What a gateway spends beyond the durable charge its 200 waits for: the part of its CPU that is
    // its own work (token, admission, document, envelope, headers, hooks), against what the goal leaves it.
    const floor = quoteRows.find((f) => f.front.includes('floor'));
    const gateways = quoteRows.filter((f) => f.front.includes('gateway'));
    if (floor && gateways.length > 0) {
      const floorOver = frontUs(floor) / bare.us;
      console.log(
        `\nthe floor's front ${floorOver.toFixed(2)}× bare: issue 49's front goal leaves a gateway's own work over it ` +
          `${(GOALS.frontOverBare - floorOver).toFixed(2)}× bare's CPU a request; spent over it:`,
      );
      for (const f of gateways)
        console.log(`  ${rowName(f.name)} ${((frontUs(f) - frontUs(floor)) / bare.us).toFixed(2)}× bare`);
    }
    // A process's CPU a request falls as its rate rises (more requests share each wake-up of the loop):
    // bare fastify read at the rate it reaches is cheaper a request than at the rate the platform allows.
    const paced = figures.filter((f) => f.pacedAs !== undefined);
    if (paced.length > 0) {
      console.log(
        "\nthe same at the same rate: bare fastify held to a metered row's req/s (autocannon overallRate), " +
          "the row's front over it (beside the goal's, over bare at its own rate):",
      );
      for (const p of paced) {
        const f = quoteRows.find((r) => r.name === p.pacedAs);
        if (!f) continue;
        console.log(
          `  ${rowName(f.name)} bare at ${p.rps.toFixed(0)} req/s (asked ${f.rps.toFixed(0)}): ${fmtUs(frontUs(p))} µs a request; ` +
            `front ${(frontUs(f) / frontUs(p)).toFixed(2)}× it (${(frontUs(f) / bare.us).toFixed(2)}× bare at ${bare.rps.toFixed(0)} req/s)`,
        );
      }
    }
  }

  // What the ledger shard's admission leases did over each metered run (issue 49).
  const leased = figures.filter((f) => f.leases);
  if (leased.length > 0) {
    console.log(
      "\nthe ledger shard's leases over each metered row's priming, warm-up and run (its /metrics before the priming " +
        'and after the run, each read once no lease was out; over the run alone for a row that does something before it: ' +
        'cold, returned): leases granted, extended, returned and recalled a 1,000 requests; shard-decided: ' +
        'ledger_admissions_total{decision="admitted"} over their 200s (the rest admitted by a gateway under a ' +
        'lease); units: admissions the grants and extensions allotted, and those their holders used (and, of them, reported while the lease was out)\n' +
        `${' '.repeat(nameWidth)}${LEASE_HEAD}`,
    );
    for (const f of leased) console.log(`${rowName(f.name)}${leaseCells(f.leases!)}`);
  }

  // CPU a request counts what a process ran, not what losing its core cost it: each preemption is a
  // request's turn put off and its caches refilled after another process ran on the same core.
  console.log(
    "\ncontext switches a 1,000 requests over each run, every thread of the front process and of the quota ledger's: waits (voluntary: its loop went idle, then was woken) / preemptions (involuntary: its core given to another process)",
  );
  console.log(`${' '.repeat(nameWidth)}${'front'.padStart(14)}${'quota-ledger'.padStart(16)}`);
  const perThousand = (s: Switches | undefined) =>
    s ? `${(s.voluntary * 1000).toFixed(0)} / ${(s.involuntary * 1000).toFixed(0)}` : '-';
  for (const f of figures)
    console.log(
      `${rowName(f.name)}${perThousand(f.switches.front).padStart(14)}${perThousand(f.switches.ledger).padStart(16)}`,
    );

  const probed = [...new Set(figures.flatMap((f) => [...f.loop.keys()]))];
  if (probed.length === 0) return;
  // A request waits for every loop it crosses: a process's delay tail shows up in the p99 above.
  // And the share of the run its garbage collector paused it: a pause is a delay every request then waits out.
  console.log(
    `\nevent-loop delay over each run, p99 / max ms, and GC pauses, % of the run:${probed.map((n) => n.padStart(26)).join('')}`,
  );
  for (const f of figures) {
    if (f.loop.size === 0) continue;
    const cell = (n: string) => {
      const d = f.loop.get(n);
      const gc = d ? (100 * d.gcMs) / (f.elapsedS * 1000) : Number.NaN;
      return (d ? `${d.p99Ms.toFixed(1)} / ${d.maxMs.toFixed(1)}, ${gc.toFixed(1)}%` : '-').padStart(26);
    };
    console.log(`${rowName(f.name)}${probed.map(cell).join('')}`);
  }
}

/** The burst scenario's runs in one line: req/s and p99 of each, and the last run's req/s over the first's. */
function burstLine(timed: Figure[]): string {
  const first = timed[0]!;
  const last = timed.at(-1)!;
  const ratio = last.rps / first.rps;
  const each = timed.map((f) => `${f.rps.toFixed(0)} req/s (p99 ${f.p99} ms)`).join(', ');
  return (
    `burst window, ${timed.length} consecutive runs of ${BURST_SECONDS} s on ${BURST_ACCOUNTS} accounts: ${each}; ` +
    `last/first ${ratio.toFixed(3)} (${ratio >= 0.9 ? 'the last run no more than 10% below the first' : 'the last run MORE than 10% below the first'})`
  );
}

/** The compression runs in a few lines: bytes on the wire and the gateway's CPU a request, by encoding. */
function compressionLines(measured: Figure[]): string {
  const plain = measured[0]!;
  // CPU seconds per 1,000 requests are CPU milliseconds per request.
  const cpuMs = (f: Figure) => f.cpuPer1k.get('gateway')!;
  const lines = measured.map((f, i) => {
    const fewer = `, ${((1 - f.kb / plain.kb) * 100).toFixed(0)}% fewer bytes`;
    const extra = cpuMs(f) - cpuMs(plain);
    const cost = ` (${extra >= 0 ? '+' : ''}${extra.toFixed(2)} ms to compress)`;
    return (
      `  ${ENCODINGS[i]!.padEnd(9)} ${f.kb.toFixed(1).padStart(6)} KB a response on the wire${i > 0 ? fewer : ''}; ` +
      `gateway CPU ${cpuMs(f).toFixed(2)} ms a request${i > 0 ? cost : ''}; ${f.rps.toFixed(0)} req/s, p99 ${f.p99} ms`
    );
  });
  return [
    `compression, ${COMPRESSION_PAGE} (${COMPRESSION_REQUESTS} requests for each Accept-Encoding):`,
    ...lines,
  ].join('\n');
}

/** Units the stack's ledger has charged, once its projections stop moving. */
export async function chargedUnits(ledgerSchema: string, expected: number): Promise<number> {
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  try {
    let last = -1;
    for (let i = 0; i < 120; i++) {
      const { rows } = await client.query<{ n: string | null }>(
        `SELECT sum(charged) AS n FROM "${ledgerSchema}".usage_daily`,
      );
      const n = Number(rows[0]?.n ?? 0);
      if (n === expected || (n === last && i > 10)) return n;
      last = n;
      await new Promise((r) => setTimeout(r, 500));
    }
    return last;
  } finally {
    await client.end();
  }
}

/** One run of the linger scenario: its `SETTLE_LINGER_MS` and the charges a message it made. */
interface Lingered {
  ms: number;
  figure: Figure;
  perMessage: number;
}

/**
 * The gateway's settlement messages so far, the charges in them (`gateway_settlement_batch_events`) and
 * how many were compact batches (`gateway_settlement_messages_total`); and its waits for its shards'
 * admissions (`gateway_shard_admission_seconds`).
 */
async function batchEvents(
  gateway: OpsProbe,
): Promise<{ sum: number; count: number; compact: number; waits: Map<number, number> }> {
  const text = await metricsPage(gateway);
  return {
    sum: seriesSum(text, 'gateway_settlement_batch_events_sum'),
    count: seriesSum(text, 'gateway_settlement_batch_events_count'),
    compact: seriesSum(text, 'gateway_settlement_messages_total', { form: 'compact' }),
    waits: histogramBuckets(text, 'gateway_shard_admission_seconds'),
  };
}

/** The run's admissions its shard decided, as the gateway waited for them. */
function shardWaitLine(w: ShardWaits): string {
  if (w.count === 0) return 'no admission waited for its shard';
  const ms = (v: number) => (Number.isNaN(v) ? '-' : v.toFixed(1));
  return `${w.count} admissions waited for their shard: p50 ${ms(w.p50)}, p90 ${ms(w.p90)}, p99 ${ms(w.p99)} ms`;
}

/**
 * How the run's charges travelled: charges a JetStream message, messages a second, and nats-server's
 * CPU a message (its CPU a request times the requests a message), which a batch's size divides.
 */
function settlementLine(
  t: { messages: number; charges: number; compact: number; seconds: number },
  natsUs: number,
  ok: number,
): string {
  if (t.messages === 0) return 'no settlement message';
  const perMessage = t.charges / t.messages;
  return (
    `${perMessage.toFixed(1)} charges a settlement message (${((100 * t.compact) / t.messages).toFixed(0)}% compact), ` +
    `${(t.messages / t.seconds).toFixed(0)} messages a second; ` +
    `nats-server ${((natsUs * ok) / t.messages).toFixed(0)} µs a message`
  );
}

/**
 * The linger runs in one table: charges a message, and the CPU a request of what records the charges
 * (quota ledger, nats-server, Postgres) beside bare fastify's (issue 50's goal: at most bare's).
 */
function lingerLines(runs: Lingered[], bareUs: number): string {
  const lines = [
    `linger: SETTLE_LINGER_MS, charges a JetStream message (run and warm-up), req/s, p99 ms, CPU µs a request of the gateway and of ledger + NATS + Postgres, that over bare fastify's ${fmtUs(bareUs)} µs (goal ≤ 1)`,
  ];
  for (const { ms, figure: f, perMessage } of runs) {
    const back = cpuUs(f, 'quota-ledger') + cpuUs(f, 'nats') + cpuUs(f, 'postgres');
    lines.push(
      `  ${String(ms).padStart(2)} ms: ${perMessage.toFixed(1).padStart(6)} charges a message, ${f.rps.toFixed(0).padStart(6)} req/s, p99 ${f.p99}, gateway ${fmtUs(frontUs(f))}, ledger + NATS + Postgres ${fmtUs(back)} (${fmtRatio(back / bareUs)} × bare)`,
    );
  }
  return lines.join('\n');
}

/** One gateway of the node-compare scenario: its runs, and what it runs on. */
interface ComparedRuns {
  label: string;
  version: string;
  /** Its CPU group (the gateway's process). */
  group: string;
  runs: Figure[];
}

/** The node-compare rounds in a few lines: each gateway's Node, CPU µs a request, req/s and p99, and B over A. */
function compareLines(compared: ComparedRuns[]): string {
  const each = (c: ComparedRuns, pick: (f: Figure) => number, fmt: (n: number) => string) =>
    `${c.runs.map((f) => fmt(pick(f))).join(', ')} (median ${fmt(median(c.runs.map(pick)))})`;
  const lines = compared.map(
    (c) =>
      `  ${c.label}, node ${c.version}: gateway CPU µs a request ${each(c, (f) => cpuUs(f, c.group), fmtUs)}; ` +
      `req/s ${each(
        c,
        (f) => f.rps,
        (n) => n.toFixed(0),
      )}; p99 ms ${each(c, (f) => f.p99, String)}; ` +
      `ledger, NATS, Postgres µs ${fmtUs(median(c.runs.map((f) => cpuUs(f, 'quota-ledger'))))}, ` +
      `${fmtUs(median(c.runs.map((f) => cpuUs(f, 'nats'))))}, ${fmtUs(median(c.runs.map((f) => cpuUs(f, 'postgres'))))}`,
  );
  const [a, b] = compared as [ComparedRuns, ComparedRuns];
  const cpu = (c: ComparedRuns) => median(c.runs.map((f) => cpuUs(f, c.group)));
  const rps = (c: ComparedRuns) => median(c.runs.map((f) => f.rps));
  return [
    `node-compare, the quote on one account, ${COMPARE_ROUNDS} rounds of each gateway in turn (same source, same stack):`,
    ...lines,
    `  gateway CPU a request, node ${b.version} over node ${a.version}: ${(cpu(b) / cpu(a)).toFixed(3)}; ` +
      `req/s: ${(rps(b) / rps(a)).toFixed(3)}`,
  ].join('\n');
}

/**
 * Why a gateway answered 5xx, from its own lines (`request failed: dependency unavailable`, with the
 * cause's message when there is one) and its token-cache counters: printed when a run fails.
 */
async function failureHints(output: string[], opsPort?: number): Promise<string[]> {
  const causes = new Map<string, number>();
  for (const line of output.join('').split('\n')) {
    if (!line.includes('request failed')) continue;
    try {
      const entry = JSON.parse(line) as { msg?: string; code?: string; cause?: string };
      const key = `${entry.code ?? '?'}: ${entry.cause ?? '(no cause: breaker open or a deadline of its own)'}`;
      causes.set(key, (causes.get(key) ?? 0) + 1);
    } catch {
      // not a log line
    }
  }
  const lines = [...causes].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${n} × ${k}`);
  const metrics =
    opsPort === undefined
      ? ''
      : await fetch(`http://127.0.0.1:${opsPort}/metrics`).then(
          (r) => r.text(),
          () => '',
        );
  const lookups = metrics.split('\n').filter((l) => l.startsWith('auth_cache_lookups_total'));
  return [...lines.slice(0, 8), ...lookups];
}

// The bench itself, when this file is the program (`npx tsx bench/run.ts`): bench/ledger-volume.ts
// imports `load` and `chargedUnits` from it.
if (import.meta.url === `file://${process.argv[1]}`) {
  // Settings that cannot work stop the run before anything starts.
  const overCap = [
    (runs('capped') || runs('no-leases') || runs('cold') || runs('returned')) &&
      burstCapError({
        scenario: 'capped',
        accounts: POOL_ACCOUNTS,
        warmup: WARMUP,
        run: { requests: REQUESTS },
        cap: CAPPED_BURST_PER_MINUTE,
        plan: CAPPED_PLAN,
        settings: 'BENCH_WARMUP, BENCH_REQUESTS, BENCH_ACCOUNTS',
      }),
    runs('steady') &&
      burstCapError({
        scenario: 'steady',
        accounts: STEADY_ACCOUNTS,
        warmup: WARMUP,
        run: { periodMs: STEADY_PERIOD_MS },
        cap: CAPPED_BURST_PER_MINUTE,
        plan: CAPPED_PLAN,
        settings: 'BENCH_WARMUP, BENCH_STEADY_ACCOUNTS, BENCH_STEADY_PERIOD_MS',
      }),
  ].find((e) => typeof e === 'string');
  if (overCap) throw new Error(overCap);
  if (runs('node-compare') && !COMPARE_NODE)
    throw new Error(
      'node-compare: set BENCH_COMPARE_NODE to the path of another node binary (e.g. /usr/bin/node)',
    );
  const compareVersion = runs('node-compare') ? nodeVersion(COMPARE_NODE!) : undefined;

  await runBundled();
  console.log('starting the platform (six processes, bundled)…');
  const nodeArgs = PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : [];
  const nats = await benchNats();
  console.log(nats.said);
  const stack = await startStack(
    { LOG_LEVEL: 'warn' },
    { nodeArgs, natsUrl: nats.url, serviceNodeArgs: BENCH_SERVICE_NODE_ARGS },
  );
  const barePort = await freePort();
  const bare = spawn(process.execPath, ['bench/bare-server.ts'], {
    env: { ...process.env, PORT: String(barePort) },
    stdio: 'inherit',
  });
  // However the bench ends (a Ctrl-C included), its own servers end with it; orphaned bare servers of
  // interrupted runs were seen still running an hour later.
  atProcessEnd(() => bare.kill('SIGKILL'));
  let redis: BenchRedis | undefined;
  let peer: ChildProcess | undefined;
  let floor: Floor | undefined;
  let compared: ComparedGateway | undefined;
  /** The second gateway's output, kept after it stops. */
  let comparedOutput: string[] | undefined;
  /** Reads the ledger's projections between runs (`recorded`). */
  let ledgerDb: pg.Client | undefined;
  /** The two-gateways scenario's second gateway, while it runs, and its process. */
  let second: Awaited<ReturnType<typeof stack.startSecondGateway>> | undefined;
  let secondPid: number | undefined;
  const failures: string[] = [];
  try {
    // The peer's Redis: the bench's own, on a leased port (bench/redis.ts).
    redis = await startRedis();
    const peerPort = await freePort();
    const peerChild = spawn(process.execPath, ['bench/peer-server.ts'], {
      env: { ...process.env, PORT: String(peerPort), REDIS_PORT: String(redis.port) },
      stdio: 'inherit',
    });
    peer = peerChild;
    atProcessEnd(() => peerChild.kill('SIGKILL'));
    floor = await startFloor(stack.natsUrl);
    const floorPid = floor.child.pid!;
    if (compareVersion) {
      // Started now, so a Node the gateway refuses stops the run before the data load; it idles until its
      // rounds (its CPU is counted only in them).
      console.log(`starting a second gateway under ${COMPARE_NODE} (${compareVersion})…`);
      compared = await startComparedGateway(stack, COMPARE_NODE!, { LOG_LEVEL: 'warn' }, nodeArgs);
      comparedOutput = compared.output;
    }
    const schemaOf = (suffix: string) => stack.schemas.find((name) => name.endsWith(suffix))!;
    console.log('loading the equities default dataset into this stack (about a minute)…');
    const settling = performance.now();
    const collections = await loadDefaultDataset(stack);
    console.log(
      `equities-data loaded it and its heap settled in ${((performance.now() - settling) / 1000).toFixed(0)} s (${collections} major collections)`,
    );
    const hot = (await stack.admin('demo-token', '--plan', 'load-test')).split('\n').at(-1)!;
    /** `count` new accounts on `plan`, one token each (the admin tool prints one a line). */
    const tokenPool = async (plan: string, count: number) =>
      (await stack.admin('token-pool', '--plan', plan, '--count', String(count))).split('\n');
    const pool = runs('accounts') ? await tokenPool('load-test', POOL_ACCOUNTS) : [];
    // One pool a round: a round's requests would put one pool's accounts over their burst cap.
    const cappedPools: string[][] = [];
    if (runs('capped'))
      for (let k = 0; k < ROUNDS; k++) cappedPools.push(await tokenPool(CAPPED_PLAN, POOL_ACCOUNTS));
    const cappedPool = cappedPools[0] ?? [];
    // The peer keys its limit by token: the same many tokens as the capped run (it checks none of them).
    const peerTokens =
      cappedPool.length > 0
        ? cappedPool
        : pool.length > 0
          ? pool
          : Array.from({ length: POOL_ACCOUNTS }, (_, i) => `bench-peer-${String(i).padStart(40, '0')}`);
    // The Postgres and NATS the stack uses (the processes listening on their ports; Postgres with the
    // backends its postmaster started), else every process of that name on the machine, which counts
    // the private instances other test runs start and stop.
    const portOf = (url: string, fallback: number) => Number(new URL(url).port || fallback);
    const postmaster = listenerPid(portOf(stack.databaseUrl, 5432), 'postgres');
    const natsServer = listenerPid(portOf(stack.natsUrl, 4222), 'nats-server');
    const postgresPids = postmaster ? () => withChildren(postmaster) : () => pidsNamed('postgres');
    const natsPids = natsServer ? () => [natsServer] : () => pidsNamed('nats-server');
    console.log(
      `CPU counted: Postgres ${postmaster ? `of the postmaster on port ${portOf(stack.databaseUrl, 5432)} (pid ${postmaster}) and its backends` : 'of every postgres process (its postmaster not found)'}, ` +
        `NATS ${natsServer ? `of the server on port ${portOf(stack.natsUrl, 4222)} (pid ${natsServer})` : 'of every nats-server process'}`,
    );
    const compareGroup = compareVersion ? `gateway@${compareVersion}` : undefined;
    const groups: CpuGroup[] = [
      // Looked up each time: no-leases starts the quota ledger again, a new process.
      ...[...stack.procs.keys()].map((name) => ({ name, pids: () => [stack.procs.get(name)!.child.pid!] })),
      ...(compareGroup ? [{ name: compareGroup, pids: () => (compared ? [compared.pid] : []) }] : []),
      ...(runs('two-gateways')
        ? [{ name: SECOND_GATEWAY, pids: () => (secondPid === undefined ? [] : [secondPid]) }]
        : []),
      { name: 'postgres', pids: postgresPids, withReapedChildren: true },
      { name: 'nats', pids: natsPids },
      { name: 'bare', pids: () => [bare.pid!] },
      { name: 'peer', pids: () => [peer!.pid!] },
      { name: 'floor', pids: () => [floorPid] },
      // This bench's own redis-server only: a Redis the machine runs besides is not counted.
      { name: 'redis', pids: () => [redis!.pid] },
      // autocannon runs in this process: the load generator's share of the same two cores.
      { name: 'autocannon', pids: () => [process.pid] },
    ];
    const platform = [...stack.procs.keys()] as string[];
    const columns: Columns = {
      ledger: 'quota-ledger',
      nats: 'nats',
      postgres: 'postgres',
      redis: 'redis',
      others: platform.filter((n) => n !== 'gateway' && n !== 'quota-ledger'),
    };
    const meteredServing = [...platform, 'postgres', 'nats'];
    // The processes every metered request crosses (the data services answer from the gateway's cache).
    const opsPortOf = (name: string) => [...stack.procs.values()].find((p) => p.name === name)!.opsPort;
    const probes: OpsProbe[] = ['gateway', 'quota-ledger'].map((name) => ({
      name,
      opsPort: opsPortOf(name),
    }));
    const base = stack.baseUrl;
    const figures: Figure[] = [];
    const bareQuote = `http://127.0.0.1:${barePort}/bare`;
    const barePage = `http://127.0.0.1:${barePort}/bare-page`;
    const peerQuote = `http://127.0.0.1:${peerPort}/peer`;
    await waitForHttp(bareQuote);
    await waitForHttp(peerQuote);
    await waitForHttp(floor.url);
    const bareRun = (shape: Shape = 'quote') => ({
      groups,
      bare: true,
      shape,
      front: 'bare',
      serving: ['bare'],
    });
    const peerRun = { groups, tokens: peerTokens, front: 'peer', serving: ['peer', 'redis'] };
    const floorRun = { groups, front: 'floor', serving: ['floor', 'nats'] };
    // Each metered run's CPU window starts once the ledger has recorded every charge before it and ends
    // once it has recorded the run's own: its recording (ledger and Postgres CPU) lags the answers, by
    // milliseconds as a rule, but seen to stall for a whole run, which then showed no Postgres CPU and the
    // next warm-up took it.
    ledgerDb = new pg.Client({ connectionString: stack.databaseUrl });
    await ledgerDb.connect();
    const db = ledgerDb;
    const usageDaily = `"${schemaOf('_quota_ledger')}".usage_daily`;
    let recordedBefore = 0;
    const recorded = async (expected: number) => {
      const started = performance.now();
      for (;;) {
        const { rows } = await db.query<{ n: string | null }>(`SELECT sum(charged) AS n FROM ${usageDaily}`);
        if (Number(rows[0]?.n ?? 0) >= expected) break;
        if (performance.now() - started > 120_000) {
          console.log(`  the ledger had not recorded ${expected} charges after 120 s; measuring on`);
          break;
        }
        await new Promise((r) => setTimeout(r, 50));
      }
      const waited = (performance.now() - started) / 1000;
      if (waited > 1)
        console.log(`  waited ${waited.toFixed(1)} s for the ledger to record ${expected} charges`);
    };
    /** The ledger shard whose leases each metered run reports (bench/lease-traffic.ts). */
    const shardProbe = probes[1]!;
    /** A run that charges: its CPU window bounded by the ledger's recording (above). */
    const metered = async (name: string, url: string | string[], opts: LoadOptions) => {
      const f = await load(name, url, {
        leases: shardProbe,
        settlements: probes[0]!,
        ...opts,
        // Read when called: 200s sent outside the run meanwhile (`admitsAgain`) are in it by then.
        settle: (ok) => recorded(recordedBefore + ok),
      });
      recordedBefore += f.ok;
      if (f.leases) console.log(`  ${f.name}: ${leaseLine(f.leases)}`);
      if (f.settlements)
        console.log(`  ${f.name}: ${settlementLine(f.settlements, cpuUs(f, 'nats'), f.runOk)}`);
      if (f.shardWaits) console.log(`  ${f.name}: ${shardWaitLine(f.shardWaits)}`);
      return f;
    };
    const meteredBy = (tokens: string[], shape: Shape = 'quote') => ({
      groups,
      probes,
      tokens,
      shape,
      front: 'gateway',
      serving: meteredServing,
    });
    /** 200s of single requests outside every run (`admitsAgain`), charged all the same: the accounting counts them. */
    let aside = 0;
    /**
     * Resolves once the gateway admits the hot account again (a 200), after the quota ledger was started
     * again: until its admission stream to the new process is up, it answers 503 at once.
     */
    const admitsAgain = async () => {
      const until = Date.now() + 60_000;
      for (;;) {
        const res = await fetch(`${base}${QUOTE}`, { headers: { authorization: `Bearer ${hot}` } });
        await res.arrayBuffer();
        if (res.status === 200) {
          aside++;
          recordedBefore++;
          return;
        }
        if (Date.now() > until) throw new Error(`the gateway answered ${res.status}, not 200, for 60 s`);
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    /** Runs not printed whose 200s were charged all the same: the accounting counts them. */
    const unprinted: Figure[] = [];
    const lingered: Lingered[] = [];
    if (PLATFORM_WARMUP > 0) {
      console.log(
        `warming up (BENCH_PLATFORM_WARMUP): ${PLATFORM_WARMUP} requests of the bare route, the peer, the floor, then of the metered quote, not measured…`,
      );
      // The references as warm as the gateway: the floor measured 1.53 times bare's CPU after only its
      // run's own warm-up (30 November 2026).
      const warm = { requests: PLATFORM_WARMUP, warmup: 0 };
      unprinted.push(
        await load('warm-up, bare', bareQuote, { ...bareRun(), ...warm }),
        await load('warm-up, peer', peerQuote, { ...peerRun, ...warm }),
        await load('warm-up, floor', floor.url, { ...floorRun, ...warm }),
      );
      // In parts, each part's gateway CPU printed: where the warm-up ends, the parts should have levelled.
      const parts: Figure[] = [];
      for (let sent = 0; sent < PLATFORM_WARMUP; sent += WARMUP_PART)
        parts.push(
          await metered('warm-up, quote', `${base}${QUOTE}`, {
            ...meteredBy([hot]),
            requests: Math.min(WARMUP_PART, PLATFORM_WARMUP - sent),
            warmup: 0,
          }),
        );
      unprinted.push(...parts);
      console.log(
        `warm-up, quote: the gateway's CPU µs a request in each ${WARMUP_PART} of it: ${parts.map((f) => fmtUs(frontUs(f))).join(', ')}`,
      );
    }
    if (IDLE_SECONDS > 0) {
      const idleGroups = groups.filter((g) => meteredServing.includes(g.name));
      const idle = await cpuOverIdle(
        idleGroups,
        () => new Promise((r) => setTimeout(r, IDLE_SECONDS * 1000)),
      );
      const each = [...idle.msPerSecond].map(([name, ms]) => `${name} ${ms.toFixed(1)}`).join(', ');
      const all = [...idle.msPerSecond.values()].reduce((a, b) => a + b, 0);
      console.log(
        `the platform idle (BENCH_IDLE_SECONDS: ${idle.seconds.toFixed(1)} s, nothing asked of it), CPU ms a second: ${each}; all ${all.toFixed(1)} of ${availableParallelism() * 1000}`,
      );
    }
    figures.push(await load('bare fastify (quote-shaped)', bareQuote, bareRun()));
    figures.push(await load(`peer (rate limit on Redis, ${peerTokens.length} keys)`, peerQuote, peerRun));
    figures.push(await load('floor (bare + an acknowledged charge)', floor.url, floorRun));
    if (runs('price'))
      figures.push(await load('bare fastify (price-page-shaped)', barePage, bareRun('page')));
    /** Bare fastify held to a metered row's req/s, printed beside it (`pacedAs`). */
    // Timed, not counted: autocannon paces a second at a time, and a run of a count ends in a part-second
    // sent unpaced (a 1.7 s run asked for 11,891 a second came out at 15,983).
    const pacedBare = (f: Figure) =>
      load(`bare fastify at ${f.rps.toFixed(0)} req/s`, bareQuote, {
        ...bareRun(),
        pacedAs: f,
        seconds: PACED_SECONDS,
      });
    // Issue 49's rows, in alternated rounds: bare fastify, the one-account quote, the `business` pool.
    const rounds: Round[] = [];
    let cappedLine: string | undefined;
    if (runs('quote') || runs('capped'))
      for (let k = 0; k < ROUNDS; k++) {
        const tag = ROUNDS > 1 ? ` #${k + 1}` : '';
        const bareOfRound = await load(`bare fastify${tag}`, bareQuote, bareRun());
        figures.push(bareOfRound);
        const rows = new Map<string, RoundRun>();
        const measure = async (row: string, tokens: string[]) => {
          const f = await metered(`${row}${tag}`, `${base}${QUOTE}`, meteredBy(tokens));
          const paced = await pacedBare(f);
          figures.push(f, paced);
          rows.set(row, { ...roundRun(f), pacedUs: frontUs(paced) });
          return f;
        };
        if (runs('quote')) await measure('quote, one account (load-test)', [hot]);
        if (runs('capped')) {
          const pool = cappedPools[k]!;
          const capped = await measure(`quote, ${pool.length} accounts (${CAPPED_PLAN}, burst 60)`, pool);
          cappedLine =
            `capped: ${pool.length + WARMUP + REQUESTS} requests (priming, warm-up and run) over ${pool.length} accounts of the ` +
            `${CAPPED_PLAN} plan a round (a pool of its own each round), one each in turn: at most ${capped.maxPerToken} an ` +
            `account within the minute (burst cap ${CAPPED_BURST_PER_MINUTE})`;
        }
        rounds.push({ bare: roundRun(bareOfRound), rows });
      }
    if (runs('search'))
      figures.push(
        await metered('search, one account', `${base}/v1/stocks?q=aravali&limit=5`, meteredBy([hot])),
      );
    if (runs('price'))
      figures.push(
        await metered(
          '365-day price page, one account',
          `${base}/v1/stocks/ARAVALIHOU/price?days=365`,
          meteredBy([hot], 'page'),
        ),
      );
    if (runs('accounts'))
      figures.push(
        await metered(`quote, ${pool.length} accounts (load-test)`, `${base}${QUOTE}`, meteredBy(pool)),
      );
    if (runs('two-gateways')) {
      // An account of its own: the hot account stays leased to the stack's gateway for the other rows
      // (an account seen on two gateways is admitted per request for ten lease lengths afterwards).
      const [shared] = await tokenPool('load-test', 1);
      console.log('starting a second gateway (two-gateways)…');
      second = await stack.startSecondGateway();
      // startSecondGateway gives no pid: the process listening on its port, named as the stack's gateway.
      const comm = readFileSync(`/proc/${stack.procs.get('gateway')!.child.pid}/comm`, 'utf8').trim();
      secondPid = listenerPid(Number(new URL(second.baseUrl).port), comm);
      if (secondPid === undefined)
        throw new Error(`two-gateways: no ${comm} process listens on ${second.baseUrl}`);
      const secondProbe: OpsProbe = { name: SECOND_GATEWAY, opsPort: second.opsPort };
      const urls = [`${base}${QUOTE}`, `${second.baseUrl}${QUOTE}`];
      // Warmed as the stack's gateway was (BENCH_PLATFORM_WARMUP), through it alone.
      if (PLATFORM_WARMUP > 0)
        unprinted.push(
          await metered('warm-up, quote, second gateway', urls[1]!, {
            ...meteredBy([shared!]),
            probes: [secondProbe, shardProbe],
            front: SECOND_GATEWAY,
            requests: PLATFORM_WARMUP,
            warmup: 0,
          }),
        );
      figures.push(
        await metered('quote, one account, two gateways', urls, {
          ...meteredBy([shared!]),
          probes: [...probes, secondProbe],
          front: ['gateway', SECOND_GATEWAY],
          serving: [...meteredServing, SECOND_GATEWAY],
        }),
      );
      await second.stop();
      second = undefined;
      secondPid = undefined;
    }
    const compression: Figure[] = [];
    if (runs('compression'))
      for (const encoding of ENCODINGS)
        compression.push(
          await metered(`2,000-day price page, ${encoding}`, `${base}${COMPRESSION_PAGE}`, {
            ...meteredBy([hot], 'large'),
            requests: COMPRESSION_REQUESTS,
            headers: { 'accept-encoding': encoding },
          }),
        );
    figures.push(...compression);
    let burstSummary: string | undefined;
    if (runs('burst')) {
      // No daily or monthly cap, a burst cap no run reaches: every admission is recorded in its account's
      // window and stays there for its minute, so the windows only grow over the consecutive runs.
      await createOpenPlan(stack, 'bench-burst');
      const burstTokens = await tokenPool('bench-burst', BURST_ACCOUNTS);
      const timed: Figure[] = [];
      for (let i = 1; i <= BURST_RUNS; i++)
        timed.push(
          await metered(
            `burst cap, ${BURST_ACCOUNTS} accounts, ${BURST_SECONDS} s: run ${i}/${BURST_RUNS}`,
            `${base}${QUOTE}`,
            { ...meteredBy(burstTokens), seconds: BURST_SECONDS, ...(i > 1 ? { warmup: 0 } : {}) },
          ),
        );
      figures.push(...timed);
      burstSummary = burstLine(timed);
    }
    let compareSummary: string | undefined;
    if (compared && compareVersion && compareGroup) {
      // The second gateway, same source under the other Node, beside the stack's; the quote on the hot
      // account through each in turn (A B A B), each run with its own warm-up.
      const sides: ComparedRuns[] = [
        { label: "A (the stack's gateway)", version: process.version, group: 'gateway', runs: [] },
        { label: 'B (BENCH_COMPARE_NODE)', version: compareVersion, group: compareGroup, runs: [] },
      ];
      const urls = [stack.baseUrl, compared.baseUrl];
      const sideProbes: OpsProbe[][] = [
        probes,
        [{ name: compareGroup, opsPort: compared.opsPort }, probes[1]!],
      ];
      for (let round = 1; round <= COMPARE_ROUNDS; round++)
        for (const [i, side] of sides.entries()) {
          const f = await metered(
            `quote, gateway ${side.label[0]} (node ${side.version}), round ${round}`,
            `${urls[i]}${QUOTE}`,
            {
              ...meteredBy([hot]),
              probes: sideProbes[i],
              front: side.group,
              serving:
                i === 0 ? meteredServing : [...meteredServing.filter((n) => n !== 'gateway'), side.group],
            },
          );
          side.runs.push(f);
          figures.push(f);
        }
      compareSummary = compareLines(sides);
      await compared.stop();
      compared = undefined;
    }
    if (runs('linger')) {
      for (const ms of LINGERS) {
        console.log(`starting the gateway again with SETTLE_LINGER_MS=${ms} (linger)…`);
        await stack.stop('gateway');
        await stack.start('gateway', { SETTLE_LINGER_MS: String(ms) });
        unprinted.push(
          await metered(`warm-up, quote, linger ${ms}`, `${base}${QUOTE}`, {
            ...meteredBy([hot]),
            requests: WARMUP,
            warmup: 0,
          }),
        );
        const before = await batchEvents(probes[0]!);
        const f = await metered(
          `quote, one account, SETTLE_LINGER_MS=${ms}`,
          `${base}${QUOTE}`,
          meteredBy([hot]),
        );
        const after = await batchEvents(probes[0]!);
        figures.push(f);
        lingered.push({ ms, figure: f, perMessage: (after.sum - before.sum) / (after.count - before.count) });
      }
      await stack.stop('gateway');
      await stack.start('gateway');
    }
    if (runs('no-leases')) {
      // The same quote with the shard deciding every admission. A new ledger process: warmed as the first.
      console.log('starting the quota ledger again with LEASE_MS=0 (no-leases)…');
      await stack.stop('quota-ledger');
      await stack.start('quota-ledger', { LEASE_MS: '0' });
      const noLeasePool = await tokenPool(CAPPED_PLAN, POOL_ACCOUNTS);
      if (PLATFORM_WARMUP > 0)
        unprinted.push(
          await metered('warm-up, quote, no leases', `${base}${QUOTE}`, {
            ...meteredBy([hot]),
            requests: PLATFORM_WARMUP,
            warmup: 0,
          }),
        );
      figures.push(
        await metered('quote, one account, LEASE_MS=0', `${base}${QUOTE}`, meteredBy([hot])),
        await metered(
          `quote, ${noLeasePool.length} accounts (${CAPPED_PLAN}), LEASE_MS=0`,
          `${base}${QUOTE}`,
          meteredBy(noLeasePool),
        ),
      );
    }
    if (runs('cold')) {
      const coldPool = await tokenPool(CAPPED_PLAN, POOL_ACCOUNTS);
      figures.push(
        await metered(`quote, ${coldPool.length} accounts (${CAPPED_PLAN}), not loaded`, `${base}${QUOTE}`, {
          ...meteredBy(coldPool),
          warmup: 0,
          beforeRun: async () => {
            console.log("starting the quota ledger again: the cold pool's accounts are not loaded (cold)…");
            await stack.stop('quota-ledger');
            await stack.start('quota-ledger');
            await admitsAgain();
          },
        }),
      );
    }
    if (runs('returned')) {
      const returnedPool = await tokenPool(CAPPED_PLAN, POOL_ACCOUNTS);
      figures.push(
        await metered(
          `quote, ${returnedPool.length} accounts (${CAPPED_PLAN}), leases back`,
          `${base}${QUOTE}`,
          { ...meteredBy(returnedPool), beforeRun: () => leaseCounters(shardProbe).then(() => undefined) },
        ),
      );
    }
    if (runs('steady')) {
      const steadyPool = await tokenPool(CAPPED_PLAN, STEADY_ACCOUNTS);
      const steady = await metered(
        `quote, ${steadyPool.length} accounts (${CAPPED_PLAN}), each every ${STEADY_PERIOD_MS} ms`,
        `${base}${QUOTE}`,
        {
          ...meteredBy(steadyPool),
          seconds: STEADY_SECONDS,
          rate: Math.round((steadyPool.length * 1_000) / STEADY_PERIOD_MS),
        },
      );
      figures.push(steady, await pacedBare(steady));
    }
    if (runs('price')) figures.push(await load('bare price page again', barePage, bareRun('page')));
    figures.push(await load('bare fastify again', bareQuote, bareRun()));
    print(figures, groups, columns);
    if (rounds.length > 0) {
      console.log(
        `\nissue 49's goals over ${rounds.length} alternated round${rounds.length > 1 ? 's' : ''} (BENCH_ROUNDS), each row against its own round's bare fastify run: ` +
          `the median round, then each round's figure (front ≤ ${GOALS.frontOverBare}× bare, req/s ≥ ${GOALS.rpsOverBare} of bare, p99 ≤ ${GOALS.p99Ms} ms)`,
      );
      for (const line of roundLines(readRounds(rounds), GOALS)) console.log(`  ${line}`);
      for (const line of slowedRuns(rounds, fullRateBare(figures, 'quote').map(frontUs)))
        console.log(`  ${line}`);
    }
    if (cappedLine) console.log(`\n${cappedLine}`);
    if (compareSummary) console.log(`\n${compareSummary}`);
    if (burstSummary) console.log(`\n${burstSummary}`);
    if (compression.length > 0) console.log(`\n${compressionLines(compression)}`);
    if (lingered.length > 0) console.log(`\n${lingerLines(lingered, bareReference(figures, 'quote').us)}`);

    // The 200s the platform charged: neither the peer's nor the floor's (its stream is its own).
    const measured = [...unprinted, ...figures].filter(
      (f) => !f.bare && !f.front.includes('peer') && !f.front.includes('floor'),
    );
    const seen = measured.reduce((sum, f) => sum + f.ok, 0) + aside;
    const unread = measured.reduce((sum, f) => sum + f.unread, 0);
    const charged = await chargedUnits(schemaOf('_quota_ledger'), seen);
    // Exact, but for the answers of requests in flight when a timed run closed its connections.
    const accounted = charged >= seen && charged - seen <= unread;
    const verdict =
      charged === seen
        ? 'exact'
        : accounted
          ? `exact but for ${charged - seen} answers in flight when a timed run stopped (at most ${unread}: autocannon closes those connections unread)`
          : 'MISMATCH';
    console.log(`\naccounting: ${seen} 200s seen, ${charged} units charged: ${verdict}`);
    if (!accounted) failures.push(`${seen} 200s seen but ${charged} units charged`);
    for (const f of [...unprinted, ...figures].filter((f) => !f.bare))
      if (Object.keys(f.failed).length > 0) failures.push(`${f.name}: ${JSON.stringify(f.failed)}`);
    // A run whose figures are of errors only (every request refused or failed, or none answered).
    for (const f of [...unprinted, ...figures])
      if (f.runOk === 0) failures.push(`${f.name}: not a single 200 in its measured run`);
    if (failures.length > 0) {
      const gateway = stack.procs.get('gateway')!;
      const hints = await failureHints(gateway.output, gateway.opsPort);
      if (hints.length > 0)
        console.log(`\nthe gateway's failed requests and token lookups:\n  ${hints.join('\n  ')}`);
      // The second gateway has stopped by now: its lines only.
      const other = comparedOutput ? await failureHints(comparedOutput) : [];
      if (other.length > 0) console.log(`the second gateway's (node-compare):\n  ${other.join('\n  ')}`);
    }
  } finally {
    bare.kill('SIGTERM');
    peer?.kill('SIGTERM');
    floor?.child.kill('SIGTERM');
    await compared?.stop();
    await second?.stop();
    await redis?.stop();
    await ledgerDb?.end().catch(() => {});
    await stack.shutdown();
    await nats.cleanup();
  }
  if (failures.length > 0) {
    console.error(
      `\nBENCH FAILED: a benchmark figure means nothing when requests failed\n  ${failures.join('\n  ')}`,
    );
    process.exit(1);
  }

  if (LEDGER_BENCH === 0) console.log('\nquota ledger on its own: skipped (BENCH_LEDGER=0)');
  else {
    console.log('\nquota ledger on its own (real process, real NATS and Postgres):');
    for (const line of await benchLedger()) console.log(`  ${line}`);
  }
}
