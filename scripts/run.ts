/**
 * `make run`: the whole platform on this machine, in the foreground, from the built bundles.
 *
 *   1. infrastructure   scripts/infra.sh ensure (Postgres, NATS JetStream, the database)
 *   2. data             the three default datasets loaded at once (each skipped when already loaded),
 *                       while the services that hold no market data start and the demo token is made
 *   3. start            the data services from services/<svc>/dist/server.js, logs prefixed and coloured
 *   4. ready            wait for each ops /readyz to answer 200, then print where the API is and how
 *                       long each part took (install and build as the Makefile timed them)
 *   5. supervise        a service that exits is restarted with backoff (logged); a crash loop stops the run
 *   6. stop             Ctrl-C / SIGTERM: SIGTERM to every service, wait for them to drain, exit 0
 *
 * DATA=<folder> (`make run DATA=...`): the data services serve real exchange files instead of the generated
 * default, on schemas of their own for that folder (`<service>_real_<name>_<hash>`), imported first with the
 * platform's folder import (a repeat run of the same folder finds nothing to change and starts at once).
 *
 * SHARDS=n, GATEWAYS=m (`make run SHARDS=2 GATEWAYS=2`; 1 and 1 by default): n ledger shards
 * (quota-ledger-0 … n-1, each SHARD_INDEX i of SHARD_COUNT n) and m gateways, each given every shard's
 * address in shard order: the topology operators scale to, on one machine.
 *
 * Ports: DEFAULT_PORTS from @mdp/config; override with PORT (gateway HTTP), GATEWAY_OPS_PORT, and
 * <SERVICE>_GRPC_PORT / <SERVICE>_OPS_PORT, e.g. EQUITIES_DATA_GRPC_PORT=60053. The i-th extra shard
 * or gateway (i ≥ 1) takes its first one's ports plus 100·i, or QUOTA_LEDGER_<i>_GRPC_PORT,
 * QUOTA_LEDGER_<i>_OPS_PORT, GATEWAY_<i>_PORT and GATEWAY_<i>_OPS_PORT.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { basename, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { createPool } from '@mdp/db';
import { DEFAULT_EXAMPLES, DEFAULT_SEED } from '@mdp/market';
import { colours, createFormatter, useColour } from './lib/log-format.ts';
import { bundleFile, DEFAULT_PORTS, ROOT, rel, SERVICES, type ServiceName } from './lib/services.ts';
import { type ProcessSpec, probe, Supervisor } from './lib/supervisor.ts';

const STOP_GRACE_MS = 15_000;
const READY_TIMEOUT_MS = Number(process.env.READY_TIMEOUT_SECONDS || 60) * 1_000;
if (!Number.isFinite(READY_TIMEOUT_MS) || READY_TIMEOUT_MS < 0) {
  console.error(`run: READY_TIMEOUT_SECONDS=${process.env.READY_TIMEOUT_SECONDS} is not a number of seconds`);
  process.exit(2);
}
const COLOUR = useColour();
const c = COLOUR
  ? colours
  : (Object.fromEntries(Object.keys(colours).map((k) => [k, (s: string) => s])) as typeof colours);

/** How the gateway finds each gRPC service (its config names, see services/gateway/src/server.ts). */
const GATEWAY_ADDRESS_VARS: Partial<Record<ServiceName, string>> = {
  auth: 'AUTH_ADDR',
  'quota-ledger': 'LEDGER_ADDR',
  'equities-data': 'EQUITIES_ADDR',
  'filings-reader': 'FILINGS_ADDR',
  'options-analytics': 'OPTIONS_ADDR',
};

/** Variables that mean one thing per process; inherited as-is they would give every child the same value. */
const PER_PROCESS_VARS = ['PORT', 'OPS_PORT', 'GRPC_PORT', 'DB_SCHEMA', 'SHARD_INDEX', 'SHARD_COUNT'];

interface Plan {
  /** The process: its service's name, or `<service>-<i>` when the service runs several. */
  name: string;
  service: ServiceName;
  /** The instance's number among its service's (a ledger's shard index). */
  index: number;
  /** The gateway's public HTTP port, or the service's gRPC port. */
  port: number;
  portLabel: 'http' | 'grpc';
  opsPort: number;
  bundle: string;
}

