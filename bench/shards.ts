// `make bench`, ledger shards: the metered search (a 200 from the empty data schemas, so the data path
// costs next to nothing and the figures are the metering's) over 1,000 accounts of the shipped
// `business` plan (burst cap 60, which the run keeps under), on the platform with 1, 2 and 4 ledger
// shards (BENCH_SHARDS), each a fresh stack. Per shard count: admissions a second (every request is a
// metered 200), p99, and CPU µs a request of the gateway, the ledger shards together, nats-server and
// Postgres, with 200s seen = units charged checked. On a 2-core machine more shards cannot add cores:
// what the rows show is what a shard costs, not how far they scale.
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import pg from 'pg';
import { type Stack, startStack } from '../test/stack.ts';
import { runBundled } from './bundled.ts';
import { type CpuGroup, cpuBetween, listenerPid, pidsNamed, snapshot, withChildren } from './cpu.ts';
import { envInt } from './env.ts';
import { benchNats } from './nats-as-deployed.ts';

const SHARD_COUNTS = (process.env.BENCH_SHARDS ?? '1,2,4').split(',').map(Number);
if (SHARD_COUNTS.some((n) => !Number.isInteger(n) || n < 1 || n > 16)) {
  console.error(`BENCH_SHARDS=${process.env.BENCH_SHARDS}: give shard counts from 1 to 16, e.g. 1,2,4`);
  process.exit(2);
}
const REQUESTS = envInt('BENCH_SHARD_REQUESTS', 20_000, 100);
const WARMUP = envInt('BENCH_SHARD_WARMUP', 5_000, 0);
const CONNECTIONS = envInt('BENCH_CONNECTIONS', 50, 1);
const ACCOUNTS = 1_000;
const PLAN = 'business';
const PATH = '/v1/stocks?q=zz&limit=1';

interface Row {
  shards: number;
  reqPerS: number;
  p99: number;
  ok: number;
  charged: number;
  cpu: Record<string, number>;
}

async function run(url: string, tokens: string[], amount: number) {
  let next = 0;
  return autocannon({
    url,
    connections: CONNECTIONS,
    amount,
    requests: [
      {
        setupRequest: (req) => ({
          ...req,
          headers: { ...req.headers, authorization: `Bearer ${tokens[next++ % tokens.length]}` },
        }),
      },
    ],
  });
}

/** Units the ledger's projections hold, once they stop moving (the consumers have caught up). */
async function charged(stack: Stack): Promise<number> {
  const schema = stack.schemas.find((s) => s.endsWith('_quota_ledger'))!;
  const db = new pg.Client({ connectionString: stack.databaseUrl });
  await db.connect();
  try {
    let last = -1;
    for (let i = 0; i < 120; i++) {
      const { rows } = await db.query<{ n: string }>(
        `SELECT coalesce(sum(charged), 0) AS n FROM "${schema}".usage_daily`,
      );
      const n = Number(rows[0]!.n);
      if (n === last) return n;
      last = n;
      await new Promise((r) => setTimeout(r, 500));
    }
    return last;
  } finally {
    await db.end();
  }
}

async function measure(shards: number, natsUrl: string | undefined): Promise<Row> {
  const stack = await startStack({ LOG_LEVEL: 'warn' }, { shards, natsUrl });
  try {
    const tokens = (await stack.admin('token-pool', '--plan', PLAN, '--count', String(ACCOUNTS))).split('\n');
    const url = `${stack.baseUrl}${PATH}`;
    const postmaster = listenerPid(Number(new URL(stack.databaseUrl).port || 5432), 'postgres');
    const nats = listenerPid(Number(new URL(stack.natsUrl).port || 4222), 'nats-server');
    const procs = [...stack.procs.values()];
    const groups: CpuGroup[] = [
      { name: 'gateway', pids: () => procs.filter((p) => p.name === 'gateway').map((p) => p.child.pid!) },
      {
        name: 'ledgers',
        pids: () => procs.filter((p) => p.name.startsWith('quota-ledger')).map((p) => p.child.pid!),
      },
      { name: 'nats', pids: () => (nats ? [nats] : pidsNamed('nats-server')) },
      {
        name: 'postgres',
        pids: () => (postmaster ? withChildren(postmaster) : pidsNamed('postgres')),
        withReapedChildren: true,
      },
      {
        name: 'others',
        pids: () =>
          procs
            .filter((p) => p.name !== 'gateway' && !p.name.startsWith('quota-ledger'))
            .map((p) => p.child.pid!),
      },
    ];
    const warm = WARMUP > 0 ? await run(url, tokens, WARMUP) : undefined;
    const before = snapshot(groups);
    const started = performance.now();
    const result = await run(url, tokens, REQUESTS);
    const seconds = (performance.now() - started) / 1000;
    const ok = (warm?.['2xx'] ?? 0) + result['2xx'];
    const units = await charged(stack);
    const after = snapshot(groups);
    const cpu: Record<string, number> = {};
    // The settling wait is in the window too: what the ledgers and Postgres record after the last answer.
    for (const g of groups)
      cpu[g.name] = (cpuBetween(before.get(g.name)!, after.get(g.name)!) / result['2xx']) * 1e6;
    return { shards, reqPerS: result['2xx'] / seconds, p99: result.latency.p99, ok, charged: units, cpu };
  } finally {
    await stack.shutdown();
  }
}

await runBundled();
const rows: Row[] = [];
const nats = await benchNats();
console.log(nats.said);
try {
  for (const shards of SHARD_COUNTS) {
    console.log(
      `ledger shards: ${shards} (a fresh stack; ${WARMUP} requests warm-up, ${REQUESTS} measured, c${CONNECTIONS})…`,
    );
    rows.push(await measure(shards, nats.url));
  }
} finally {
  await nats.cleanup();
}
const cell = (n: number, w = 9) => n.toFixed(n >= 100 ? 0 : 1).padStart(w);
console.log(
  `\nmetered search over ${ACCOUNTS} ${PLAN} accounts, CPU µs a request (200s) per process group\n` +
    `${'shards'.padEnd(7)}${'adm/s'.padStart(9)}${'p99 ms'.padStart(9)}${'gateway'.padStart(9)}${'ledgers'.padStart(9)}${'NATS'.padStart(9)}${'Postgres'.padStart(9)}${'others'.padStart(9)}${'total'.padStart(9)}  200s = charged`,
);
let exact = true;
for (const r of rows) {
  const total = Object.values(r.cpu).reduce((a, b) => a + b, 0);
  exact &&= r.ok === r.charged;
  console.log(
    `${String(r.shards).padEnd(7)}${cell(r.reqPerS)}${cell(r.p99)}${cell(r.cpu.gateway!)}${cell(r.cpu.ledgers!)}${cell(r.cpu.nats!)}${cell(r.cpu.postgres!)}${cell(r.cpu.others!)}${cell(total)}  ${r.ok} = ${r.charged}${r.ok === r.charged ? '' : '  (NOT EXACT)'}`,
  );
}
if (!exact) {
  console.error('shards bench: some run charged other than the 200s it saw');
  process.exit(1);
}
