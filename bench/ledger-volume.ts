// `make bench-ledger`: does the metered path cost more as the usage log grows? The platform runs as real
// processes on its own schemas and stream (test/stack.ts, as `make bench`). At each size of the log
// (BENCH_LEDGER_SIZES, default 0, 10 and 50 million events) the quota ledger is stopped, its schema made
// afresh and loaded with that many generated events of the real shape (COPY, not the API; see
// bench/ledger-events.ts) and their projections. The ledger is started once so that its upkeep seals the
// closed days (the state a running ledger keeps), stopped, the schema vacuumed and analysed and a
// checkpoint taken, and then started BENCH_LEDGER_STARTS times (timed, spawn to /readyz 200). Then the
// metered quote of one busy account, measured like `make bench`'s quote scenario (autocannon,
// BENCH_REQUESTS after BENCH_WARMUP, BENCH_CONNECTIONS), BENCH_LEDGER_RUNS times: req/s, p99 and Postgres
// CPU per event (the Postgres processes' CPU over the run, from /proc, over the events the run recorded:
// one charge per 200). Then the log's disk per event (every partition, heap and indexes) and the
// accounting check (200s seen = units charged), which fails the run when off.
import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { dropSchema, type Pool } from '@mdp/db';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { copyRows } from '../services/equities-data/src/store/copy.ts';
import { ledgerPool } from '../services/quota-ledger/test/ledger-db.ts';
import { DATABASE_URL, freePort, startStack } from '../test/stack.ts';
import { type CpuGroup, pidsNamed } from './cpu.ts';
import { loadDefaultDataset } from './default-dataset.ts';
import { envInt } from './env.ts';
import {
  ChargedCells,
  COPY_BINARY_HEADER,
  COPY_BINARY_TRAILER,
  DayEvents,
  DEFAULT_SHAPE,
  dayCounts,
  dayDate,
  type EventShape,
  encodeEvent,
  istDayNumber,
  istDayStartMs,
  LOG_COLUMNS,
  PROJECTION_COLUMNS,
  partitionName,
  ROW_BYTES,
  zipfCdf,
} from './ledger-events.ts';
import { checkGoals, formatTable, median, parseSizes, type SizeFigure } from './ledger-goals.ts';
import { BENCH_SERVICE_NODE_ARGS, gaugeValue } from './ops-metrics.ts';
import { chargedUnits, load } from './run.ts';

const SIZES = parseSizes(process.env.BENCH_LEDGER_SIZES, [0, 10_000_000, 50_000_000]);
/** Accounts the generated events belong to; the measured one is the busiest of them. */
const ACCOUNTS = envInt('BENCH_LEDGER_ACCOUNTS', 5_000);
/** IST days the events are spread over, ending now: one partition each. */
const DAYS = envInt('BENCH_LEDGER_DAYS', 60);
/** Measured runs of the quote at each size; the table gives their medians. */
const RUNS = envInt('BENCH_LEDGER_RUNS', 5);
/** COPY streams side by side (one Postgres backend each; the generator is cheap beside them). */
const STREAMS = envInt('BENCH_LEDGER_STREAMS', 2);
/** Timed starts of the ledger at each size (stopped in between); the table gives their median. */
const STARTS = envInt('BENCH_LEDGER_STARTS', 3);
/** 1: after each load, replay the whole log against the loaded projections (`ledger-admin rebuild`). */
const REBUILD_CHECK = envInt('BENCH_LEDGER_REBUILD_CHECK', 0, 0) > 0;
/** Rows per COPY chunk (about 600 KB). */
const CHUNK_ROWS = 8_192;

type Figure = Awaited<ReturnType<typeof load>>;

const fmt = (n: number) => n.toLocaleString('en-US');
const seconds = (since: number) => (performance.now() - since) / 1000;