const say = (text: string) => console.log(`${c.bold('run')}: ${text}`);
const fail = (text: string): never => {
  console.error(`${c.bold('run')}: ${c.red(`ERROR: ${text}`)}`);
  process.exit(1);
};

function envKey(name: string, suffix: string): string {
  return `${name.toUpperCase().replaceAll('-', '_')}_${suffix}`;
}

function portFromEnv(key: string, fallback: number): number {
  const raw = process.env[key];
  if (raw === undefined || raw === '') return fallback;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    fail(`${key}=${raw} is not a port number (1-65535)`);
  return port;
}

/** SHARDS or GATEWAYS: how many processes of a service, 1 when unset. */
function countFromEnv(key: string, max: number): number {
  const raw = process.env[key];
  if (raw === undefined || raw === '') return 1;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > max) fail(`${key}=${raw} is not a count from 1 to ${max}`);
  return n;
}

/** Ports of extra instances: the first one's plus this much per instance, unless set for the instance. */
const INSTANCE_PORT_STEP = 100;

function planServices(): Plan[] {
  const counts: Partial<Record<ServiceName, number>> = {
    'quota-ledger': countFromEnv('SHARDS', 64),
    gateway: countFromEnv('GATEWAYS', 16),
  };
  const plans: Plan[] = [];
  for (const service of SERVICES) {
    const bundle = bundleFile(service);
    if (!existsSync(bundle))
      fail(`${rel(bundle)} is missing; run \`make build\` (or \`make run\`, which builds)`);
    const defaults = DEFAULT_PORTS[service];
    const count = counts[service] ?? 1;
    const http = 'http' in defaults;
    const port = http
      ? portFromEnv('PORT', defaults.http)
      : portFromEnv(envKey(service, 'GRPC_PORT'), defaults.grpc);
    const opsPort = portFromEnv(envKey(service, 'OPS_PORT'), defaults.ops);
    for (let index = 0; index < count; index++) {
      const name = count === 1 ? service : `${service}-${index}`;
      const step = index * INSTANCE_PORT_STEP;
      plans.push({
        name,
        service,
        index,
        port: index === 0 ? port : portFromEnv(envKey(name, http ? 'PORT' : 'GRPC_PORT'), port + step),
        portLabel: http ? 'http' : 'grpc',
        opsPort: index === 0 ? opsPort : portFromEnv(envKey(name, 'OPS_PORT'), opsPort + step),
        bundle,
      });
    }
  }
  const seen = new Map<number, string>();
  for (const p of plans) {
    for (const [port, what] of [
      [p.port, `${p.name} ${p.portLabel}`],
      [p.opsPort, `${p.name} ops`],
    ] as const) {
      const other = seen.get(port);
      if (other) fail(`port ${port} is assigned twice: ${other} and ${what}`);
      seen.set(port, what);
    }
  }
  return plans;
}

function childEnv(plan: Plan, all: Plan[]): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of PER_PROCESS_VARS) delete env[key];
  // V8's code for the bundles, kept between starts: a restarted service is ready about 0.1 s sooner.
  env.NODE_COMPILE_CACHE ??= join(ROOT, 'node_modules', '.cache', 'node-compile-cache');
  env.OPS_PORT = String(plan.opsPort);
  if (plan.portLabel === 'http') {
    env.PORT = String(plan.port);
    for (const [service, key] of Object.entries(GATEWAY_ADDRESS_VARS)) {
      // Several ledger shards: every address, in shard order (a shard refuses another's accounts).
      const addresses = all.filter((p) => p.service === service).map((p) => `localhost:${p.port}`);
      env[key] = addresses.join(',');
    }
  } else {
    env.GRPC_PORT = String(plan.port);
    const schema = process.env[envKey(plan.service, 'DB_SCHEMA')];
    if (schema) env.DB_SCHEMA = schema;
    // options-analytics follows equities-data's trading calendar.
    if (plan.service === 'options-analytics') {
      const equities = all.find((p) => p.service === 'equities-data');
      if (equities) env.EQUITIES_ADDR = `localhost:${equities.port}`;
    }
    if (plan.service === 'quota-ledger') {
      env.SHARD_INDEX = String(plan.index);
      env.SHARD_COUNT = String(all.filter((p) => p.service === 'quota-ledger').length);
    }
  }
  return env;
}

