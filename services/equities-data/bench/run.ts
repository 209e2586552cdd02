// The equities service's bench: figures, not assertions. Over the full default dataset (8,200 stocks,
// about 10 million daily bars) in a scratch schema:
//   1. search latency inside the service (the in-memory index, no transport), p50/p99 over a query mix;
//   2. the service as its own process over gRPC: latency and throughput of quote, batch quotes, a
//      2,000-day price page, search, profile, and the financials, corporate, index and market routes;
//   3. end to end over HTTP through the whole platform (gateway, auth, ledger): quote and a 2,000-day
//      price page with autocannon.
// Run: npx tsx services/equities-data/bench/run.ts
//   BENCH_SECONDS (5), BENCH_CONCURRENCY (32), BENCH_CONNECTIONS (50), BENCH_HTTP=0 skips step 3,
//   EQUITIES_BENCH_SCHEMA=name keeps (and reuses) a loaded schema instead of a scratch one.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { dropSchema, migratedPool } from '@mdp/db';
import { createClient } from '@mdp/grpc';
import { Rng } from '@mdp/market';
import { equities } from '@mdp/proto';
import { createRegistry, grpcClientMetrics } from '@mdp/telemetry';
import autocannon from 'autocannon';
import { createOpenPlan } from '../../../bench/plans.ts';
import { freePort, startStack } from '../../../test/stack.ts';
import { EquitiesDataset } from '../src/areas/stocks/dataset.ts';
import { readDataset } from '../src/areas/stocks/read.ts';
import { run } from '../src/cli.ts';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@localhost:5432/mdp';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const keep = process.env.EQUITIES_BENCH_SCHEMA;
const schema = keep ?? `bench_equities_${randomBytes(4).toString('hex')}`;
const END = '2026-11-20';

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
function line(name: string, ms: number[], wallMs?: number): string {
  const s = [...ms].sort((a, b) => a - b);
  const rate = wallMs ? `${((ms.length / wallMs) * 1000).toFixed(0).padStart(7)} /s` : ''.padStart(10);
  const f = (x: number) => (x < 1 ? x.toFixed(3) : x.toFixed(2)).padStart(7);
  return `${name.padEnd(58)} ${rate}  p50 ${f(quantile(s, 0.5))} ms  p99 ${f(quantile(s, 0.99))} ms  (${ms.length})`;
}

/** Realistic queries: symbols, codes, ISINs, names and name prefixes, typos, short prefixes, filters. */
function queryMix(ds: EquitiesDataset, n: number) {
  const rng = new Rng(42);
  const listed = ds.entries.filter((e) => e.row.status === 'listed');
  const typo = (w: string) => {
    if (w.length < 5) return w;
    const i = rng.int(1, w.length - 2);
    return w.slice(0, i) + w[i + 1] + w[i] + w.slice(i + 2);
  };
  const out: { q: string; sector?: string; limit: number }[] = [];
  for (let i = 0; i < n; i++) {
    // Larger companies are searched for more often.
    const e = listed[Math.floor(listed.length * rng.next() ** 2)]!;
    const words = e.row.name.split(' ');
    const r = rng.next();
    const q =
      r < 0.35
        ? e.row.symbol
        : r < 0.45
          ? (e.row.bseCode ?? e.row.symbol)
          : r < 0.5
            ? (e.row.isin ?? e.row.symbol)
            : r < 0.7
              ? words.slice(0, rng.int(1, 2)).join(' ')
              : r < 0.85
                ? typo(words[0]!.toLowerCase())
                : r < 0.95
                  ? e.row.name.slice(0, rng.int(2, 4)).toLowerCase()
                  : words[0]!;
    out.push({ q, limit: 10, ...(r >= 0.95 && e.row.sector ? { sector: e.row.sector } : {}) });
  }
  return out;
}

async function benchSearch(ds: EquitiesDataset): Promise<string[]> {
  const queries = queryMix(ds, 20_000);
  for (const q of queries.slice(0, 2_000)) ds.search.search(q);
  const ms: number[] = [];
  const t0 = performance.now();
  for (const q of queries) {
    const s = performance.now();
    ds.search.search(q);
    ms.push(performance.now() - s);
  }
  const wall = performance.now() - t0;
  const lookups: number[] = [];
  for (const q of queries.slice(0, 5_000)) {
    const s = performance.now();
    ds.resolve(q.q);
    lookups.push(performance.now() - s);
  }
  return [
    line(`search, ${ds.size} stocks, mixed queries (in process)`, ms, wall),
    line('symbol lookup (in process)', lookups),
  ];
}