/** The gateway's metered routes (operation ids), as the ledger names them; the two free ones are not admitted. */
function meteredRoutes(): string[] {
  const doc = JSON.parse(readFileSync('services/gateway/openapi.json', 'utf8')) as {
    paths: Record<string, Record<string, { operationId?: string }>>;
  };
  const free = new Set(['getMyUsage', 'getOpenApi']);
  return Object.values(doc.paths)
    .flatMap((ops) => Object.values(ops).map((op) => op.operationId))
    .filter((id): id is string => id !== undefined && !free.has(id));
}

interface LoadContext {
  pool: Pool;
  /** usage_accounts numbers of `accountNames`, by index. */
  accountIds: number[];
  accountNames: string[];
  /** usage_routes ids of `routeNames`, by index. */
  routeIds: number[];
  routeNames: string[];
}

/**
 * The ledger's schema made afresh (dropped, then migrated as the ledger migrates it), with the routes
 * registered: each size is loaded into an empty log, so every partition is written once in time order,
 * as the ledger writes it (loading more events into days already loaded would interleave their ids in
 * the unique index and split its pages: not how the log grows). Seals cannot be deleted, so the schema goes.
 */
async function freshLedgerSchema(
  ctx: Omit<LoadContext, 'pool' | 'routeIds' | 'accountIds'>,
): Promise<LoadContext> {
  await dropSchema(DATABASE_URL, ledgerSchema);
  const pool = await ledgerPool(ledgerSchema, 'bench-ledger', STREAMS + 1);
  await pool.query('INSERT INTO usage_routes (name) SELECT unnest($1::text[]) ON CONFLICT DO NOTHING', [
    ctx.routeNames,
  ]);
  const routes = await pool.query<{ id: number; key: string }>(
    'SELECT id, name AS key FROM usage_routes WHERE name = ANY($1::text[])',
    [ctx.routeNames],
  );
  await pool.query(
    'INSERT INTO usage_accounts (account_id) SELECT unnest($1::uuid[]) ON CONFLICT DO NOTHING',
    [ctx.accountNames],
  );
  const accounts = await pool.query<{ id: number; key: string }>(
    'SELECT id, account_id::text AS key FROM usage_accounts WHERE account_id = ANY($1::uuid[])',
    [ctx.accountNames],
  );
  const ids = (rows: { id: number; key: string }[], keys: string[]) => {
    const byKey = new Map(rows.map((r) => [r.key, r.id]));
    return keys.map((k) => byKey.get(k)!);
  };
  return {
    ...ctx,
    pool,
    routeIds: ids(routes.rows, ctx.routeNames),
    accountIds: ids(accounts.rows, ctx.accountNames),
  };
}

/**
 * Lets the ledger bring the loaded log to its steady state: its upkeep (shard 0, once caught up) seals
 * every closed day, as it would have done day by day. Waits for a pass that ended after this start with
 * no closed day left unsealed (`ledger_usage_upkeep_last_success_timestamp_seconds` set since, and
 * `ledger_usage_seal_lag_days` 0; both read 0 before the first pass). A ledger without the upkeep has
 * nothing to wait for.
 */
async function settleUpkeep(pool: Pool): Promise<string> {
  const ops = `http://127.0.0.1:${stack.procs.get('quota-ledger')!.opsPort}/metrics`;
  const since = Date.now() / 1000 - 1;
  const started = performance.now();
  let lastNote = started;
  const sealed = async () =>
    Number((await pool.query<{ n: string }>('SELECT count(*) AS n FROM usage_seals')).rows[0]!.n);
  for (;;) {
    const text = await (await fetch(ops)).text();
    if (!text.includes('# HELP ledger_usage_upkeep_last_success_timestamp_seconds'))
      return 'this ledger has no upkeep: nothing to seal';
    if (
      gaugeValue(text, 'ledger_usage_upkeep_last_success_timestamp_seconds') >= since &&
      gaugeValue(text, 'ledger_usage_seal_lag_days') === 0
    )
      return `the ledger's upkeep sealed the ${await sealed()} closed days in ${seconds(started).toFixed(0)} s`;
    if (performance.now() - lastNote > 30_000) {
      lastNote = performance.now();
      console.log(`  the ledger's upkeep has sealed ${await sealed()} days so far`);
    }
    if (seconds(started) > 3_600) throw new Error('the ledger did not seal the loaded days within an hour');
    await new Promise((r) => setTimeout(r, 1_000));
  }
}

