// A change to the gateway, before and after, on the metered quote: `npx tsx bench/gateway-ab.ts` with
// BENCH_AB_BASE=<commit>. Figures, never assertions. One stack (bench/run.ts's: bundled services, the
// default dataset), and beside its own gateway several more started on it: BENCH_AB_PROCESSES of the
// base commit's gateway (services/gateway/src and the packages from git, `sourceAt`) and as many of this
// tree's, each bundled as `make build` bundles a service and serving a `load-test` account of its own,
// the base process of a pair started first in the first pair, the tree's in the second, and so on.
// Each round asks every gateway BENCH_AB_REQUESTS quotes, the order reversed every other round. Printed:
// every round, each process's median, each side's mean of medians, and each tree process over the base
// process run beside it. Two measures (BENCH_AB_MEASURE):
// - `cpu` (default): each process's CPU a request from /proc over its run, at 50 connections, three
//   processes a side (two processes of one build, asked in the same rounds, differed by up to a tenth:
//   contributors.md, 30 November), six rounds of 30,000 after a warm-up of 60,000; beside it, what V8's
//   young generation did in the run (`--trace-gc-nvp`, bench/gc-trace.ts): its scavenges, their median
//   pause and the bytes a request that outlived them, and the major collections;
// - `instructions`: each process run under valgrind's callgrind (bench/callgrind.ts), the instructions it
//   executed a request, at 10 connections, one process a side, three rounds of 20,000 after a warm-up of
//   60,000 (about 35 minutes in all), and bare fastify beside them counted the same way. A count does not
//   move with the machine's speed, which moves CPU time by half from one hour to the next: bare fastify's
//   rounds agree to a tenth of a percent. A gateway's move with its JIT and, under callgrind only, with
//   major collections that its slowness brings on (contributors.md, 5 December): each round's collector is
//   printed apart, and the instructions outside it are the figure to compare. It does not see the
//   kernel's part, nor what an instruction costs (a cache miss, a core lost to another process). The
//   processes run with `--perf-basic-prof`, so the last round's instructions are also printed by
//   function, V8's compiled JavaScript by name (bench/callgrind-functions.ts): the functions that moved
//   most from base to tree, and the tree's largest.
//   BENCH_AB_PROCESSES, BENCH_AB_ROUNDS, BENCH_AB_REQUESTS and BENCH_AB_WARMUP override either's;
//   BENCH_AB_ACCOUNTS=1000 has each gateway serve that many accounts in turn (the pool's path).
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { bundleEntry } from '../scripts/lib/bundle-options.ts';
import { ROOT } from '../scripts/lib/services.ts';
import { freePort } from '../test/ports.ts';
import { atProcessEnd } from '../test/process-end.ts';
import { startStack } from '../test/stack.ts';
import { runBundled } from './bundled.ts';
import { callgrindPrefix, instructionsSinceZero, requireCallgrind, zeroCounts } from './callgrind.ts';
import {
  callerInstructions,
  largestDifferences,
  perfMapOf,
  selfInstructions,
} from './callgrind-functions.ts';
import { cpuOf } from './cpu.ts';
import { loadDefaultDataset } from './default-dataset.ts';
import { envChoice, envInt, envPattern } from './env.ts';
import { CollectionLog, summarise, type YoungGeneration, youngLine } from './gc-trace.ts';
import { median } from './ledger-goals.ts';
import { BENCH_SERVICE_NODE_ARGS, waitForHttp, waitForReady } from './ops-metrics.ts';
import { createOpenPlan } from './plans.ts';
import { QUOTE } from './run.ts';
import { shortCommit, sourceAt } from './source-at.ts';

const BASE = process.env.BENCH_AB_BASE?.trim();
const COUNTED = envChoice('BENCH_AB_MEASURE', ['cpu', 'instructions'] as const, 'cpu') === 'instructions';
const PROCESSES = envInt('BENCH_AB_PROCESSES', COUNTED ? 1 : 3);
const ROUNDS = envInt('BENCH_AB_ROUNDS', COUNTED ? 3 : 6);
/**
 * Under callgrind, rounds of 3,000 read from 152,000 to 229,000 instructions a request on bare fastify
 * (a garbage collection or a compilation is a large part of so short a run): 20,000 a round.
 */
