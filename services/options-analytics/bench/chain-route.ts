// Latency of the options service's routes over gRPC, the service running as its own process on a
// generated dataset in a scratch schema (dropped afterwards): figures, not assertions.
// Run: npx tsx services/options-analytics/bench/chain-route.ts   (BENCH_SECONDS, BENCH_CONCURRENCY)
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { dropSchema, migratedPool } from '@mdp/db';
import { createClient } from '@mdp/grpc';
import { options } from '@mdp/proto';
import { createRegistry, grpcClientMetrics } from '@mdp/telemetry';
import { freePort } from '../../../test/stack.ts';
import { DEFAULT_SEED, marketOf } from '../src/generate/dataset.ts';
import { fnoStocks } from '../src/generate/universe.ts';
import { writeGeneratedDataset } from '../src/generate/write-dataset.ts';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@localhost:5432/mdp';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const AS_OF = '2026-11-20';
const MARKET = { seed: DEFAULT_SEED, asOf: AS_OF, r: 0.065, historyDays: 700 };
/** The default market's largest company, which has F&O. */
const STOCK = fnoStocks(marketOf(MARKET)).current[0]!.nseSymbol!;

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

function summary(name: string, ms: number[], wallMs?: number): string {
  const s = [...ms].sort((a, b) => a - b);
  const rate = wallMs ? `${((ms.length / wallMs) * 1000).toFixed(0).padStart(6)} calls/s` : ''.padStart(13);
  return `${name.padEnd(52)} ${rate}  p50 ${quantile(s, 0.5).toFixed(2).padStart(6)} ms  p99 ${quantile(s, 0.99).toFixed(2).padStart(6)} ms  (${ms.length} calls)`;
}

export async function benchRoutes(): Promise<string[]> {
  const schema = `bench_options_${randomBytes(4).toString('hex')}`;
  const pool = await migratedPool({
    url: DATABASE_URL,
    schema,
    dir: new URL('../migrations/', import.meta.url).pathname,
    max: 2,
    applicationName: 'options-bench',
  });
  const lines: string[] = [];
  const [grpcPort, opsPort] = [await freePort(), await freePort()];
  let child: ReturnType<typeof spawn> | undefined;
  try {
    await writeGeneratedDataset(pool, MARKET, {
      ifEmpty: false,
      only: ['NIFTY', 'BANKNIFTY', 'FINNIFTY', 'MIDCPNIFTY', STOCK],
    });
    child = spawn(
      process.execPath,
      ['--import', 'tsx', new URL('../src/server.ts', import.meta.url).pathname],
      {
        env: {
          ...process.env,
          DATABASE_URL,
          DB_SCHEMA: schema,
          GRPC_PORT: String(grpcPort),
          OPS_PORT: String(opsPort),
          LOG_LEVEL: 'warn',
        },
        stdio: ['ignore', 'inherit', 'inherit'],
      },
    );
    const until = Date.now() + 30_000;
    while (
      (await fetch(`http://127.0.0.1:${opsPort}/readyz`)
        .then((r) => r.status)
        .catch(() => 0)) !== 200
    ) {
      if (Date.now() > until) throw new Error('the options service did not become ready');
      await new Promise((r) => setTimeout(r, 100));
    }
    const client = createClient(options.OptionsAnalyticsServiceService, `127.0.0.1:${grpcPort}`, {
      target: 'options-analytics',
      metrics: grpcClientMetrics(createRegistry('bench')),
      defaultDeadlineMs: 10_000,
    });
    const time = async (f: () => Promise<unknown>) => {
      const t0 = performance.now();
      await f();
      return performance.now() - t0;
    };
    const chain = () => client.call.getOptionChain({ symbol: 'NIFTY' });
    lines.push(summary('GetOptionChain NIFTY, cold (analyses the snapshot)', [await time(chain)]));
    const sequential = async (name: string, f: () => Promise<unknown>, n = 1000) => {
      for (let i = 0; i < 50; i++) await f();
      const ms: number[] = [];
      const t0 = performance.now();
      for (let i = 0; i < n; i++) ms.push(await time(f));
      lines.push(summary(name, ms, performance.now() - t0));
    };
    await sequential('GetOptionChain NIFTY nearest expiry, every strike', chain);
    await sequential('GetOptionChain NIFTY, strikes=10', () =>
      client.call.getOptionChain({ symbol: 'NIFTY', strikes: 10 }),
    );
    await sequential('GetOptionChain BANKNIFTY 2026-12-29', () =>
      client.call.getOptionChain({ symbol: 'BANKNIFTY', expiry: '2026-12-29' }),
    );
    await sequential(
      'GetIvHistory NIFTY 1y (daily bars)',
      () => client.call.getIvHistory({ symbol: 'NIFTY', range: '1y' }),
      300,
    );
    await sequential(`GetStockOptions ${STOCK}`, () => client.call.getStockOptions({ symbol: STOCK }), 300);
    const ms: number[] = [];
    const stopAt = performance.now() + SECONDS * 1000;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (performance.now() < stopAt) ms.push(await time(chain));
      }),
    );
    lines.push(
      summary(`GetOptionChain NIFTY, ${CONCURRENCY} in flight for ${SECONDS} s`, ms, performance.now() - t0),
    );
    client.close();
  } finally {
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child!.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    await pool.end();
    await dropSchema(DATABASE_URL, schema);
  }
  return lines;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log('options-analytics over gRPC on loopback, service in its own process\n');
  for (const line of await benchRoutes()) console.log(line);
}