async function waitReady(opsPort: number, what: string) {
  const until = Date.now() + 60_000;
  while (
    (await fetch(`http://127.0.0.1:${opsPort}/readyz`)
      .then((r) => r.status)
      .catch(() => 0)) !== 200
  ) {
    if (Date.now() > until) throw new Error(`${what} did not become ready`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function startService(grpcPort: number, opsPort: number): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', new URL('../src/server.ts', import.meta.url).pathname], {
    env: {
      ...process.env,
      DATABASE_URL,
      DB_SCHEMA: schema,
      GRPC_PORT: String(grpcPort),
      OPS_PORT: String(opsPort),
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
}

async function benchGrpc(ds: EquitiesDataset, address: string): Promise<string[]> {
  const client = createClient(equities.EquitiesDataServiceService, address, {
    target: 'equities-data',
    metrics: grpcClientMetrics(createRegistry('bench')),
    defaultDeadlineMs: 10_000,
  });
  const listed = ds.entries.filter((e) => e.row.status === 'listed' && e.firstDay !== undefined);
  const rng = new Rng(7);
  const pick = () => listed[Math.floor(listed.length * rng.next())]!.row.symbol;
  const lines: string[] = [];
  const measure = async (name: string, call: () => Promise<unknown>) => {
    for (let i = 0; i < 50; i++) await call();
    const ms: number[] = [];
    const t0 = performance.now();
    const until = t0 + SECONDS * 1000;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (performance.now() < until) {
          const s = performance.now();
          await call();
          ms.push(performance.now() - s);
        }
      }),
    );
    lines.push(line(`${name}, ${CONCURRENCY} in flight`, ms, performance.now() - t0));
  };
  await measure('GetStockQuote', () => client.call.getStockQuote({ symbol: pick() }));
  await measure('GetQuotes, 20 symbols', () =>
    client.call.getQuotes({ symbols: [...new Set(Array.from({ length: 20 }, pick))] }),
  );
  await measure('GetPriceHistory, days=2000 (about 1,370 bars)', () =>
    client.call.getPriceHistory({ symbol: pick(), days: 2000, interval: 'daily' }),
  );
  await measure('GetPriceHistory, days=2000 weekly', () =>
    client.call.getPriceHistory({ symbol: pick(), days: 2000, interval: 'weekly' }),
  );
  await measure('SearchStocks, a name prefix', () =>
    client.call.searchStocks({ q: pick().slice(0, 4), limit: 10 }),
  );
  await measure('GetStockProfile, technicals+ratings+peers', () =>
    client.call.getStockProfile({ symbol: pick(), include: ['technicals', 'ratings', 'peers'] }),
  );
  // The areas: financials read one company's statements from Postgres; the rest answer from memory.
  const equity = listed.filter((e) => e.row.stockType === 'equity');
  const pickEquity = () => equity[Math.floor(equity.length * rng.next())]!.row.symbol;
  await measure('GetFinancials, all sections', () => client.call.getFinancials({ symbol: pickEquity() }));
  await measure('GetShareholding', () => client.call.getShareholding({ symbol: pickEquity() }));
  await measure('GetStockEvents, corporate_actions', () =>
    client.call.getStockEvents({ symbol: pickEquity(), type: 'corporate_actions', limit: 20 }),
  );
  await measure('GetDeals, all types', () => client.call.getDeals({ symbol: pickEquity(), limit: 25 }));
  await measure('ListIndices, 3 weeks, top 10', () =>
    client.call.listIndices({ periods: 3, granularity: 'week', names: [], limit: 10, order: 'gainers' }),
  );
  await measure('GetIndexHistory, NIFTY 50, max (weekly)', () =>
    client.call.getIndexHistory({ name: 'NIFTY 50', interval: 'max' }),
  );
  await measure('GetFiiDii, 1y chart', () => client.call.getFiiDii({ chart_interval: '1y' }));
  await measure('GetValuations, nifty-50, 20 years', () =>
    client.call.getValuations({ index: 'nifty-50', years: 20 }),
  );
  client.close();
  return lines;
}