/** COPY one day's events into its partition (binary rows, in time order); resolves to the rows sent. */
async function copyDay(
  client: pg.PoolClient,
  events: DayEvents,
  ctx: LoadContext,
  cells: ChargedCells,
  progress: (rows: number) => void,
): Promise<void> {
  const stream = client.query(
    copyFrom(`COPY ${partitionName(events.day)} (${LOG_COLUMNS.join(', ')}) FROM STDIN (FORMAT binary)`),
  );
  const done = new Promise<void>((resolve, reject) => {
    stream.on('finish', resolve);
    stream.on('error', reject);
  });
  // Awaited below; until then a failure must not become an unhandled rejection (which would end the
  // process before the stack is shut down).
  done.catch(() => {});
  stream.write(COPY_BINARY_HEADER);
  for (let more = true; more; ) {
    const buf = Buffer.allocUnsafe(CHUNK_ROWS * ROW_BYTES);
    let at = 0;
    while (at < buf.length) {
      const e = events.next();
      if (!e) {
        more = false;
        break;
      }
      at = encodeEvent(buf, at, e, ctx.accountIds, ctx.routeIds);
      cells.add(e);
    }
    if (at === 0) break;
    progress(at / ROW_BYTES);
    if (!stream.write(at === buf.length ? buf : buf.subarray(0, at))) await once(stream, 'drain');
  }
  stream.end(COPY_BINARY_TRAILER);
  await done;
}

/**
 * Loads `count` generated events over the last DAYS IST days (ending now) and their projections;
 * resolves to the charged units loaded. The partitions of those days, today and tomorrow are made
 * first with the migration's `usage_events_ensure_partition`, as the ledger makes them.
 */
async function loadLog(count: number, ctx: LoadContext): Promise<number> {
  const now = Date.now();
  const today = istDayNumber(now);
  const shape: EventShape = {
    ...DEFAULT_SHAPE,
    count,
    fromMs: istDayStartMs(today - DAYS + 1),
    toMs: now,
    accounts: ACCOUNTS,
    routes: ctx.routeIds.length,
  };
  const { first, last, counts } = dayCounts(shape);
  await ctx.pool.query(
    'SELECT usage_events_ensure_partition(d::date) FROM generate_series($1::date, $2::date, $3::interval) AS d',
    [dayDate(first), dayDate(today + 1), '1 day'],
  );
  const cells = new ChargedCells(ACCOUNTS, first, last - first + 1, shape.routes);
  if (count > 0) {
    const cdfs = { accounts: zipfCdf(ACCOUNTS), routes: zipfCdf(shape.routes) };
    const days = counts.map((n, i) => ({ day: first + i, n })).filter((d) => d.n > 0);
    let loaded = 0;
    const started = performance.now();
    let lastLoaded = 0;
    let lastAt = started;
    const ticker = setInterval(() => {
      const at = performance.now();
      console.log(
        `  ${fmt(loaded)} of ${fmt(count)} events (${((loaded / count) * 100).toFixed(0)}%), ` +
          `${fmt(Math.round((loaded - lastLoaded) / ((at - lastAt) / 1000)))} events/s now, ` +
          `${fmt(Math.round(loaded / ((at - started) / 1000)))} on average`,
      );
      lastLoaded = loaded;
      lastAt = at;
    }, 10_000);
    try {
      const worker = async () => {
        const client = await ctx.pool.connect();
        try {
          for (let d = days.shift(); d; d = days.shift())
            await copyDay(client, new DayEvents(shape, d.day, cdfs), ctx, cells, (rows) => {
              loaded += rows;
            });
        } finally {
          client.release();
        }
      };
      await Promise.all(Array.from({ length: STREAMS }, worker));
    } finally {
      clearInterval(ticker);
    }
    const s = seconds(started);
    console.log(
      `  loaded ${fmt(loaded)} events into ${last - first + 1} daily partitions in ${s.toFixed(0)} s ` +
        `(${fmt(Math.round(loaded / s))} events/s, ${STREAMS} COPY streams)`,
    );
  }
  const started = performance.now();
  const client = await ctx.pool.connect();
  try {
    const rows = await copyRows(client, 'usage_cells', PROJECTION_COLUMNS, async (write, drained) => {
      let n = 0;
      for (const values of cells.rows(ctx.accountIds, ctx.routeIds)) {
        write(values.map(String));
        if (++n % 100_000 === 0) await drained();
      }
    });
    console.log(`  usage_cells: ${fmt(rows)} rows`);
  } finally {
    client.release();
  }
  console.log(`  projections loaded in ${seconds(started).toFixed(0)} s`);
  return cells.total();
}

