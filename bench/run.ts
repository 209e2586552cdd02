// `make bench`: figures, not assertions. The platform as real processes on this machine, loaded with the
// default dataset, driven by autocannon from this process, beside bare fastify routes measured in the
// same run (before and after the metered scenarios): one answering a quote-sized document, one a
// price-page-sized one. Tokens are on the shipped `load-test` plan (no cap,
// no burst cap), or for the opt-in `burst` scenario on a plan whose burst cap no run reaches, so every
// answer should be a 200: any 429 or 5xx fails the run after the table.
import { spawn, spawnSync } from 'node:child_process';
import type { EventEmitter } from 'node:events';
import autocannon from 'autocannon';
import pg from 'pg';
import { DATABASE_URL, freePort, startStack } from '../test/stack.ts';
import { type CpuGroup, cpuBetween, pidsNamed, snapshot } from './cpu.ts';
import { envInt, envScenarios } from './env.ts';
import { benchLedger } from './ledger.ts';
import { type LoopDelay, loopDelays, type OpsProbe, waitForGauge, waitForQuietHeap } from './ops-metrics.ts';

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
const POOL_ACCOUNTS = envInt('BENCH_ACCOUNTS', 1_000);
/** The metered scenarios, by key; `BENCH_SCENARIOS=quote,accounts` runs only those (the bare route always runs). */
const SCENARIOS = ['quote', 'search', 'price', 'accounts', 'compression'] as const;
/**
 * Scenarios run only when named (`BENCH_SCENARIOS=burst`). `burst`: the quote over a few accounts of a
 * plan with a very large burst cap, in consecutive timed runs, so each account's burst window grows to
 * tens of thousands of admissions: the later runs should be as fast as the first (the window costs O(1)
 * per admission; kept as an array, its cost grew with it and the fourth run was half the first).
 */
const OPT_IN = ['burst'] as const;
const scenarios = envScenarios('BENCH_SCENARIOS', SCENARIOS, OPT_IN);
const runs = (key: (typeof SCENARIOS)[number] | (typeof OPT_IN)[number]) => scenarios.includes(key);
/** The burst scenario: how many accounts, how many consecutive runs of how many seconds, and the cap. */
const BURST_ACCOUNTS = envInt('BENCH_BURST_ACCOUNTS', 8);
const BURST_RUNS = envInt('BENCH_BURST_RUNS', 4);
const BURST_SECONDS = envInt('BENCH_BURST_SECONDS', 10);
/** No customer plan comes near it; every admission of the scenario stays in the window for its minute. */
const BURST_CAP = 100_000_000;
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
  /** Event-loop delay of the probed processes over the measured run. */
  loop: Map<string, LoopDelay>;
  /** Mean response size. */
  kb: number;
  /** The bare route this figure is (`bare`) or is compared with: quote-sized or price-page-sized. */
  shape: Shape;
  bare: boolean;
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
}

