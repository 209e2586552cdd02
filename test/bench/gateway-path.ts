// `make bench` (and on its own: `npx tsx test/bench/gateway-path.ts`): the gateway's own HTTP path (issue
// 49) beside bare fastify, in one run. Figures, never assertions. The gateway is `buildGateway` in a
// process of its own (test/bench/gateway-path-server.ts, bundled as `make build` bundles services), with
// in-process stand-ins for auth and the ledger and no metering: only routes that are not metered are
// asked. Bare fastify is `make bench`'s reference (bench/bare-server.ts, quote-shaped). Each run is
// bench/run.ts's `load` (autocannon from this process, each process's CPU from /proc over the run); the
// scenarios alternate with bare fastify round by round, so each round's ratio is against the bare run
// beside it. Nothing else is started (no Postgres, NATS or platform).
//   BENCH_PATH_BASELINE=<commit>: the gateway's source at that commit as well (services/gateway/src, the
//     packages and this bench's server, from git), a second process asked the same scenarios in the same
//     rounds: a change's before and after in one run, on a machine whose speed moves from minute to minute.
//   BENCH_PATH_SCENARIOS=<keys>: only those scenarios (usage, usage-ae, no-token, not-found, openapi-br).
//   BENCH_PROFILE_DIR=<folder>: the gateways run under node --cpu-prof (bench/profile-top.ts reads them).
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { envChoices, envInt } from '../../bench/env.ts';
import { median } from '../../bench/ledger-goals.ts';
import { load } from '../../bench/run.ts';
import { shortCommit, sourceAt } from '../../bench/source-at.ts';
import { bundleEntry } from '../../scripts/lib/bundle-options.ts';
import { ROOT } from '../../scripts/lib/services.ts';
import { freePort, release } from '../ports.ts';
import { atProcessEnd } from '../process-end.ts';
import { SCENARIOS, type Scenario, start, stop } from './gateway-path-setup.ts';

/** Rounds of bare fastify then every scenario; medians over them. */
const ROUNDS = envInt('BENCH_PATH_ROUNDS', 3);
const REQUESTS = envInt('BENCH_PATH_REQUESTS', 30_000);
/** Before each measured run, not measured. */
const WARMUP = envInt('BENCH_PATH_WARMUP', 5_000, 0);
/** Of each route before the first round, not measured: a gateway's JIT settles over tens of thousands. */
const FIRST_WARMUP = envInt('BENCH_PATH_FIRST_WARMUP', 40_000, 0);
/** A commit whose gateway runs beside this tree's, in the same rounds. */
const BASELINE = process.env.BENCH_PATH_BASELINE?.trim() || undefined;
const PROFILE_DIR = process.env.BENCH_PROFILE_DIR;
/** CPU µs a request measured by taking parts away (docs/contributors.md, issue 38's third look). */
const ISSUE = { gatewayNoMetering: 73, bare: 27 };

type Figure = Awaited<ReturnType<typeof load>>;

/** `BENCH_PATH_SCENARIOS=usage,not-found`: only those (all when unset). */
const chosen = envChoices(
  'BENCH_PATH_SCENARIOS',
  SCENARIOS.map((s) => s.key),
);
const scenarios = chosen.length > 0 ? SCENARIOS.filter((s) => chosen.includes(s.key)) : SCENARIOS;

const WORK = join(ROOT, '.local', `bench-gateway-path-${process.pid}`);

/**
 * Bundles the gateway process as `make build` bundles a service, from this tree or from `commit` (its
 * services/gateway/src, its packages and this bench's server taken from git into a folder of the run's
 * own: `sourceAt`). Removed when this process ends.
 */
async function bundleServer(commit?: string): Promise<string> {
  const dir = join(WORK, commit ?? 'tree');
  mkdirSync(dir, { recursive: true });
  const source = commit
    ? sourceAt(commit, ['services/gateway/src', 'test/bench/gateway-path-server.ts'], join(dir, 'src'))
    : ROOT;
  const outfile = join(dir, 'server.js');
  await bundleEntry(join(source, 'test/bench/gateway-path-server.ts'), outfile);
  return outfile;
}

const us = (f: Figure, group: string) => (f.cpuPer1k.get(group) ?? Number.NaN) * 1_000;
const fmt = (n: number) => n.toFixed(1);

/** Anything but the scenario's own status (or a connection error, a timeout) makes the figure meaningless. */
function unexpected(f: Figure, status: number): string[] {
  return Object.entries(f.failed)
    .filter(([code]) => code !== String(status))
    .map(([code, n]) => `${f.name}: ${n} × ${code}`);
}

/** A gateway under test: this tree's, or the baseline commit's. */
interface Gateway {
  /** Its CPU group and its label in the table. */
  name: string;
  port: number;
  child: ChildProcess;
}

