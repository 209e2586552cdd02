// `make bench` (and on its own: `npx tsx test/bench/gateway-path.ts`): the gateway's own HTTP path (issue
// 49) beside bare fastify, in one run. Figures, never assertions. The gateway is `buildGateway` in a
// process of its own (test/bench/gateway-path-server.ts, bundled as `make build` bundles services), with
// in-process stand-ins for auth and the ledger and no metering: only routes that are not metered are
// asked. Bare fastify is `make bench`'s reference (bench/bare-server.ts, quote-shaped). Each run is
// bench/run.ts's `load` (autocannon from this process, each process's CPU from /proc over the run); the
// scenarios alternate with bare fastify round by round, so each round's ratio is against the bare run
// beside it. Nothing else is started (no Postgres, NATS or platform).
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { DEV_TAG_KEYS, generateToken, parseTagKeys } from '@mdp/tokens';
import { build } from 'esbuild';
import { envInt } from '../../bench/env.ts';
import { median } from '../../bench/ledger-goals.ts';
import { load } from '../../bench/run.ts';
import { externalsExceptWorkspace, NODE_BUNDLE_OPTIONS } from '../../scripts/lib/bundle-options.ts';
import { ROOT } from '../../scripts/lib/services.ts';
import { freePort, release } from '../ports.ts';
import { atProcessEnd } from '../process-end.ts';

/** Rounds of bare fastify then every scenario; medians over them. */
const ROUNDS = envInt('BENCH_PATH_ROUNDS', 3);
const REQUESTS = envInt('BENCH_PATH_REQUESTS', 30_000);
/** Before each measured run, not measured. */
const WARMUP = envInt('BENCH_PATH_WARMUP', 5_000, 0);
/** Of each route before the first round, not measured: a gateway's JIT settles over tens of thousands. */
const FIRST_WARMUP = envInt('BENCH_PATH_FIRST_WARMUP', 40_000, 0);
/** CPU µs a request measured by taking parts away (docs/contributors.md, issue 38's third look). */
const ISSUE = { gatewayNoMetering: 73, bare: 27 };

type Figure = Awaited<ReturnType<typeof load>>;

interface Scenario {
  key: string;
  name: string;
  path: string;
  headers: Record<string, string>;
  /** The status every answer must have; anything else fails the run. */
  status: number;
}

const token = generateToken(parseTagKeys(DEV_TAG_KEYS));
const bearer = { authorization: `Bearer ${token}` };
/** What a browser or an HTTP library sends: the answer is under the compression threshold. */
const acceptEncoding = { 'accept-encoding': 'gzip, deflate, br' };
const SCENARIOS: Scenario[] = [
  {
    key: 'usage',
    name: 'GET /v1/me/usage, 200 (token, envelope)',
    path: '/v1/me/usage',
    headers: bearer,
    status: 200,
  },
  {
    key: 'usage-ae',
    name: 'the same with Accept-Encoding',
    path: '/v1/me/usage',
    headers: { ...bearer, ...acceptEncoding },
    status: 200,
  },
  {
    key: 'no-token',
    name: 'GET /v1/stocks/X/quote, 401 (no token)',
    path: '/v1/stocks/ARAVALIHOU/quote',
    headers: {},
    status: 401,
  },
  { key: 'not-found', name: 'GET /v1/nope, 404', path: '/v1/nope', headers: {}, status: 404 },
];