export async function load(name: string, url: string, opts: LoadOptions): Promise<Figure> {
  const { groups, probes = [], tokens = [], shape = 'quote', bare = false, seconds, headers = {} } = opts;
  const amount = opts.requests ?? REQUESTS;
  const warmup = Math.min(opts.warmup ?? WARMUP, amount);
  let next = 0;
  let lastResponse = 0;
  const run = (amount: number | { seconds: number }) => {
    const instance = autocannon({
      url,
      headers,
      connections: CONNECTIONS,
      // autocannon reads an amount of 0 as "run for its default 10 s": a timed run says so.
      ...(typeof amount === 'number' ? { amount } : { duration: amount.seconds }),
      // One token per request, round robin over the pool (one token: the same hot account every time).
      requests: [
        {
          setupRequest: (req) => {
            if (tokens.length === 0) return req;
            const token = tokens[next++ % tokens.length];
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
  // Warm-up, not measured: a cold JIT and cold connections made the first bare run a third of the next.
  const warm = warmup > 0 ? await run(warmup) : undefined;
  await loopDelays(probes);
  const before = snapshot(groups);
  const started = performance.now();
  const result = await run(seconds === undefined ? amount : { seconds });
  const elapsed = (lastResponse - started) / 1000;
  const after = snapshot(groups);
  const loop = await loopDelays(probes);
  const requests = result.requests.total;
  // Failures and 200s of both runs: the warm-up's are charged too.
  const failed: Record<string, number> = {};
  const add = (key: string, n: number) => {
    if (n > 0) failed[key] = (failed[key] ?? 0) + n;
  };
  for (const r of warm ? [warm, result] : [result]) {
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
    ok: (warm?.['2xx'] ?? 0) + result['2xx'],
    unread: seconds === undefined ? 0 : CONNECTIONS,
    failed,
    cpuPer1k: new Map(
      groups.map((g) => [g.name, (cpuBetween(before.get(g.name)!, after.get(g.name)!) / requests) * 1_000]),
    ),
    loop,
    kb: result.throughput.total / requests / 1024,
    shape,
    bare,
  };
}

/** The median req/s of the bare runs of one shape (NaN when none ran). */
function bareMedian(figures: Figure[], shape: Shape): number {
  const sorted = figures
    .filter((f) => f.bare && f.shape === shape)
    .map((f) => f.rps)
    .sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function print(figures: Figure[], groups: CpuGroup[]) {
  const bare = bareMedian(figures, 'quote');
  const barePage = bareMedian(figures, 'page');
  const quoteRuns = figures.filter((f) => f.bare && f.shape === 'quote').length;
  console.log(`\n${CONNECTIONS} connections, ${REQUESTS} requests each, autocannon on loopback`);
  console.log(
    `ratio: req/s over the quote-shaped bare route's (median of its ${quoteRuns} runs, ${bare.toFixed(0)} req/s); ` +
      `same-size: over the bare route answering a response of the same size (price page: ${Number.isNaN(barePage) ? 'not run' : `${barePage.toFixed(0)} req/s`})\n`,
  );
  const width = (g: CpuGroup) => Math.max(9, g.name.length) + 2;
  const cpuHead = groups.map((g) => g.name.padStart(width(g))).join('');
  console.log(
    `${'scenario'.padEnd(40)} ${'req/s'.padStart(8)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)} ${'KB'.padStart(6)} ${'ratio'.padStart(6)} ${'same-size'.padStart(9)}   CPU s per 1,000 requests:${cpuHead}`,
  );
  for (const f of figures) {
    const cpu = groups.map((g) => f.cpuPer1k.get(g.name)!.toFixed(3).padStart(width(g))).join('');
    const sameSize = f.shape === 'large' ? '-' : (f.rps / (f.shape === 'page' ? barePage : bare)).toFixed(3);
    console.log(
      `${f.name.padEnd(40)} ${f.rps.toFixed(0).padStart(8)} ${String(f.p50).padStart(7)} ${String(f.p99).padStart(7)} ${f.kb.toFixed(1).padStart(6)} ${(f.rps / bare).toFixed(3).padStart(6)} ${sameSize.padStart(9)}   ${' '.repeat(25)}${cpu}`,
    );
  }
  const probed = [...(figures.find((f) => f.loop.size > 0)?.loop.keys() ?? [])];
  if (probed.length === 0) return;
  // A request waits for every loop it crosses: a process's delay tail shows up in the p99 above.
  console.log(`\nevent-loop delay over each run, p99 / max ms:${probed.map((n) => n.padStart(22)).join('')}`);
  for (const f of figures) {
    if (f.loop.size === 0) continue;
    const cell = (n: string) => {
      const d = f.loop.get(n)!;
      return `${d.p99Ms.toFixed(1)} / ${d.maxMs.toFixed(1)}`.padStart(22);
    };
    console.log(`${f.name.padEnd(44)}${probed.map(cell).join('')}`);
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

// The bench itself, when this file is the program (`npx tsx bench/run.ts`): bench/ledger-volume.ts
// imports `load` and `chargedUnits` from it.
if (import.meta.url === `file://${process.argv[1]}`) {
  console.log('starting the platform (six processes)…');
  const stack = await startStack(
    { LOG_LEVEL: 'warn' },
    PROFILE_DIR ? { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] } : {},
  );
  const barePort = await freePort();
  const bare = spawn(process.execPath, ['--import', 'tsx', 'bench/bare-server.ts'], {
    env: { ...process.env, PORT: String(barePort) },
    stdio: 'inherit',
  });
  const failures: string[] = [];
  try {
    const schemaOf = (suffix: string) => stack.schemas.find((name) => name.endsWith(suffix))!;
    console.log('loading the equities default dataset into this stack (about a minute)…');
    const loaded = spawnSync(
      process.execPath,
      ['--import', 'tsx', 'services/equities-data/src/cli.ts', 'load-default'],
      { env: { ...process.env, DB_SCHEMA: schemaOf('_equities_data') }, stdio: 'inherit' },
    );
    if (loaded.status !== 0) throw new Error('could not load the equities dataset');
    // The running service reloads the new data in the background; the garbage of that load (the old
    // dataset, the rows it was read from) is collected by V8's memory reducer once the process is idle, up
    // to three major collections about 8 s apart, which landed in later runs (seen: over a second of
    // equities-data CPU in the 365-day, 1,000-account and last bare rows). Measure after both.
    const equities = stack.procs.get('equities-data')!;
    const equitiesProbe = { name: 'equities-data', opsPort: equities.opsPort };
    await waitForGauge(equitiesProbe, 'equities_data_last_session_timestamp_seconds', 60_000);
    const settling = performance.now();
    const collections = await waitForQuietHeap(equitiesProbe, 10_000, 120_000);
    console.log(
      `equities-data's heap settled in ${((performance.now() - settling) / 1000).toFixed(0)} s (${collections} major collections)`,
    );
    const hot = (await stack.admin('demo-token', '--plan', 'load-test')).split('\n').at(-1)!;
    /** `count` new accounts on `plan`, one token each (the admin tool prints one a line). */
    const tokenPool = async (plan: string, count: number) =>
      (await stack.admin('token-pool', '--plan', plan, '--count', String(count))).split('\n');
    const pool = runs('accounts') ? await tokenPool('load-test', POOL_ACCOUNTS) : [];
    const groups: CpuGroup[] = [
      ...[...stack.procs.values()].map((p) => ({ name: p.name, pids: () => [p.child.pid!] })),
      { name: 'postgres', pids: () => pidsNamed('postgres'), withReapedChildren: true },
      { name: 'nats', pids: () => pidsNamed('nats-server') },
      // autocannon runs in this process: the load generator's share of the same two cores.
      { name: 'autocannon', pids: () => [process.pid] },
    ];
    // The processes every metered request crosses (the data services answer from the gateway's cache).
    const probes: OpsProbe[] = ['gateway', 'quota-ledger'].map((name) => ({
      name,
      opsPort: [...stack.procs.values()].find((p) => p.name === name)!.opsPort,
    }));
    const base = stack.baseUrl;
    const figures: Figure[] = [];
    const bareQuote = `http://127.0.0.1:${barePort}/bare`;
    const barePage = `http://127.0.0.1:${barePort}/bare-page`;
    const meteredBy = (tokens: string[], shape: Shape = 'quote') => ({ groups, probes, tokens, shape });
    figures.push(await load('bare fastify (quote-shaped)', bareQuote, { groups, bare: true }));
    if (runs('price'))
      figures.push(
        await load('bare fastify (price-page-shaped)', barePage, { groups, bare: true, shape: 'page' }),
      );
    if (runs('quote'))
      figures.push(await load('quote, one account', `${base}/v1/stocks/ARAVALIHOU/quote`, meteredBy([hot])));
    if (runs('search'))
      figures.push(
        await load('search, one account', `${base}/v1/stocks?q=aravali&limit=5`, meteredBy([hot])),
      );
    if (runs('price'))
      figures.push(
        await load(
          '365-day price page, one account',
          `${base}/v1/stocks/ARAVALIHOU/price?days=365`,
          meteredBy([hot], 'page'),
        ),
      );
    if (runs('accounts'))
      figures.push(
        await load(`quote, ${pool.length} accounts`, `${base}/v1/stocks/ARAVALIHOU/quote`, meteredBy(pool)),
      );
    const compression: Figure[] = [];
    if (runs('compression'))
      for (const encoding of ENCODINGS)
        compression.push(
          await load(`2,000-day price page, ${encoding}`, `${base}${COMPRESSION_PAGE}`, {
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
      await stack.admin(
        'plan',
        'create',
        'bench-burst',
        '--daily',
        'none',
        '--monthly',
        'none',
        '--burst',
        String(BURST_CAP),
      );
      const burstTokens = await tokenPool('bench-burst', BURST_ACCOUNTS);
      const timed: Figure[] = [];
      for (let i = 1; i <= BURST_RUNS; i++)
        timed.push(
          await load(
            `burst cap, ${BURST_ACCOUNTS} accounts, ${BURST_SECONDS} s: run ${i}/${BURST_RUNS}`,
            `${base}/v1/stocks/ARAVALIHOU/quote`,
            { ...meteredBy(burstTokens), seconds: BURST_SECONDS, ...(i > 1 ? { warmup: 0 } : {}) },
          ),
        );
      figures.push(...timed);
      burstSummary = burstLine(timed);
    }
    if (runs('price'))
      figures.push(await load('bare price page again', barePage, { groups, bare: true, shape: 'page' }));
    figures.push(await load('bare fastify again', bareQuote, { groups, bare: true }));
    print(figures, groups);
    if (burstSummary) console.log(`\n${burstSummary}`);
    if (compression.length > 0) console.log(`\n${compressionLines(compression)}`);

    const measured = figures.filter((f) => !f.bare);
    const seen = measured.reduce((sum, f) => sum + f.ok, 0);
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
    for (const f of measured)
      if (Object.keys(f.failed).length > 0) failures.push(`${f.name}: ${JSON.stringify(f.failed)}`);
  } finally {
    bare.kill('SIGTERM');
    await stack.shutdown();
  }
  if (failures.length > 0) {
    console.error(
      `\nBENCH FAILED: a benchmark figure means nothing when requests failed\n  ${failures.join('\n  ')}`,
    );
    process.exit(1);
  }

  console.log('\nquota ledger on its own (real process, real NATS and Postgres):');
  for (const line of await benchLedger()) console.log(`  ${line}`);
}