/** The log's size on disk: every partition's heap, indexes (each, over all partitions) and TOAST (none), and its events. */
async function logDisk(pool: Pool): Promise<{
  events: number;
  partitions: number;
  total: number;
  heap: number;
  byIndex: { name: string; bytes: number }[];
}> {
  const { rows } = await pool.query<{ partitions: number; total: string; heap: string }>(
    `SELECT count(*)::int AS partitions, coalesce(sum(pg_total_relation_size(relid)), 0) AS total,
            coalesce(sum(pg_relation_size(relid)), 0) AS heap
       FROM pg_partition_tree('usage_events') WHERE isleaf`,
  );
  // Each partition's index by the log's index it belongs to (usage_events_request_key, …_account_idx).
  const byIndex = await pool.query<{ name: string; bytes: string }>(
    `SELECT coalesce(pi.inhparent, ix.indexrelid)::regclass::text AS name, sum(pg_relation_size(ix.indexrelid)) AS bytes
       FROM pg_partition_tree('usage_events') t
       JOIN pg_index ix ON ix.indrelid = t.relid
       LEFT JOIN pg_inherits pi ON pi.inhrelid = ix.indexrelid
      WHERE t.isleaf GROUP BY 1 ORDER BY 1`,
  );
  const events = (await pool.query<{ n: string }>('SELECT count(*) AS n FROM usage_events')).rows[0]!.n;
  return {
    events: Number(events),
    partitions: rows[0]!.partitions,
    total: Number(rows[0]!.total),
    heap: Number(rows[0]!.heap),
    byIndex: byIndex.rows.map((r) => ({ name: r.name, bytes: Number(r.bytes) })),
  };
}

async function sumCharged(pool: Pool): Promise<number> {
  const { rows } = await pool.query<{ n: string | null }>('SELECT sum(charged) AS n FROM usage_daily');
  return Number(rows[0]!.n ?? 0);
}