// ---------------------------------------------------------------------------------------------------
// Steps before anything starts

function ensureInfrastructure(): void {
  say('checking Postgres and NATS (scripts/infra.sh ensure)');
  const result = spawnSync('bash', [join(ROOT, 'scripts', 'infra.sh'), 'ensure'], { stdio: 'inherit' });
  if (result.status !== 0) fail('infrastructure is not ready (see above)');
}

/** The real-data folder of `make run DATA=...`, absolute, or undefined for the generated default. */
const DATA_DIR = process.env.DATA ? resolve(process.env.DATA) : undefined;

/** The services whose data a folder import writes, and the import's variable for each one's schema. */
const IMPORT_SCHEMA_VARS: [ServiceName, string][] = [
  ['equities-data', 'EQUITIES_DB_SCHEMA'],
  ['options-analytics', 'OPTIONS_DB_SCHEMA'],
  ['filings-reader', 'FILINGS_DB_SCHEMA'],
];

/** Schemas of their own for a real-data folder, so it never mixes with the default dataset or another folder. */
function realDataSchemas(dir: string): void {
  const name = basename(dir)
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .slice(0, 20);
  const hash = createHash('sha256').update(dir).digest('hex').slice(0, 6);
  for (const [service] of IMPORT_SCHEMA_VARS) {
    const key = envKey(service, 'DB_SCHEMA');
    process.env[key] ||= `${service.split('-')[0]}_real_${name}_${hash}`;
  }
}

/** Services that ship a generated default dataset, and the tool that loads it. */
const DATASETS: [ServiceName, string][] = [
  ['equities-data', join(ROOT, 'services', 'equities-data', 'src', 'cli.ts')],
  ['options-analytics', join(ROOT, 'services', 'options-analytics', 'src', 'cli.ts')],
  ['filings-reader', join(ROOT, 'services', 'filings-reader', 'src', 'cli.ts')],
];

/** The services that serve what step 2 loads: they start once it is loaded. */
const DATA_SERVICES = new Set<ServiceName>(DATASETS.map(([service]) => service));
const holdsData = (p: Plan) => DATA_SERVICES.has(p.service);

/** How long each part of this run took, in order, for the banner. */
const took: [string, number][] = [];
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** Data tools still running: a run that ends early (one load failed, Ctrl-C) ends them too. */
const tools = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of tools) child.kill('SIGTERM');
});

/** Runs `node --import tsx <args>` with its output prefixed by `name`; resolves to its exit code. */
function runTool(name: string, args: string[], env: NodeJS.ProcessEnv, index: number): Promise<number> {
  return new Promise((done) => {
    const child = spawn(process.execPath, ['--import', 'tsx', ...args], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    tools.add(child);
    child.once('exit', () => tools.delete(child));
    const format = createFormatter(name, 17, index, COLOUR);
    for (const [stream, out] of [
      [child.stdout, process.stdout],
      [child.stderr, process.stderr],
    ] as const)
      createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY }).on('line', (line) =>
        out.write(`${format.format(line).join('\n')}\n`),
      );
    child.once('error', (err) => {
      console.error(`${c.bold('run')}: ${c.red(`${name}: ${err.message}`)}`);
      done(1);
    });
    child.once('close', (code) => done(code ?? 1));
  });
}

/**
 * Data steps that need the infrastructure but must finish before the data services start: the generated
 * default datasets, or with DATA the folder's import. The three datasets are independent (each service
 * its own schema), so they load at once; each tool skips a dataset already loaded, so a second run
 * spends here only the tools' start-up. Services still apply their own migrations.
 */