async function benchHttp(ds: EquitiesDataset): Promise<string[]> {
  console.log('starting the platform (six processes) for the end-to-end figures…');
  const stack = await startStack({ LOG_LEVEL: 'warn' });
  let child: ChildProcess | undefined;
  try {
    // The stack's equities service has an empty schema of its own: put ours on its port instead.
    const port = stack.procs.get('equities-data')!.port;
    await stack.stop('equities-data');
    const ops = await freePort();
    child = startService(port, ops);
    await waitReady(ops, 'equities-data on the bench schema');
    await createOpenPlan(stack, 'eqbench');
    const account = await stack.admin('account', 'create', '--plan', 'eqbench');
    const token = await stack.admin('token', 'issue', account);
    const symbols = ds.entries
      .filter((e) => e.row.status === 'listed' && e.firstDay !== undefined)
      .map((e) => encodeURIComponent(e.row.symbol));
    const rng = new Rng(11);
    const pick = () => symbols[Math.floor(rng.next() * symbols.length)]!;
    const lines: string[] = [];
    // Paths rotate over every listed stock, so the gateway's document cache rarely answers: these are
    // the service's figures behind the full front door, not the cache's.
    for (const [name, path] of [
      ['HTTP GET /v1/stocks/{symbol}/quote', () => `/v1/stocks/${pick()}/quote`],
      ['HTTP GET /v1/stocks/{symbol}/price?days=2000', () => `/v1/stocks/${pick()}/price?days=2000`],
      ['HTTP GET /v1/stocks?q=<name prefix>&limit=10', () => `/v1/stocks?q=${pick().slice(0, 4)}&limit=10`],
    ] as const) {
      const r = await autocannon({
        url: stack.baseUrl,
        connections: CONNECTIONS,
        duration: SECONDS,
        headers: { authorization: `Bearer ${token}` },
        requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, path: path() }) }],
      });
      const statuses = `2xx=${r['2xx']}${r.non2xx ? ` non-2xx=${r.non2xx}` : ''}`;
      lines.push(
        `${name.padEnd(58)} ${r.requests.average.toFixed(0).padStart(7)} /s  p50 ${String(r.latency.p50).padStart(7)} ms  p99 ${String(r.latency.p99).padStart(7)} ms  ${statuses}`,
      );
    }
    return lines;
  } finally {
    child?.kill('SIGTERM');
    await stack.shutdown();
  }
}

const pool = await migratedPool({
  url: DATABASE_URL,
  schema,
  dir: new URL('../migrations/', import.meta.url).pathname,
  max: 4,
  applicationName: 'equities-bench',
});
let service: ChildProcess | undefined;
try {
  console.log(`equities-data bench on schema ${schema}: loading the default dataset if empty…`);
  const loaded = await run(pool, ['load-default', '--if-empty', '--end', END], {
    log: () => {},
    now: Date.now,
  });
  console.log(`  ${loaded}`);
  const t0 = performance.now();
  const snapshot = await readDataset(pool);
  const t1 = performance.now();
  const ds = new EquitiesDataset(snapshot);
  const t2 = performance.now();
  console.log(
    `  start-up: read ${(t1 - t0).toFixed(0)} ms, index ${(t2 - t1).toFixed(0)} ms (${ds.size} stocks, ${ds.entries.filter((e) => e.row.status === 'listed').length} listed)\n`,
  );
  for (const l of await benchSearch(ds)) console.log(l);

  const [grpcPort, opsPort] = [await freePort(), await freePort()];
  service = startService(grpcPort, opsPort);
  await waitReady(opsPort, 'equities-data');
  console.log(`\nequities-data as its own process, gRPC on loopback (${SECONDS} s each)`);
  for (const l of await benchGrpc(ds, `127.0.0.1:${grpcPort}`)) console.log(l);
  service.kill('SIGTERM');
  service = undefined;

  if (process.env.BENCH_HTTP !== '0') {
    const lines = await benchHttp(ds);
    console.log(
      `\nend to end over HTTP: gateway, auth, ledger, equities (${CONNECTIONS} connections, ${SECONDS} s each)`,
    );
    for (const l of lines) console.log(l);
  }
} finally {
  service?.kill('SIGTERM');
  await pool.end();
  if (!keep) await dropSchema(DATABASE_URL, schema);
}
