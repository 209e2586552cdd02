// What makes the metered quote's p99 at 50 connections: a stack as `make bench` starts it (private NATS
// as deployed, the default dataset), one `load-test` account, and BENCH_STALL_RUNS runs of
// BENCH_STALL_SECONDS each under `perf sched record` (root, Debian's `linux-perf`), every answer's end
// and latency kept. For each run: req/s, p50 and p99; the cores each process's threads held over the run
// and within the spans the slowest 1% waited, the largest gains there first; and for the threads outside
// the platform that gained most (a kernel thread, another program), how many of the slowest answers
// waited through one of their bursts against chance, and the p99 of the answers clear of them.
// Figures, not assertions (contributors.md, "What holds the cores in a stall").
import { execFileSync, spawn } from 'node:child_process';
import type { EventEmitter } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { atProcessEnd } from '../test/process-end.ts';
import { startStack } from '../test/stack.ts';
import { runBundled } from './bundled.ts';
import { listenerPid, withChildren } from './cpu.ts';
import { loadDefaultDataset } from './default-dataset.ts';
import { envInt } from './env.ts';
import { benchNats } from './nats-as-deployed.ts';
import { BENCH_SERVICE_NODE_ARGS } from './ops-metrics.ts';
import {
  type Answer,
  bursts,
  clearOf,
  coresWithin,
  overlapping,
  parseTimehist,
  quantileMs,
  type Run,
  slowest,
} from './sched-timeline.ts';

const RUNS = envInt('BENCH_STALL_RUNS', 3);
const SECONDS = envInt('BENCH_STALL_SECONDS', 10);
const WARMUP = envInt('BENCH_STALL_WARMUP', 60_000, 0);
const CONNECTIONS = envInt('BENCH_CONNECTIONS', 50);
/** A default-dataset quote (bench/run.ts's). */
const QUOTE = '/v1/quotes?symbols=ARAVALIHOU,ANUPAMIRO,EVERESTDYE';
/** Runs of one thread closer than this are one burst. */
const BURST_GAP_S = 0.06;

const monotonicS = () => Number(process.hrtime.bigint()) / 1e9;

function perfAvailable(): void {
  try {
    execFileSync('perf', ['--version'], { stdio: 'ignore' });
  } catch {
    throw new Error(
      'bench/stalls.ts needs perf (Debian: apt install linux-perf) and root for `perf sched record`',
    );
  }
}

/** Each thread id's process, named by what it is to the platform; kernel threads "kernel". */
function processesByTid(named: Map<number, string>): Map<number, string> {
  const byTid = new Map<number, string>();
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    let label = named.get(pid);
    try {
      label ??=
        readFileSync(`/proc/${pid}/cmdline`).length === 0
          ? 'kernel'
          : readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
      for (const tid of readdirSync(`/proc/${pid}/task`)) byTid.set(Number(tid), label);
    } catch {
      // gone meanwhile
    }
  }
  return byTid;
}

const PLATFORM =
  /^(gateway|auth|quota-ledger|equities-data|filings-reader|options-analytics|postgres|nats-server|autocannon)$/;