async function prepareData(): Promise<void> {
  const started = Date.now();
  if (DATA_DIR) {
    realDataSchemas(DATA_DIR);
    const env = { ...process.env };
    for (const [service, variable] of IMPORT_SCHEMA_VARS)
      env[variable] = process.env[envKey(service, 'DB_SCHEMA')];
    say(`real data: importing ${DATA_DIR} (services/data-import; a repeat finds nothing to change)`);
    const result = spawnSync(
      process.execPath,
      ['--import', 'tsx', join(ROOT, 'services', 'data-import', 'src', 'cli.ts'), DATA_DIR],
      { env, stdio: 'inherit' },
    );
    if (result.status === 1)
      say(c.yellow('some kinds of file were not imported (see the report above); serving the rest'));
    else if (result.status !== 0) fail('the import of DATA could not run (see above)');
    took.push(['import of DATA', Date.now() - started]);
    return;
  }
  say(
    `default datasets of ${DATASETS.map(([s]) => s).join(', ')}: loading at once, each only if its schema is empty (<service>/src/cli.ts load-default --if-empty)`,
  );
  const results = await Promise.all(
    DATASETS.map(async ([service, cli], index) => {
      const env = { ...process.env };
      const schema = process.env[envKey(service, 'DB_SCHEMA')];
      if (schema) env.DB_SCHEMA = schema;
      else delete env.DB_SCHEMA;
      const begun = Date.now();
      const code = await runTool(service, [cli, 'load-default', '--if-empty'], env, index);
      const ms = Date.now() - begun;
      if (code === 0) say(`default dataset of ${service}: ready in ${seconds(ms)}`);
      return { service, code, ms };
    }),
  );
  const failed = results.filter((r) => r.code !== 0).map((r) => r.service);
  if (failed.length > 0) fail(`loading the default dataset of ${failed.join(', ')} failed (see above)`);
  for (const r of results) took.push([r.service.split('-')[0]!, r.ms]);
  took.push(['data, at once', Date.now() - started]);
}

async function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host: '0.0.0.0', exclusive: true }, () => server.close(() => resolve(true)));
  });
}

async function checkPortsFree(plans: Plan[]): Promise<void> {
  const busy: string[] = [];
  for (const p of plans) {
    if (!(await portIsFree(p.port))) busy.push(`${p.port} (${p.name} ${p.portLabel})`);
    if (!(await portIsFree(p.opsPort))) busy.push(`${p.opsPort} (${p.name} ops)`);
  }
  if (busy.length > 0) {
    fail(
      `port(s) already in use: ${busy.join(', ')}. Is another \`make run\` still running? Override with env, see scripts/run.ts`,
    );
  }
}

// ---------------------------------------------------------------------------------------------------
// Readiness

async function waitUntilReady(sup: Supervisor, plans: Plan[]): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  const state = new Map(plans.map((p) => [p.name, 'starting']));
  while (!sup.stopping) {
    await Promise.all(
      plans
        .filter((p) => state.get(p.name) !== 'ready')
        .map(async (p) => {
          const now = await probe(p.opsPort);
          if (now === 'ready' && state.get(p.name) !== 'ready') say(`${p.name} is ready`);
          state.set(p.name, now);
        }),
    );
    if ([...state.values()].every((s) => s === 'ready')) return;
    if (Date.now() > deadline) {
      const waiting = [...state].filter(([, s]) => s !== 'ready');
      console.error(
        `${c.bold('run')}: ${c.red(
          `not ready after ${READY_TIMEOUT_MS / 1000}s: ${waiting
            .map(([name, s]) => `${name} (/readyz on :${plans.find((p) => p.name === name)!.opsPort}: ${s})`)
            .join(', ')}`,
        )}`,
      );
      await sup.stop(1);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  await new Promise(() => {}); // stopping: the supervisor exits the process
}

/** A fresh free-plan account and its token, made with the auth admin tool against the auth schema. */
async function demoToken(): Promise<string> {
  const env = { ...process.env };
  const schema = process.env[envKey('auth', 'DB_SCHEMA')];
  if (schema) env.DB_SCHEMA = schema;
  else delete env.DB_SCHEMA;
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(ROOT, 'services', 'auth', 'src', 'cli.ts'), 'demo-token', '--plan', 'free'],
    { env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
  });
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
  });
  const code = await new Promise<number | null>((done) => {
    child.once('error', () => done(null));
    child.once('close', done);
  });
  if (code !== 0) fail(`could not make a demo token: ${stderr.trim()}`);
  return stdout.trim().split('\n').at(-1)!;
}