async function main(): Promise<void> {
  atProcessEnd(() => rmSync(WORK, { recursive: true, force: true }));
  const bundles: [string, string][] = [['gateway', await bundleServer()]];
  if (BASELINE) {
    bundles.push([`at ${shortCommit(BASELINE)}`, await bundleServer(BASELINE)]);
  }
  const profile = PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : [];
  const barePort = await freePort();
  const bare = await start(['bench/bare-server.ts'], barePort);
  const gateways: Gateway[] = [];
  for (const [name, bundle] of bundles) {
    const port = await freePort();
    gateways.push({ name, port, child: await start([...profile, bundle], port) });
  }
  const groups = [
    { name: 'bare', pids: () => [bare.pid!] },
    ...gateways.map((g) => ({ name: g.name, pids: () => [g.child.pid!] })),
    { name: 'autocannon', pids: () => [process.pid] },
  ];
  const bareUrl = `http://127.0.0.1:${barePort}/bare`;
  const urlOf = (g: Gateway, s: Scenario) => `http://127.0.0.1:${g.port}${s.path}`;
  const problems: string[] = [];
  try {
    console.log(
      `gateway path (issue 49): ${ROUNDS} rounds of ${REQUESTS} requests a run after ${WARMUP} not measured ` +
        `(and ${FIRST_WARMUP} of each route before the first), ${process.env.BENCH_CONNECTIONS ?? 50} connections; ` +
        `gateways: ${gateways.map((g) => g.name).join(', ')}; node ${process.version}`,
    );
    if (FIRST_WARMUP > 0) {
      await load('warm-up bare', bareUrl, { groups, front: 'bare', requests: FIRST_WARMUP, warmup: 0 });
      for (const g of gateways)
        for (const s of scenarios)
          await load(`warm-up ${s.key}`, urlOf(g, s), {
            groups,
            front: g.name,
            headers: s.headers,
            requests: Math.min(FIRST_WARMUP, s.requests ?? FIRST_WARMUP),
            warmup: 0,
          });
    }
    const bareRuns: Figure[] = [];
    /** By gateway, then scenario: one figure a round. */
    const runs = new Map(
      gateways.map((g) => [g.name, new Map(scenarios.map((s) => [s.key, [] as Figure[]]))]),
    );
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
      // Each scenario through every gateway in turn, the order changing round by round.
      const order = round % 2 === 0 ? gateways : [...gateways].reverse();
      for (const s of scenarios)
        for (const g of order) {
          const f = await load(`${g.name}: ${s.name}`, urlOf(g, s), {
            groups,
            front: g.name,
            headers: s.headers,
            requests: s.requests ?? REQUESTS,
            warmup: Math.min(WARMUP, s.requests ?? WARMUP),
          });
          problems.push(...unexpected(f, s.status));
          runs.get(g.name)!.get(s.key)!.push(f);
        }
      console.log(
        `round ${round + 1}: bare ${fmt(us(b, 'bare'))} µs; ` +
          gateways
            .map(
              (g) =>
                `${g.name}: ` +
                scenarios
                  .map((s) => `${s.key} ${fmt(us(runs.get(g.name)!.get(s.key)![round]!, g.name))}`)
                  .join(', '),
            )
            .join('; '),
      );
    }

    const bareUs = bareRuns.map((f) => us(f, 'bare'));
    console.log(
      '\nCPU µs a request of the process answering HTTP (from /proc), median over the rounds [each round]; ' +
        '÷bare: the median of each round over the bare run beside it',
    );
    const row = (name: string, fs: Figure[], group: string, ratios: number[]) => {
      const values = fs.map((f) => us(f, group));
      console.log(
        [
          name.padEnd(54),
          median(fs.map((f) => f.rps))
            .toFixed(0)
            .padStart(7),
          String(median(fs.map((f) => f.p99))).padStart(4),
          fmt(median(values)).padStart(7),
          median(ratios).toFixed(2).padStart(6),
          ` [${values.map(fmt).join(', ')}]`,
        ].join(' '),
      );
    };
    console.log(
      ['run'.padEnd(54), 'req/s'.padStart(7), 'p99'.padStart(4), 'µs'.padStart(7), ' ÷bare', ' rounds'].join(
        ' ',
      ),
    );
    row(
      'bare fastify (bench/bare-server.ts)',
      bareRuns,
      'bare',
      bareUs.map(() => 1),
    );
    for (const s of scenarios)
      for (const g of gateways) {
        const fs = runs.get(g.name)!.get(s.key)!;
        row(
          `${g.name}: ${s.name}`,
          fs,
          g.name,
          fs.map((f, i) => us(f, g.name) / bareUs[i]!),
        );
      }
    if (gateways.length > 1) {
      const [tree, baseline] = gateways as [Gateway, Gateway];
      console.log(
        `\n${tree.name} over ${baseline.name}, CPU µs a request, each round's runs beside each other (median [each round]):`,
      );
      for (const s of scenarios) {
        const ours = runs.get(tree.name)!.get(s.key)!;
        const theirs = runs.get(baseline.name)!.get(s.key)!;
        const ratios = ours.map((f, i) => us(f, tree.name) / us(theirs[i]!, baseline.name));
        const saved = ours.map((f, i) => us(theirs[i]!, baseline.name) - us(f, tree.name));
        console.log(
          `  ${s.name.padEnd(44)} ${median(ratios).toFixed(2)} [${ratios.map((r) => r.toFixed(2)).join(', ')}]; ` +
            `${fmt(median(saved))} µs fewer`,
        );
      }
    }
    console.log(
      `autocannon (this process): ${fmt(median(bareRuns.map((f) => us(f, 'autocannon'))))} µs a request on the bare runs. ` +
        `For scale, issue 38's third look: the gateway with no metering ${ISSUE.gatewayNoMetering} µs, bare ${ISSUE.bare} ` +
        `(${(ISSUE.gatewayNoMetering / ISSUE.bare).toFixed(2)}×; the whole quote there, its token, document cache and gRPC included).`,
    );
  } finally {
    // Each waited for: a gateway under --cpu-prof writes its profile as it exits.
    await Promise.all([bare, ...gateways.map((g) => g.child)].map(stop));
    release(barePort);
    for (const g of gateways) release(g.port);
  }
  if (problems.length > 0) {
    console.error(`\nBENCH FAILED: answers other than each run's own status\n  ${problems.join('\n  ')}`);
    process.exit(1);
  }
}

await main();