const REQUESTS = envInt('BENCH_AB_REQUESTS', COUNTED ? 20_000 : 30_000);
const WARMUP = envInt('BENCH_AB_WARMUP', 60_000, 0);
/** Under callgrind a process answers a few hundred a second: fewer connections keep its loop's turns short. */
const CONNECTIONS = COUNTED ? 10 : 50;
/** Starting under callgrind takes tens of seconds. */
const READY_MS = COUNTED ? 300_000 : 60_000;
/**
 * Under callgrind the gateway's own loop is slow enough, while V8 still compiles, to outlast its
 * deadlines for the ledger, auth and JetStream (seen: 503s in the warm-up): they are set at their
 * largest there. They only time a wait; the work a request does is the same.
 */
const DEADLINES: NodeJS.ProcessEnv = COUNTED
  ? {
      ADMISSION_DEADLINE_MS: '5000',
      AUTH_DEADLINE_MS: '5000',
      UPSTREAM_DEADLINE_MS: '60000',
      SETTLE_ACK_TIMEOUT_MS: '30000',
      SETTLE_ATTEMPT_TIMEOUT_MS: '10000',
    }
  : {};
const WORK = join(ROOT, '.local', `bench-gateway-ab-${process.pid}`);
/** Node flags from `env[name]`, space-separated. */
const nodeArgs = (name: string) => (process.env[name] ?? '').split(' ').filter(Boolean);
/** For this tree's gateways only: with BENCH_AB_BASE=HEAD, a runtime setting measured alone. */
const TREE_NODE_ARGS = nodeArgs('BENCH_AB_TREE_NODE_ARGS');
/** For every gateway of both sides (`--trace-deopt`, say). */
const NODE_ARGS = nodeArgs('BENCH_AB_NODE_ARGS');
/** Counted: also print who calls the functions this matches, and what those calls cost (the tree's). */
const CALLERS = envPattern('BENCH_AB_CALLERS');
/**
 * Accounts each gateway serves, asked in turn (1: one `load-test` account). More: accounts of a plan of
 * the bench's own with no daily or monthly cap and a burst cap no run reaches, so that every account is
 * leased with a burst window as `business` accounts are, and none is refused: the pool's path (its
 * state per account cold between requests) at the one account's rate of 200s.
 */
const ACCOUNTS = envInt('BENCH_AB_ACCOUNTS', 1);
// Under callgrind a gateway serves a few hundred requests a second: a pool's accounts would each be asked
// seconds apart, past a lease's length, and every request decided by its shard (5 December).
if (ACCOUNTS > 1 && COUNTED)
  throw new Error(
    'BENCH_AB_ACCOUNTS with BENCH_AB_MEASURE=instructions: under callgrind each account of a pool is asked ' +
      'less often than its lease lasts, so the pool would measure leases granted and returned, not the ' +
      'leased path; measure a pool by cpu',
  );
const POOL_PLAN = 'bench-ab-pool';

interface Gateway {
  side: 'base' | 'tree' | 'bare';
  name: string;
  child: ChildProcess;
  url: string;
  /** Its tokens, one per account, asked in turn. */
  tokens: string[];
  /** CPU µs, or instructions, a request: a run each round. */
  runs: number[];
  /** Counted: of `runs`, the instructions a request outside V8's garbage collector. */
  beside: number[];
  /** Counted: the collector's, a request (major, young), a run each round. */
  collector: string[];
  /** Counted: each function's own instructions in the last round (`selfInstructions`). */
  functions?: Map<string, number>;
  /** Counted, with BENCH_AB_CALLERS: its callers' calls to the matching functions, the last round. */
  callers?: Map<string, number>;
  /** CPU: the collections of the process since it last ran (`--trace-gc-nvp`). */
  collections?: CollectionLog;
  /** CPU: its young generation in each run. */
  young: YoungGeneration[];
}