/** What the platform serves, for the banner: where the data comes from, its last day, a stock in it. */
interface Served {
  source: string;
  lastDay: string;
  stock: string;
  search: string;
}

/**
 * Reads the equities schema for the banner. With real data the example stock is the most traded one of
 * the last day (the generated names do not exist there); with the default dataset, the documented one.
 */
async function served(): Promise<Served> {
  const pool = createPool({
    url: process.env.DATABASE_URL ?? 'postgres://postgres@localhost:5432/mdp',
    schema: process.env[envKey('equities-data', 'DB_SCHEMA')] || 'equities',
    max: 1,
    applicationName: 'run-banner',
  });
  try {
    const { rows } = await pool.query<{ last: string | null; symbol: string | null; name: string | null }>(
      `SELECT b.d::text AS last, s.symbol, s.name FROM daily_bars b JOIN stocks s ON s.id = b.stock_id
        WHERE b.d = (SELECT max(d) FROM daily_bars) ORDER BY b.close::bigint * b.volume DESC LIMIT 1`,
    );
    const row = rows[0];
    const lastDay = row?.last ?? 'none (no prices loaded)';
    if (!DATA_DIR)
      return {
        source: `the generated default dataset (seed ${DEFAULT_SEED})`,
        lastDay,
        stock: DEFAULT_EXAMPLES.stock,
        search: DEFAULT_EXAMPLES.search,
      };
    return {
      source: `real exchange files from ${DATA_DIR}`,
      lastDay,
      stock: row?.symbol ?? DEFAULT_EXAMPLES.stock,
      search: (row?.name ?? '').split(/\s+/)[0]!.toLowerCase() || 'bank',
    };
  } finally {
    await pool.end();
  }
}

/**
 * The first request a new user would make, made for them with the demo token: the banner then shows a
 * curl line known to answer 200, or says plainly that it did not (the demo account is charged one unit).
 */
async function firstRequest(
  base: string,
  token: string,
  search: string,
): Promise<{ path: string; outcome: string; ok: boolean }> {
  const path = `/v1/stocks?q=${encodeURIComponent(search)}&limit=3`;
  try {
    const res = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}` } });
    const body = (await res.json()) as {
      data?: { symbol: string; name: string }[];
      error?: { code: string };
    };
    if (res.status !== 200) return { path, ok: false, outcome: `${res.status} ${body.error?.code ?? ''}` };
    const found = body.data!.map((s) => `${s.symbol} (${s.name})`).join(', ') || 'no match in this dataset';
    return { path, ok: true, outcome: `200, ${found}` };
  } catch (err) {
    return { path, ok: false, outcome: `no answer: ${(err as Error).message}` };
  }
}

/** Comma-separated items in lines of about 60 characters. */
function wrap(items: string[]): string[] {
  const lines: string[] = [];
  for (const item of items) {
    const last = lines.at(-1);
    if (last !== undefined && last.length + item.length < 58) lines[lines.length - 1] = `${last}, ${item}`;
    else lines.push(item);
  }
  return lines;
}

async function banner(plans: Plan[], token: string, started: number): Promise<void> {
  const gateways = plans.filter((p) => p.service === 'gateway');
  const base = `http://localhost:${gateways[0]!.port}`;
  const data = await served();
  const begun = Date.now();
  const first = await firstRequest(base, token, data.search);
  took.push(['first call', Date.now() - begun]);
  const total = Date.now() - started;
  const rule = c.dim('─'.repeat(72));
  const auth = `-H "Authorization: Bearer $TOKEN"`;
  const lines = [rule];
  lines.push(
    `  ${c.bold('API ready at')} ${gateways.map((g) => c.green(`http://localhost:${g.port}`)).join(', ')}`,
  );
  const shards = plans.filter((p) => p.service === 'quota-ledger').length;
  if (shards > 1 || gateways.length > 1)
    lines.push(
      `  topology   ${shards} ledger shards, ${gateways.length} gateways (each routes by the same shard map)`,
    );
  lines.push(`  data       ${data.source}`, `             last trading day ${c.bold(data.lastDay)}`);
  lines.push(`  token      export TOKEN=${token}   (demo account, free plan: 50 a day)`);
  lines.push(
    `  first call ${first.ok ? c.green(first.outcome) : c.red(first.outcome)}`,
    `             curl -s ${auth} '${base}${first.path}'`,
    `  try        curl -s ${auth} ${base}/v1/stocks/${data.stock}/quote`,
    `             curl -s ${auth} ${base}/v1/me/usage`,
    `             curl -s ${base}/v1/openapi.json`,
  );
  lines.push(`  ops ports  ${plans.map((p) => `${p.name} :${p.opsPort}`).join(', ')}`);
  lines.push('             (/healthz, /readyz, /metrics on each)');
  lines.push(
    `  took       ${seconds(total)} from ${process.env.MAKE_STARTED_MS ? '`make run`' : 'the start of scripts/run.ts'} to the first call's answer:`,
    ...wrap(took.map(([part, ms]) => `${part} ${seconds(ms)}`)).map((line) => `             ${line}`),
  );
  lines.push(`  stop       Ctrl-C`);
  lines.push(rule);
  console.log(lines.join('\n'));
}

