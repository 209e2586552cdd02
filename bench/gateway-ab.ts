// A change to the gateway, before and after, on the metered quote: `npx tsx bench/gateway-ab.ts` with
// BENCH_AB_BASE=<commit>. Figures, never assertions. One stack (bench/run.ts's: bundled services, the
// default dataset), and beside its own gateway several more started on it: BENCH_AB_PROCESSES (3) of the
// base commit's gateway (services/gateway/src and the packages from git, `sourceAt`) and as many of this
// tree's, each bundled as `make build` bundles a service and serving a `load-test` account of its own.
// One process is not a sample: two of one build, asked in the same rounds, differed by up to a tenth in
// CPU a request (contributors.md, 30 November). Each round asks every gateway BENCH_AB_REQUESTS (30,000)
// quotes at 50 connections, the order reversed every other round; each process's CPU a request comes from
// /proc over its run. Printed: every round, each process's median, and each side's mean of medians.
//   BENCH_AB_ROUNDS (6), BENCH_AB_WARMUP (60,000 quotes a gateway before the first round).
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { bundleEntry } from '../scripts/lib/bundle-options.ts';
import { ROOT } from '../scripts/lib/services.ts';
import { nodeArgsFor } from '../test/bundles.ts';
import { freePort } from '../test/ports.ts';
import { atProcessEnd } from '../test/process-end.ts';
import { startStack } from '../test/stack.ts';
import { runBundled } from './bundled.ts';
import { cpuOf } from './cpu.ts';
import { envInt } from './env.ts';
import { median } from './ledger-goals.ts';
import { waitForGauge, waitForReady } from './ops-metrics.ts';
import { QUOTE } from './run.ts';
import { shortCommit, sourceAt } from './source-at.ts';

const BASE = process.env.BENCH_AB_BASE?.trim();
const PROCESSES = envInt('BENCH_AB_PROCESSES', 3);
const ROUNDS = envInt('BENCH_AB_ROUNDS', 6);
const REQUESTS = envInt('BENCH_AB_REQUESTS', 30_000);
const WARMUP = envInt('BENCH_AB_WARMUP', 60_000, 0);
const WORK = join(ROOT, '.local', `bench-gateway-ab-${process.pid}`);
/** Node's flags for this tree's gateways only: with BENCH_AB_BASE=HEAD, a runtime setting measured alone. */
const TREE_NODE_ARGS = (process.env.BENCH_AB_TREE_NODE_ARGS ?? '').split(' ').filter(Boolean);

interface Gateway {
  side: 'base' | 'tree';
  name: string;
  child: ChildProcess;
  url: string;
  token: string;
  /** CPU µs a request, a run each round. */
  runs: number[];
}

/** A run of `amount` quotes through `g`; any answer but a 200 fails the bench. */
async function ask(g: Gateway, amount: number): Promise<void> {
  const result = await autocannon({
    url: g.url,
    connections: 50,
    amount,
    headers: { authorization: `Bearer ${g.token}` },
  });
  if (result.non2xx > 0 || result.errors > 0 || result.timeouts > 0)
    throw new Error(
      `${g.name}: ${result.non2xx} answers other than 200, ${result.errors} errors, ${result.timeouts} timeouts`,
    );
}

async function main(): Promise<void> {
  if (!BASE) throw new Error('BENCH_AB_BASE: set it to the commit whose gateway this tree is compared with');
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
  const stack = await startStack({ LOG_LEVEL: 'warn' });
  const gateways: Gateway[] = [];
  try {
    const equities = stack.schemas.find((name) => name.endsWith('_equities_data'))!;
    const loaded = spawnSync(
      process.execPath,
      [...nodeArgsFor('services/equities-data/src/cli.ts'), 'load-default'],
      { env: { ...process.env, DB_SCHEMA: equities }, stdio: ['ignore', 'ignore', 'inherit'] },
    );
    if (loaded.status !== 0) throw new Error('could not load the equities dataset');
    const probe = { name: 'equities-data', opsPort: stack.procs.get('equities-data')!.opsPort };
    await waitForGauge(probe, 'equities_data_last_session_timestamp_seconds', 60_000);

    for (let i = 0; i < PROCESSES; i++) {
      for (const side of ['base', 'tree'] as const) {
        const port = await freePort();
        const opsPort = await freePort();
        const name = `${side === 'base' ? baseName : 'tree'} #${i + 1}`;
        const flags = side === 'tree' ? TREE_NODE_ARGS : [];
        const child = spawn(process.execPath, [...flags, bundles[side]], {
          env: {
            ...process.env,
            SHUTDOWN_GRACE_MS: '3000',
            ...stack.envOf('gateway'),
            LOG_LEVEL: 'warn',
            PORT: String(port),
            OPS_PORT: String(opsPort),
          },
          stdio: ['ignore', 'inherit', 'inherit'],
        });
        atProcessEnd(() => child.kill('SIGKILL'));
        await waitForReady({ name, opsPort }, 60_000, () => child.exitCode !== null);
        const token = (await stack.admin('demo-token', '--plan', 'load-test')).split('\n').at(-1)!;
        gateways.push({ side, name, child, url: `http://127.0.0.1:${port}${QUOTE}`, token, runs: [] });
      }
    }
    console.log(
      `metered quote, ${PROCESSES} gateway processes of ${baseName} and of this tree, ${ROUNDS} rounds of ` +
        `${REQUESTS} requests each (${WARMUP} before the first), 50 connections; CPU µs a request`,
    );
    for (const g of gateways) if (WARMUP > 0) await ask(g, WARMUP);
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? gateways : [...gateways].reverse();
      const line: string[] = [];
      for (const g of order) {
        const before = cpuOf(g.child.pid!)!.own;
        await ask(g, REQUESTS);
        const us = ((cpuOf(g.child.pid!)!.own - before) * 1e6) / REQUESTS;
        g.runs.push(us);
        line.push(`${g.name} ${us.toFixed(1)}`);
      }
      console.log(`round ${round + 1}: ${line.join(' | ')}`);
    }
    const sides = { base: [] as number[], tree: [] as number[] };
    for (const g of gateways) {
      const m = median(g.runs);
      sides[g.side].push(m);
      console.log(`  ${g.name.padEnd(14)} median ${m.toFixed(1)} µs a request`);
    }
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const [base, tree] = [mean(sides.base), mean(sides.tree)];
    console.log(
      `${baseName}: ${base.toFixed(1)} µs a request (mean of its processes' medians); this tree: ${tree.toFixed(1)} ` +
        `(${((tree / base - 1) * 100).toFixed(1)}%); a difference within the spread of one side's processes is not one`,
    );
    // Each tree process against the base process run just before or after it in the same round: the
    // machine's speed, which moves the rounds by half, is nearly the same for both of a pair.
    const ratios: number[] = [];
    for (let i = 0; i < gateways.length; i += 2)
      for (let r = 0; r < ROUNDS; r++) ratios.push(gateways[i + 1]!.runs[r]! / gateways[i]!.runs[r]!);
    const below = ratios.filter((x) => x < 1).length;
    console.log(
      `pairs run beside each other: this tree over ${baseName} ${median(ratios).toFixed(3)} (median of ${ratios.length}), ` +
        `below it in ${below} of ${ratios.length} [${ratios.map((x) => x.toFixed(2)).join(', ')}]`,
    );
  } finally {
    await stack.shutdown();
  }
}

await main();
process.exit(0);