/** One run of `requests` through `g` (`ask`), its figures added to `g`'s; the line it prints. */
async function measured(g: Gateway, requests: number, ask: () => Promise<void>): Promise<string> {
  const pid = g.child.pid!;
  if (COUNTED) {
    zeroCounts(pid);
    await ask();
    const n = instructionsSinceZero(pid, WORK, dumpName(g));
    g.runs.push(n.total / requests);
    g.beside.push((n.total - n.major - n.young) / requests);
    g.collector.push(`major ${figure(n.major / requests)}, young ${figure(n.young / requests)}`);
    const dump = readFileSync(n.dump, 'utf8');
    const code = perfMapOf(pid);
    g.functions = selfInstructions(dump, code);
    if (CALLERS) g.callers = callerInstructions(dump, code, CALLERS);
    return `${g.name} ${figure(g.runs.at(-1)!)} (collector: ${g.collector.at(-1)})`;
  }
  const before = cpuOf(pid)!.own;
  g.collections?.take();
  await ask();
  g.runs.push(((cpuOf(pid)!.own - before) * 1e6) / requests);
  if (!g.collections) return `${g.name} ${figure(g.runs.at(-1)!)}`;
  const young = summarise(g.collections.take(), requests);
  g.young.push(young);
  return `${g.name} ${figure(g.runs.at(-1)!)} (${young.scavenges} × ${young.pauseMs.toFixed(1)} ms, ${Math.round(young.survivedPerRequest)} B)`;
}

const dumpName = (g: Pick<Gateway, 'name'>) => `callgrind-${g.name.replace(/[^a-z0-9]+/gi, '-')}`;

/**
 * `node args…`, under callgrind when instructions are counted; otherwise with `--trace-gc-nvp`, its
 * standard output piped (`CollectionLog` keeps the collector's lines and passes the rest on).
 */
function spawnNode(name: string, args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  const [command, ...rest] = COUNTED
    ? [...callgrindPrefix(WORK, dumpName({ name })), process.execPath, '--perf-basic-prof', ...args]
    : [process.execPath, '--trace-gc-nvp', ...args];
  // valgrind's own lines (its banner, each dump) would bury the rounds: only the process's stderr stays.
  const child = spawn(command!, rest, {
    env,
    stdio: ['ignore', COUNTED ? 'inherit' : 'pipe', COUNTED ? 'ignore' : 'inherit'],
  });
  if (COUNTED) atProcessEnd(() => rmSync(`/tmp/perf-${child.pid}.map`, { force: true }));
  return child;
}

const unit = COUNTED ? 'instructions' : 'µs';
const figure = (x: number) => (COUNTED ? Math.round(x).toLocaleString('en-US') : x.toFixed(1));

/** A run of `amount` quotes through `g`; any answer but a 200 fails the bench. */
async function ask(g: Gateway, amount: number, connections = CONNECTIONS): Promise<void> {
  const failed = await quotes(g, amount, connections);
  if (failed !== undefined) throw new Error(`${g.name}: ${failed}`);
}

/**
 * Each token of `g`'s pool once, a few at a time: an account's first request waits for auth to verify its
 * token, and on a busy machine a few of a thousand miss the deadline (503, and after five in a row auth's
 * breaker answers the rest 503 for a second). Sent again, after that second, until every one is a 200.
 */
async function prime(g: Gateway): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const failed = await quotes(g, g.tokens.length, 4);
    if (failed === undefined) return;
    if (attempt === 5) throw new Error(`${g.name}, its pool's tokens sent once each, 5 times: ${failed}`);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
}

/** `amount` quotes through `g`, its tokens in turn: what was not a 200, or undefined when all were. */
async function quotes(g: Gateway, amount: number, connections: number): Promise<string | undefined> {
  let next = 0;
  const result = await autocannon({
    url: g.url,
    connections,
    amount,
    requests: [
      {
        setupRequest: (req) => {
          const token = g.tokens[next++ % g.tokens.length];
          return { ...req, headers: { ...req.headers, authorization: `Bearer ${token}` } };
        },
      },
    ],
  });
  if (result.non2xx === 0 && result.errors === 0 && result.timeouts === 0) return undefined;
  return (
    `${result.non2xx} answers other than 200 (by status: ${JSON.stringify(result.statusCodeStats)}), ` +
    `${result.errors} errors, ${result.timeouts} timeouts`
  );
}

/** bench/bare-server.ts under callgrind, as the instructions' reference: its quote-shaped route. */
async function startBare(): Promise<Gateway> {
  const port = await freePort();
  const name = 'bare fastify';
  const child = spawnNode(name, [join(ROOT, 'bench/bare-server.ts')], { ...process.env, PORT: String(port) });
  atProcessEnd(() => child.kill('SIGKILL'));
  const url = `http://127.0.0.1:${port}/bare`;
  await waitForHttp(url, READY_MS, () => child.exitCode !== null);
  return { side: 'bare', name, child, url, tokens: [''], runs: [], beside: [], collector: [], young: [] };
}