// ---------------------------------------------------------------------------------------------------

/**
 * The parts the Makefile ran before this script (`make install`'s npm ci, `make build`), as it timed
 * them into .local/timings/; a part not run by this make (install when node_modules was current) is
 * left out. MAKE_STARTED_MS is when that make started.
 */
function makeParts(): void {
  const since = Number(process.env.MAKE_STARTED_MS);
  if (!Number.isFinite(since) || since <= 0) return;
  for (const part of ['install', 'build']) {
    const file = join(ROOT, '.local', 'timings', `${part}-ms`);
    if (!existsSync(file) || statSync(file).mtimeMs < since) continue;
    const ms = Number(readFileSync(file, 'utf8').trim());
    if (Number.isFinite(ms)) took.push([part, ms]);
  }
}

async function main(): Promise<void> {
  const started = Number(process.env.MAKE_STARTED_MS) || Date.now();
  makeParts();
  if (DATA_DIR && !(existsSync(DATA_DIR) && statSync(DATA_DIR).isDirectory()))
    fail(`DATA=${DATA_DIR} is not a folder`);
  const plans = planServices();

  let begun = Date.now();
  ensureInfrastructure();
  took.push(['infrastructure', Date.now() - begun]);
  await checkPortsFree(plans);

  const sup = new Supervisor({
    say,
    warn: (text) => console.error(`${c.bold('run')}: ${c.yellow(text)}`),
    exit: (code) => process.exit(code),
    stopGraceMs: STOP_GRACE_MS,
    readyTimeoutMs: READY_TIMEOUT_MS,
    stopFirst: (name) => name.startsWith('gateway'),
  });
  process.on('SIGINT', () => sup.onSignal('SIGINT'));
  process.on('SIGTERM', () => sup.onSignal('SIGTERM'));
  process.on('SIGHUP', () => sup.onSignal('SIGHUP'));
  // If this script dies some other way, the detached children must not outlive it.
  process.on('exit', () => {
    for (const r of sup.running) if (r.alive) r.child.kill('SIGTERM');
  });
  // A closed pipe (`make run | head`) must not crash the supervisor before it stops the children.
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {});

  const width = Math.max(...plans.map((p) => p.name.length));
  const start = (some: Plan[]) => {
    say(`starting ${some.map((p) => `${p.name} (${p.portLabel} :${p.port}, ops :${p.opsPort})`).join(', ')}`);
    sup.start(
      some.map(
        (plan): ProcessSpec => ({
          name: plan.name,
          args: ['--enable-source-maps', plan.bundle],
          env: childEnv(plan, plans),
          cwd: ROOT,
          opsPort: plan.opsPort,
          formatter: createFormatter(plan.name, width, plans.indexOf(plan), COLOUR),
        }),
      ),
    );
  };
  // What holds no market data starts while the data loads; the demo account is made meanwhile too.
  start(plans.filter((p) => !holdsData(p)));
  const token = demoToken();
  await prepareData();
  begun = Date.now();
  start(plans.filter(holdsData));
  await waitUntilReady(sup, plans);
  took.push(['services ready', Date.now() - begun]);
  await banner(plans, await token, started);
}

await main();