console.log(
  `bench-ledger: sizes ${SIZES.map(fmt).join(', ')} events; ${fmt(ACCOUNTS)} accounts over ${DAYS} IST days; ` +
    `${RUNS} measured quote runs per size`,
);
console.log('starting the platform (six processes; the ledger with REBUILD_CHECK_INTERVAL_MS=0)…');
// The periodic rebuild check replays the log's recent days: off, so that it never lands in a measured
// run (BENCH_LEDGER_REBUILD_CHECK=1 replays the whole log between load and start instead). Days past the
// ledger's retention would be archived: to a folder of this run's, removed at the end.
const archiveDir = mkdtempSync(join(tmpdir(), 'bench-ledger-archive-'));
const stack = await startStack(
  { LOG_LEVEL: 'warn', REBUILD_CHECK_INTERVAL_MS: '0', USAGE_ARCHIVE_DIR: archiveDir },
  { serviceNodeArgs: BENCH_SERVICE_NODE_ARGS },
);
const barePort = await freePort();
const bare = spawn(process.execPath, ['--import', 'tsx', 'bench/bare-server.ts'], {
  env: { ...process.env, PORT: String(barePort) },
  stdio: 'inherit',
});
const schemaOf = (suffix: string) => stack.schemas.find((name) => name.endsWith(suffix))!;
const ledgerSchema = schemaOf('_quota_ledger');
let pool: Pool | undefined;
const failures: string[] = [];
const figures: SizeFigure[] = [];
const bareRps: number[] = [];
try {
  console.log('loading the equities default dataset into this stack (about a minute)…');
  await loadDefaultDataset(stack);

  // The measured account: a load-test account (no cap) that is also the busiest of the generated ones.
  const hot = (await stack.admin('demo-token', '--plan', 'load-test')).split('\n').at(-1)!;
  const auth = new pg.Client({ connectionString: DATABASE_URL });
  await auth.connect();
  const hotId = (
    await auth
      .query<{ id: string }>(
        `SELECT id::text FROM "${schemaOf('_auth')}".accounts ORDER BY created_at DESC LIMIT 1`,
      )
      .finally(() => auth.end())
  ).rows[0]!.id;
  const accountNames = [hotId, ...Array.from({ length: ACCOUNTS - 1 }, () => randomUUID())];
  const accounts = {
    accountNames,
    routeNames: meteredRoutes(),
  };

  const groups: CpuGroup[] = [
    // Looked up at each reading: the ledger is a new process at every size.
    ...(['gateway', 'quota-ledger'] as const).map((name) => ({
      name,
      pids: () => [stack.procs.get(name)!.child.pid!],
    })),
    { name: 'postgres', pids: () => pidsNamed('postgres'), withReapedChildren: true },
    { name: 'nats', pids: () => pidsNamed('nats-server') },
    { name: 'autocannon', pids: () => [process.pid] },
  ];
  const quoteUrl = `${stack.baseUrl}/v1/stocks/ARAVALIHOU/quote`;

  for (const size of SIZES) {
    console.log(`\n== ${fmt(size)} events ==`);
    await stack.stop('quota-ledger');
    await pool?.end();
    let t = performance.now();
    const ctx = await freshLedgerSchema(accounts);
    pool = ctx.pool;
    const loadedCharges = await loadLog(size, ctx);
    console.log(`  loaded in all in ${seconds(t).toFixed(0)} s`);
    if (REBUILD_CHECK) {
      t = performance.now();
      const rebuilt = spawnSync(
        process.execPath,
        ['--import', 'tsx', 'services/quota-ledger/src/cli.ts', 'rebuild'],
        { env: { ...process.env, DB_SCHEMA: ledgerSchema }, encoding: 'utf8' },
      );
      const said = `${rebuilt.stdout}${rebuilt.stderr}`.trim().split('\n').slice(0, 4).join('\n    ');
      console.log(`  rebuild check (${seconds(t).toFixed(0)} s): ${said}`);
      if (rebuilt.status !== 0)
        throw new Error('the loaded projections differ from a replay of the loaded log');
    }
    const baseline = await sumCharged(pool);
    if (baseline !== loadedCharges)
      throw new Error(`the projections hold ${baseline} units, the load counted ${loadedCharges}`);

    // The log as a ledger that had been running keeps it: closed days sealed (by the ledger itself).
    t = performance.now();
    await stack.start('quota-ledger');
    console.log(`  ${await settleUpkeep(pool)}`);
    await stack.stop('quota-ledger');
    // Autovacuum is off on this machine: without this the planner would know nothing of the loaded rows
    // and every first read would set hint bits. Then a checkpoint, so that none runs in a measured run.
    t = performance.now();
    await pool.query('VACUUM (ANALYZE)');
    console.log(
      `  VACUUM (ANALYZE) of the ledger's schema (the log's partitions, projections, seals): ${seconds(t).toFixed(0)} s`,
    );
    t = performance.now();
    await pool.query('CHECKPOINT');
    console.log(`  CHECKPOINT: ${seconds(t).toFixed(0)} s`);

    const starts: number[] = [];
    for (let i = 1; i <= STARTS; i++) {
      if (i > 1) await stack.stop('quota-ledger');
      t = performance.now();
      await stack.start('quota-ledger');
      starts.push(seconds(t));
    }
    const startupS = median(starts);
    console.log(
      `  quota ledger ready ${starts.map((x) => x.toFixed(2)).join(', ')} s after its spawn (median ${startupS.toFixed(2)})`,
    );

    // The gateway's admission stream comes back on its own; the 200 that shows it is charged too.
    let seen = 0;
    for (let i = 0; ; i++) {
      const res = await fetch(quoteUrl, { headers: { authorization: `Bearer ${hot}` } });
      await res.arrayBuffer();
      if (res.status === 200) {
        seen++;
        break;
      }
      if (i > 600)
        throw new Error(`the metered quote still answers ${res.status} after the ledger's restart`);
      await new Promise((r) => setTimeout(r, 100));
    }

    const bareRun = await load('bare fastify (quote-shaped)', `http://127.0.0.1:${barePort}/bare`, {
      groups,
    });
    bareRps.push(bareRun.rps);
    const runs: Figure[] = [];
    for (let r = 1; r <= RUNS; r++) {
      const f = await load(`quote, ${fmt(size)} events, run ${r}`, quoteUrl, { groups, tokens: [hot] });
      runs.push(f);
      seen += f.ok;
      if (Object.keys(f.failed).length > 0) failures.push(`${f.name}: ${JSON.stringify(f.failed)}`);
      const cpu = (name: string) => f.cpuPer1k.get(name)!.toFixed(4);
      console.log(
        `  run ${r}: ${f.rps.toFixed(0)} req/s, p50 ${f.p50} ms, p99 ${f.p99} ms; CPU ms a request: ` +
          `postgres ${cpu('postgres')}, ledger ${cpu('quota-ledger')}, gateway ${cpu('gateway')}, ` +
          `nats ${cpu('nats')}; load average ${loadavg()[0]!.toFixed(1)}`,
      );
    }
    console.log(
      `  bare quote-shaped route (the machine's speed at this size): ${bareRun.rps.toFixed(0)} req/s`,
    );

    const charged = (await chargedUnits(ledgerSchema, baseline + seen)) - baseline;
    console.log(
      `  accounting: ${seen} 200s seen, ${charged} units charged: ${seen === charged ? 'exact' : 'MISMATCH'}`,
    );
    if (seen !== charged)
      failures.push(`${fmt(size)} events: ${seen} 200s seen but ${charged} units charged`);

    const disk = await logDisk(pool);
    console.log(
      `  the log: ${fmt(disk.events)} events in ${disk.partitions} partitions, ${(disk.total / 2 ** 20).toFixed(0)} MiB ` +
        `(bytes an event: heap ${(disk.heap / disk.events).toFixed(1)}, ` +
        `${disk.byIndex.map((x) => `${x.name} ${(x.bytes / disk.events).toFixed(1)}`).join(', ')})`,
    );
    figures.push({
      size,
      events: disk.events,
      bytesPerEvent: disk.total / disk.events,
      startupS,
      rps: median(runs.map((f) => f.rps)),
      p99Ms: median(runs.map((f) => f.p99)),
      // Postgres CPU over the measured run per request of it: each was a 200, recorded as one charge.
      pgMsPerEvent: median(runs.map((f) => f.cpuPer1k.get('postgres')!)),
      bareRps: bareRun.rps,
    });
  }

  console.log(
    `\nthe usage log at each size (medians of ${RUNS} runs of ${process.env.BENCH_REQUESTS ?? '20000'} ` +
      `requests; bare route ${bareRps.map((r) => r.toFixed(0)).join(' / ')} req/s; ` +
      `each load VACUUM (ANALYZE)d and checkpointed before the ledger's timed start):\n`,
  );
  for (const line of formatTable(figures)) console.log(line);
  console.log('\ngoals:');
  for (const g of checkGoals(figures))
    console.log(`  ${g.met ? 'met    ' : 'NOT met'}  ${g.goal}: ${g.detail}`);
} finally {
  bare.kill('SIGTERM');
  await pool?.end();
  await stack.shutdown();
  rmSync(archiveDir, { recursive: true, force: true });
}
if (failures.length > 0) {
  console.error(`\nBENCH FAILED: a figure means nothing when requests failed\n  ${failures.join('\n  ')}`);
  process.exit(1);
}