/** Bundles the gateway process as `make build` bundles a service; removed when this process ends. */
async function bundleServer(): Promise<string> {
  const dir = join(ROOT, '.local', `bench-gateway-path-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  atProcessEnd(() => rmSync(dir, { recursive: true, force: true }));
  const outfile = join(dir, 'server.js');
  await build({
    entryPoints: [join(ROOT, 'test/bench/gateway-path-server.ts')],
    outfile,
    ...NODE_BUNDLE_OPTIONS,
    plugins: [externalsExceptWorkspace(dir)],
  });
  return outfile;
}

async function start(args: string[], port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  atProcessEnd(() => child.kill('SIGKILL'));
  const until = Date.now() + 60_000;
  for (;;) {
    const up = await fetch(`http://127.0.0.1:${port}/`).then(
      () => true,
      () => false,
    );
    if (up) return child;
    if (child.exitCode !== null || Date.now() > until)
      throw new Error(`${args.join(' ')} did not start (exit ${child.exitCode})`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const us = (f: Figure, group: string) => (f.cpuPer1k.get(group) ?? Number.NaN) * 1_000;
const fmt = (n: number) => n.toFixed(1);

/** Anything but the scenario's own status (or a connection error, a timeout) makes the figure meaningless. */
function unexpected(f: Figure, status: number): string[] {
  return Object.entries(f.failed)
    .filter(([code]) => code !== String(status))
    .map(([code, n]) => `${f.name}: ${n} × ${code}`);
}

async function main(): Promise<void> {
  const server = await bundleServer();
  const barePort = await freePort();
  const gatewayPort = await freePort();
  const bare = await start(['bench/bare-server.ts'], barePort);
  const gateway = await start([server], gatewayPort);
  const groups = [
    { name: 'bare', pids: () => [bare.pid!] },
    { name: 'gateway', pids: () => [gateway.pid!] },
    { name: 'autocannon', pids: () => [process.pid] },
  ];
  const bareUrl = `http://127.0.0.1:${barePort}/bare`;
  const urlOf = (s: Scenario) => `http://127.0.0.1:${gatewayPort}${s.path}`;
  const problems: string[] = [];
  try {
    console.log(
      `gateway path (issue 49): ${ROUNDS} rounds of ${REQUESTS} requests a run after ${WARMUP} not measured ` +
        `(and ${FIRST_WARMUP} of each route before the first), 50 connections unless BENCH_CONNECTIONS; node ${process.version}`,
    );
    if (FIRST_WARMUP > 0) {
      await load('warm-up bare', bareUrl, { groups, front: 'bare', requests: FIRST_WARMUP, warmup: 0 });
      for (const s of SCENARIOS)
        await load(`warm-up ${s.key}`, urlOf(s), {
          groups,
          headers: s.headers,
          requests: FIRST_WARMUP,
          warmup: 0,
        });
    }
    const bareRuns: Figure[] = [];
    const runs = new Map<string, Figure[]>(SCENARIOS.map((s) => [s.key, []]));
    for (let round = 0; round < ROUNDS; round++) {
      const b = await load('bare fastify', bareUrl, {
        groups,
        front: 'bare',
        bare: true,
        requests: REQUESTS,
        warmup: WARMUP,
      });
      problems.push(...unexpected(b, 200));
      bareRuns.push(b);
      for (const s of SCENARIOS) {
        const f = await load(s.name, urlOf(s), {
          groups,
          headers: s.headers,
          requests: REQUESTS,
          warmup: WARMUP,
        });
        problems.push(...unexpected(f, s.status));
        runs.get(s.key)!.push(f);
      }
      console.log(
        `round ${round + 1}: bare ${fmt(us(b, 'bare'))} µs; ` +
          SCENARIOS.map((s) => `${s.key} ${fmt(us(runs.get(s.key)![round]!, 'gateway'))}`).join(', '),
      );
    }

    const bareUs = bareRuns.map((f) => us(f, 'bare'));
    const bareMedian = median(bareUs);
    console.log(
      '\nCPU µs a request of the process answering HTTP (from /proc), median over the rounds [each round]; ' +
        '÷bare: the median of each round over the bare run beside it',
    );
    const head = [
      'run'.padEnd(44),
      'req/s'.padStart(7),
      'p99'.padStart(4),
      'µs'.padStart(7),
      ' ÷bare',
      ' rounds',
    ];
    console.log(head.join(' '));
    console.log(
      [
        'bare fastify (bench/bare-server.ts)'.padEnd(44),
        median(bareRuns.map((f) => f.rps))
          .toFixed(0)
          .padStart(7),
        String(median(bareRuns.map((f) => f.p99))).padStart(4),
        fmt(bareMedian).padStart(7),
        '  1.00',
        ` [${bareUs.map(fmt).join(', ')}]`,
      ].join(' '),
    );
    for (const s of SCENARIOS) {
      const fs = runs.get(s.key)!;
      const values = fs.map((f) => us(f, 'gateway'));
      const ratios = fs.map((f, i) => us(f, 'gateway') / bareUs[i]!);
      console.log(
        [
          s.name.padEnd(44),
          median(fs.map((f) => f.rps))
            .toFixed(0)
            .padStart(7),
          String(median(fs.map((f) => f.p99))).padStart(4),
          fmt(median(values)).padStart(7),
          median(ratios).toFixed(2).padStart(6),
          ` [${values.map(fmt).join(', ')}]`,
        ].join(' '),
      );
    }
    console.log(
      `autocannon (this process): ${fmt(median(bareRuns.map((f) => us(f, 'autocannon'))))} µs a request on the bare runs. ` +
        `For scale, issue 38's third look: the gateway with no metering ${ISSUE.gatewayNoMetering} µs, bare ${ISSUE.bare} ` +
        `(${(ISSUE.gatewayNoMetering / ISSUE.bare).toFixed(2)}×; the whole quote there, its token, document cache and gRPC included).`,
    );
  } finally {
    bare.kill('SIGTERM');
    gateway.kill('SIGTERM');
    release(barePort);
    release(gatewayPort);
  }
  if (problems.length > 0) {
    console.error(`\nBENCH FAILED: answers other than each run's own status\n  ${problems.join('\n  ')}`);
    process.exit(1);
  }
}

await main();
