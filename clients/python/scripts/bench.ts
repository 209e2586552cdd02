// The Python client's bench (`make bench` runs it): calls a second through the client, sequential and
// from a few threads, kept-alive connections against a connection a call (clients/python/scripts/bench.py
// measures; this gives it a platform). Figures, not assertions; the client README quotes them.
//
// With MDP_BASE_URL and MDP_TOKEN set it runs against that gateway (a `make run`; a token on a plan
// without a burst cap: `make token PLAN=load-test`). Otherwise it starts a platform of its own as the
// other benches do (bench/run.ts: the services bundled, test/stack.ts's processes on leased ports and
// private schemas), loads the default equities dataset into it (about a minute), makes a load-test
// token, runs the bench and stops it all.
//
//   npx tsx clients/python/scripts/bench.ts
//   MDP_PYTHON (default python3), and bench.py's BENCH_CALLS, BENCH_THREADS, BENCH_SYMBOL, BENCH_ROUNDS
import { spawnSync } from 'node:child_process';
import { runBundled } from '../../../bench/bundled.ts';
import { waitForGauge } from '../../../bench/ops-metrics.ts';
import { nodeArgsFor } from '../../../test/bundles.ts';
import { startStack } from '../../../test/stack.ts';

const PYTHON = process.env.MDP_PYTHON || 'python3';
const SCRIPT = new URL('./bench.py', import.meta.url).pathname;

function bench(baseUrl: string, token: string): void {
  const run = spawnSync(PYTHON, [SCRIPT], {
    env: { ...process.env, MDP_BASE_URL: baseUrl, MDP_TOKEN: token, PYTHONDONTWRITEBYTECODE: '1' },
    stdio: 'inherit',
  });
  if (run.error)
    throw new Error(`${PYTHON} did not run (${run.error.message}): set MDP_PYTHON to a Python 3.9+`);
  if (run.status !== 0) throw new Error(`bench.py exited with ${run.status}`);
}

if (process.env.MDP_BASE_URL && process.env.MDP_TOKEN) {
  console.log(`python client bench against ${process.env.MDP_BASE_URL}`);
  bench(process.env.MDP_BASE_URL, process.env.MDP_TOKEN);
} else {
  await runBundled();
  console.log('python client bench: starting the platform (six processes, bundled)…');
  const stack = await startStack({ LOG_LEVEL: 'warn' });
  try {
    console.log('loading the equities default dataset into this stack (about a minute)…');
    const schema = stack.schemas.find((name) => name.endsWith('_equities_data'))!;
    const loaded = spawnSync(
      process.execPath,
      [...nodeArgsFor('services/equities-data/src/cli.ts'), 'load-default'],
      { env: { ...process.env, DB_SCHEMA: schema }, stdio: 'inherit' },
    );
    if (loaded.status !== 0) throw new Error('could not load the equities dataset');
    const equities = stack.procs.get('equities-data')!;
    await waitForGauge(
      { name: 'equities-data', opsPort: equities.opsPort },
      'equities_data_last_session_timestamp_seconds',
      60_000,
    );
    // No burst cap: a bench of hundreds of calls a run on a 60-a-minute plan would measure waits.
    const token = (await stack.admin('demo-token', '--plan', 'load-test')).split('\n').at(-1)!;
    bench(stack.baseUrl, token);
  } finally {
    await stack.shutdown();
  }
}