/** The last round's instructions a request by function: what moved most from base to tree, and the tree's largest. */
function printFunctions(gateways: Gateway[], baseName: string): void {
  const base = gateways.find((g) => g.side === 'base')?.functions;
  const tree = gateways.find((g) => g.side === 'tree')?.functions;
  if (!base || !tree) return;
  const name = (s: string) =>
    s.replace(/file:\/\/\S*\/(node_modules|services|packages)\//, '$1/').slice(0, 110);
  console.log(
    `instructions a request by function, the last round (${baseName} → this tree), those that moved most:`,
  );
  for (const d of largestDifferences(base, tree, REQUESTS, 25))
    console.log(`  ${figure(d.base).padStart(8)} → ${figure(d.tree).padStart(8)}  ${name(d.name)}`);
  console.log("this tree's largest:");
  for (const [fn, n] of [...tree].sort((a, b) => b[1] - a[1]).slice(0, 25))
    console.log(`  ${figure(n / REQUESTS).padStart(8)}  ${name(fn)}`);
  const callers = gateways.find((g) => g.side === 'tree')?.callers;
  if (!callers) return;
  console.log(`this tree's callers of ${CALLERS}, their calls' instructions a request (inclusive):`);
  for (const [fn, n] of [...callers].sort((a, b) => b[1] - a[1]).slice(0, 40))
    console.log(`  ${figure(n / REQUESTS).padStart(8)}  ${name(fn)}`);
}

async function main(): Promise<void> {
  if (!BASE) throw new Error('BENCH_AB_BASE: set it to the commit whose gateway this tree is compared with');
  if (COUNTED) requireCallgrind();
  const baseName = shortCommit(BASE);
  atProcessEnd(() => rmSync(WORK, { recursive: true, force: true }));
  const bundles = {
    base: join(WORK, 'base', 'server.js'),
    tree: join(WORK, 'tree', 'server.js'),
  };
  const baseSource = sourceAt(BASE, ['services/gateway/src'], join(WORK, 'base', 'src'));
  await bundleEntry(join(baseSource, 'services/gateway/src/server.ts'), bundles.base);
  await bundleEntry(join(ROOT, 'services/gateway/src/server.ts'), bundles.tree);

  await runBundled();
  console.log('starting the platform (bundled) and loading the default dataset…');
  const stack = await startStack({ LOG_LEVEL: 'warn' }, { serviceNodeArgs: BENCH_SERVICE_NODE_ARGS });
  const gateways: Gateway[] = [];
  try {
    await loadDefaultDataset(stack, { quiet: true });

    if (ACCOUNTS > 1) await createOpenPlan(stack, POOL_PLAN);
    const startGateway = async (side: 'base' | 'tree', i: number): Promise<Gateway> => {
      const port = await freePort();
      const opsPort = await freePort();
      const name = `${side === 'base' ? baseName : 'tree'} #${i + 1}`;
      const flags = [...NODE_ARGS, ...(side === 'tree' ? TREE_NODE_ARGS : [])];
      const child = spawnNode(name, [...flags, bundles[side]], {
        ...process.env,
        SHUTDOWN_GRACE_MS: '3000',
        ...stack.envOf('gateway'),
        LOG_LEVEL: 'warn',
        PORT: String(port),
        OPS_PORT: String(opsPort),
        ...DEADLINES,
      });
      atProcessEnd(() => child.kill('SIGKILL'));
      await waitForReady({ name, opsPort }, READY_MS, () => child.exitCode !== null);
      const tokens =
        ACCOUNTS > 1
          ? (await stack.admin('token-pool', '--plan', POOL_PLAN, '--count', String(ACCOUNTS))).split('\n')
          : [(await stack.admin('demo-token', '--plan', 'load-test')).split('\n').at(-1)!];
      return {
        side,
        name,
        child,
        url: `http://127.0.0.1:${port}${QUOTE}`,
        tokens,
        runs: [],
        beside: [],
        collector: [],
        ...(child.stdout
          ? { collections: new CollectionLog(child.stdout, (line) => console.log(`${name}: ${line}`)) }
          : {}),
        young: [],
      };
    };
    for (let i = 0; i < PROCESSES; i++) {
      // Each pair's start order alternates: in two runs of one source on both sides the later-started
      // process of each pair read dearer (contributors.md, 6 December). Listed base first either way.
      const order = i % 2 === 0 ? (['base', 'tree'] as const) : (['tree', 'base'] as const);
      const pair = new Map<'base' | 'tree', Gateway>();
      for (const side of order) pair.set(side, await startGateway(side, i));
      gateways.push(pair.get('base')!, pair.get('tree')!);
    }
    const bare = COUNTED ? await startBare() : undefined;
    console.log(
      `metered quote${ACCOUNTS > 1 ? ` over ${ACCOUNTS} accounts a gateway (${POOL_PLAN}: a burst cap no run reaches)` : ''}, ` +
        `${PROCESSES} gateway processes of ${baseName} and of this tree, ${ROUNDS} rounds of ` +
        `${REQUESTS} requests each (${WARMUP} before the first), ${CONNECTIONS} connections; ${COUNTED ? 'instructions (callgrind)' : 'CPU µs'} a request` +
        (bare ? '; bare fastify beside them, counted the same way' : ''),
    );
    const all = bare ? [...gateways, bare] : gateways;
    for (const g of all) if (g.tokens.length > 1) await prime(g);
    for (const g of all) if (WARMUP > 0) await ask(g, WARMUP);
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? all : [...all].reverse();
      const line: string[] = [];
      for (const g of order) line.push(await measured(g, REQUESTS, () => ask(g, REQUESTS)));
      console.log(`round ${round + 1}: ${line.join(' | ')}`);
    }
    const sides = { base: [] as number[], tree: [] as number[] };
    for (const g of gateways) {
      const m = median(g.runs);
      sides[g.side as 'base' | 'tree'].push(m);
      console.log(`  ${g.name.padEnd(14)} median ${figure(m)} ${unit} a request`);
    }
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const [base, tree] = [mean(sides.base), mean(sides.tree)];
    console.log(
      `${baseName}: ${figure(base)} ${unit} a request (mean of its processes' medians); this tree: ${figure(tree)} ` +
        `(${((tree / base - 1) * 100).toFixed(COUNTED ? 2 : 1)}%); a difference within the spread of one side's processes is not one`,
    );
    if (bare) {
      const b = median(bare.runs);
      console.log(
        `bare fastify: ${figure(b)} ${unit} a request (its rounds ${bare.runs.map(figure).join(', ')}); ` +
          `${baseName} ${(base / b).toFixed(3)} times it, this tree ${(tree / b).toFixed(3)}`,
      );
    }
    // Each tree process against the base process run just before or after it in the same round: the
    // machine's speed, which moves the rounds by half, is nearly the same for both of a pair.
    const ratios: number[] = [];
    for (let i = 0; i < gateways.length; i += 2)
      for (let r = 0; r < ROUNDS; r++) ratios.push(gateways[i + 1]!.runs[r]! / gateways[i]!.runs[r]!);
    const below = ratios.filter((x) => x < 1).length;
    console.log(
      `pairs run beside each other: this tree over ${baseName} ${median(ratios).toFixed(COUNTED ? 4 : 3)} (median of ${ratios.length}), ` +
        `below it in ${below} of ${ratios.length} [${ratios.map((x) => x.toFixed(COUNTED ? 4 : 2)).join(', ')}]`,
    );
    if (!COUNTED)
      for (const side of ['base', 'tree'] as const)
        console.log(
          `young generation, ${side === 'base' ? baseName : 'this tree'}: ` +
            youngLine(gateways.filter((g) => g.side === side).flatMap((g) => g.young)),
        );
    if (COUNTED) {
      // Under callgrind the collector is partly the slowdown's (bench/callgrind.ts): compare what is outside it.
      const outside = { base: [] as number[], tree: [] as number[] };
      for (const g of gateways) outside[g.side as 'base' | 'tree'].push(median(g.beside));
      const [b, t] = [mean(outside.base), mean(outside.tree)];
      console.log(
        `outside the garbage collector: ${baseName} ${figure(b)} instructions a request, this tree ${figure(t)} ` +
          `(${((t / b - 1) * 100).toFixed(2)}%)` +
          (bare ? `; bare fastify ${figure(median(bare.beside))}` : ''),
      );
      printFunctions(gateways, baseName);
    }
  } finally {
    await stack.shutdown();
  }
}

await main();
process.exit(0);