async function main(): Promise<void> {
  perfAvailable();
  await runBundled();
  const nats = await benchNats();
  console.log(nats.said);
  const stack = await startStack(
    { LOG_LEVEL: 'warn' },
    { natsUrl: nats.url, serviceNodeArgs: BENCH_SERVICE_NODE_ARGS },
  );
  const work = mkdtempSync(join(tmpdir(), 'mdp-stalls-'));
  atProcessEnd(() => rmSync(work, { recursive: true, force: true }));
  try {
    await loadDefaultDataset(stack, { quiet: true });
    const token = (await stack.admin('demo-token', '--plan', 'load-test')).split('\n').at(-1)!;
    const url = `${stack.baseUrl}${QUOTE}`;
    const headers = { authorization: `Bearer ${token}` };
    if (WARMUP > 0) await autocannon({ url, connections: CONNECTIONS, amount: WARMUP, headers });

    const named = new Map<number, string>([[process.pid, 'autocannon']]);
    for (const [name, proc] of stack.procs) if (proc.child.pid) named.set(proc.child.pid, name);
    const port = (u: string, fallback: number) => Number(new URL(u).port || fallback);
    const natsPid = listenerPid(port(stack.natsUrl, 4222), 'nats-server');
    if (natsPid) named.set(natsPid, 'nats-server');
    const postmaster = listenerPid(port(stack.databaseUrl, 5432), 'postgres');
    for (const pid of postmaster ? withChildren(postmaster) : []) named.set(pid, 'postgres');

    console.log(
      `${RUNS} runs of ${SECONDS} s, the metered quote on one load-test account at ${CONNECTIONS} connections ` +
        `after ${WARMUP} not measured; cores a process's thread held over the run → within the spans the slowest 1% waited`,
    );
    for (let run = 1; run <= RUNS; run++) {
      const data = join(work, `sched-${run}.data`);
      const perf = spawn(
        'perf',
        ['sched', 'record', '-k', 'CLOCK_MONOTONIC', '-a', '-o', data, '--', 'sleep', String(SECONDS + 1)],
        {
          stdio: 'ignore',
        },
      );
      const recorded = new Promise<number | null>((r) => perf.once('exit', r));
      const perfFailed = (code: number | null) =>
        new Error(`perf sched record exited ${code}: it needs root (or kernel.perf_event_paranoid -1)`);
      await new Promise((r) => setTimeout(r, 300));
      if (perf.exitCode !== null) throw perfFailed(perf.exitCode);
      const answers: Answer[] = [];
      let others = 0;
      const load = autocannon({ url, connections: CONNECTIONS, duration: SECONDS, headers });
      // Without a callback autocannon returns its instance, which is both a promise and an emitter.
      (load as unknown as EventEmitter).on(
        'response',
        (_client: unknown, status: number, _bytes: number, ms: number) => {
          if (status === 200) answers.push({ endS: monotonicS(), ms });
          else others++;
        },
      );
      await load;
      // Postgres backends started during the run (the recorder's new connections) are the postmaster's.
      for (const pid of postmaster ? withChildren(postmaster) : []) named.set(pid, 'postgres');
      const processOf = processesByTid(named);
      const code = await recorded;
      if (code !== 0) throw perfFailed(code);
      if (answers.length === 0) throw new Error(`run ${run}: no 200 (${others} other answers)`);
      const text = execFileSync('perf', ['sched', 'timehist', '-i', data], {
        encoding: 'utf8',
        maxBuffer: 1 << 30,
        stdio: ['ignore', 'pipe', 'ignore'],
      });
      report(run, answers, others, parseTimehist(text), (r) => processOf.get(r.tid) ?? 'gone');
    }
  } finally {
    await stack.shutdown();
    await nats.cleanup();
  }
}

function report(
  run: number,
  answers: Answer[],
  others: number,
  all: Run[],
  processOf: (r: Run) => string,
): void {
  const fromS = answers[0]!.endS;
  const toS = answers.at(-1)!.endS;
  const runs = all.filter((r) => r.endS > fromS && r.startS < toS);
  const keyOf = (r: Run) => `${processOf(r)} ${r.thread}`;
  const slow = slowest(answers);
  const overall = coresWithin(runs, [[fromS, toS]], keyOf);
  const within = coresWithin(runs, slow.spans, keyOf);
  const spanS = slow.spans.reduce((sum, [s, e]) => sum + (e - s), 0);
  console.log(
    `\nrun ${run}: ${Math.round(answers.length / (toS - fromS))} req/s, p50 ${quantileMs(answers, 0.5).toFixed(1)} ms, ` +
      `p99 ${quantileMs(answers, 0.99).toFixed(1)} ms${others ? ` (${others} answers not 200)` : ''}; the slowest 1% ` +
      `(${slow.answers.length} answers from ${slow.fromMs.toFixed(1)} ms) waited within ${spanS.toFixed(2)} s of ${(toS - fromS).toFixed(1)}`,
  );
  const keys = [...new Set([...overall.keys(), ...within.keys()])];
  const gain = (k: string) => (within.get(k) ?? 0) - (overall.get(k) ?? 0);
  const shown = keys
    .filter((k) => Math.max(overall.get(k) ?? 0, within.get(k) ?? 0) >= 0.01)
    .sort((a, b) => gain(b) - gain(a));
  for (const k of shown)
    console.log(`  ${k.padEnd(36)} ${(overall.get(k) ?? 0).toFixed(3)} → ${(within.get(k) ?? 0).toFixed(3)}`);
  const outside = shown.filter((k) => !PLATFORM.test(k.split(' ')[0]!) && gain(k) > 0.02).slice(0, 2);
  for (const k of outside) {
    const own = bursts(
      runs.filter((r) => keyOf(r) === k),
      BURST_GAP_S,
    );
    const spans = own.map((b) => b.span);
    const { seen, byChance } = overlapping(slow.answers, spans, fromS, toS);
    const clear = clearOf(answers, spans);
    const cpuMs = own.map((b) => b.cpuS * 1000).sort((a, b) => a - b);
    console.log(
      `  ${k}: ${own.length} bursts (${(cpuMs[Math.floor(cpuMs.length / 2)] ?? 0).toFixed(1)} ms of CPU at the median, ` +
        `${(cpuMs.at(-1) ?? 0).toFixed(1)} the most); ${seen} of the slowest 1% waited through one (${Math.round(byChance)} by chance); ` +
        `the answers clear of them: p99 ${quantileMs(clear, 0.99).toFixed(1)} ms`,
    );
  }
}

await main();
