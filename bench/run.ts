// `make bench`: figures, not assertions. Runs the platform as real processes on this machine and loads
// it with autocannon from this process, beside a bare fastify route measured in the same run.
import { spawn, spawnSync } from 'node:child_process';
import autocannon from 'autocannon';
import { freePort, startStack } from '../test/stack.ts';
import { benchLedger } from './ledger.ts';

const DURATION_S = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);

interface Figure {
  name: string;
  url: string;
  rps: number;
  p50: number;
  p99: number;
  statuses: string;
}

async function load(name: string, url: string, headers: Record<string, string> = {}): Promise<Figure> {
  const result = await autocannon({ url, connections: CONNECTIONS, duration: DURATION_S, headers });
  const statuses = Object.entries({ '2xx': result['2xx'], '4xx': result['4xx'], '5xx': result['5xx'] })
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${k}=${n}`)
    .join(' ');
  return {
    name,
    url,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    statuses,
  };
}

function print(figures: Figure[]) {
  const bare = figures[0]!.rps;
  console.log(`\n${CONNECTIONS} connections, ${DURATION_S} s each, autocannon on loopback\n`);
  console.log(
    `${'scenario'.padEnd(58)} ${'req/s'.padStart(9)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)}  vs bare  statuses`,
  );
  for (const f of figures) {
    const share = `${((f.rps / bare) * 100).toFixed(0)}%`.padStart(7);
    console.log(
      `${f.name.padEnd(58)} ${f.rps.toFixed(0).padStart(9)} ${String(f.p50).padStart(7)} ${String(f.p99).padStart(7)}  ${share}  ${f.statuses}`,
    );
  }
}

const barePort = await freePort();
const bare = spawn(process.execPath, ['--import', 'tsx', 'bench/bare-server.ts'], {
  env: { ...process.env, PORT: String(barePort) },
  stdio: 'inherit',
});
console.log('starting the platform (six processes)…');
const stack = await startStack({ LOG_LEVEL: 'warn' });
try {
  // A plan without caps and with a burst cap out of the load generator's reach: figures, not refusals.
  await stack.admin(
    'plan',
    'create',
    'bench',
    '--daily',
    'none',
    '--monthly',
    'none',
    '--burst',
    '100000000',
  );
  const account = await stack.admin('account', 'create', '--plan', 'bench');
  const token = await stack.admin('token', 'issue', account);
  const auth = { authorization: `Bearer ${token}` };
  console.log('loading the options default dataset into this stack (about 20 s)…');
  const options = stack.schemas.find((name) => name.endsWith('_options_analytics'))!;
  const loaded = spawnSync(
    process.execPath,
    ['--import', 'tsx', 'services/options-analytics/src/cli.ts', 'load-default'],
    {
      env: { ...process.env, DB_SCHEMA: options },
      stdio: 'inherit',
    },
  );
  if (loaded.status !== 0) throw new Error('could not load the options dataset');
  const figures: Figure[] = [];
  figures.push(await load('bare fastify JSON route', `http://127.0.0.1:${barePort}/bare`));
  figures.push(
    await load(
      'gateway: cached token + validation (400, no upstream call)',
      `${stack.baseUrl}/v1/stocks?q=tata&limit=99`,
      auth,
    ),
  );
  figures.push(
    await load(
      'metered: token + admission + equities search over gRPC',
      `${stack.baseUrl}/v1/stocks?q=tata&limit=5`,
      auth,
    ),
  );
  figures.push(
    await load(
      'metered, charged 200: token + admission + chain + JetStream ack',
      `${stack.baseUrl}/v1/options/NIFTY/chain?strikes=5`,
      auth,
    ),
  );
  figures.push(
    await load('gateway: /v1/openapi.json (free, pre-serialised)', `${stack.baseUrl}/v1/openapi.json`),
  );
  print(figures);
} finally {
  bare.kill('SIGTERM');
  await stack.shutdown();
}

console.log('\nquota ledger on its own (real process, real NATS and Postgres):');
for (const line of await benchLedger()) console.log(`  ${line}`);
