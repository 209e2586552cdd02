import { createHash } from 'node:crypto';
import { createLogger, type Logger } from '@mdp/telemetry';
import { runner } from 'node-pg-migrate';
import pg from 'pg';
import { assertSchemaName } from './schema-name.ts';

export type Pool = pg.Pool;

/** A setting's name or value as it may appear in the startup options (no spaces, nothing to escape). */
const SETTING = /^[a-z0-9_.]{1,63}$/;

/**
 * A pool whose connections resolve unqualified names in the service's own schema only. Queries are
 * always parameterised; the schema name is validated above because identifiers cannot be parameters.
 */
export function createPool(opts: {
  url: string;
  schema: string;
  max: number;
  applicationName: string;
  logger?: Logger;
  /** Server settings for every connection of this pool, beyond the schema and `jit=off`. */
  settings?: Readonly<Record<string, string>>;
}): Pool {
  const schema = assertSchemaName(opts.schema);
  const settings = Object.entries(opts.settings ?? {}).map(([name, value]) => {
    if (!SETTING.test(name) || !SETTING.test(value)) throw new Error(`invalid setting ${name}=${value}`);
    return ` -c ${name}=${value}`;
  });
  const pool = new pg.Pool({
    connectionString: opts.url,
    max: opts.max,
    application_name: opts.applicationName,
    // The wait for a pooled connection, queueing included: a start-up read of many large tables queues
    // behind itself on a busy machine (seen: equities-data failing to start after 3 s). A server that
    // is down still fails at once (connection refused); only a hang waits this long.
    connectionTimeoutMillis: 15_000,
    idleTimeoutMillis: 30_000,
    // JIT off: these are short request-path statements, and JIT starts whenever the planner's cost
    // estimate passes jit_above_cost. Without fresh statistics (autovacuum behind or off) the ledger's
    // batch statement crossed it once the event log held ~100,000 rows, and each batch then spent about
    // 30 ms compiling for 2 ms of work (seen as Postgres CPU per request doubling in the bench).
    options: `-c search_path=${schema} -c jit=off${settings.join('')}`,
  });
  // A connection the server drops (a restart, a network blip) must never crash the process. The pool
  // handles idle clients ('error' on the pool) but not checked-out ones: their 'error' event would be
  // unhandled, so each client gets a listener of its own. The query in progress still fails, and a
  // client whose connection broke is discarded by the pool when released.
  pool.on('error', (err) => opts.logger?.warn({ err: err.message }, 'idle database connection lost'));
  pool.on('connect', (client) =>
    client.on('error', (err) => opts.logger?.warn({ err: err.message }, 'database connection lost')),
  );
  return pool;
}

/** Advisory-lock id per schema, so services (and parallel tests) migrating different schemas never wait on each other. */
function lockValueFor(schema: string): number {
  return createHash('sha256').update(`migrate:${schema}`).digest().readInt32BE(0);
}

/**
 * Applies the service's SQL migrations (`NNNN_name.sql` with `-- Up Migration` / `-- Down Migration`
 * sections) to its schema, creating the schema when missing. Safe to run from several replicas at once.
 */
export async function migrate(opts: {
  url: string;
  schema: string;
  dir: string | null;
  logger: Logger;
}): Promise<number> {
  const schema = assertSchemaName(opts.schema);
  if (opts.dir === null) {
    await withClient(opts.url, (c) => c.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`));
    return 0;
  }
  const applied = await runner({
    databaseUrl: opts.url,
    dir: opts.dir,
    direction: 'up',
    migrationsTable: 'pgmigrations',
    schema,
    migrationsSchema: schema,
    createSchema: true,
    createMigrationsSchema: true,
    checkOrder: true,
    singleTransaction: true,
    lockValue: lockValueFor(schema),
    advisoryLockMode: 'wait',
    log: (msg: string) => opts.logger.debug({ schema }, msg),
  });
  if (applied.length > 0)
    opts.logger.info({ schema, migrations: applied.map((m) => m.name) }, 'migrations applied');
  return applied.length;
}

/**
 * Applies `dir`'s migrations to `schema` (creating it), then opens a pool on it: `migrate` followed by
 * `createPool` on the same url and schema. `logger` receives the migration messages (silent when
 * omitted); `poolLogger` is createPool's `logger`, told of lost connections (none when omitted).
 */
export async function migratedPool(opts: {
  url: string;
  schema: string;
  dir: string | null;
  max: number;
  applicationName: string;
  logger?: Logger;
  poolLogger?: Logger;
}): Promise<Pool> {
  const { url, schema, dir, max, applicationName } = opts;
  await migrate({ url, schema, dir, logger: opts.logger ?? createLogger('db', 'silent') });
  return createPool({ url, schema, max, applicationName, logger: opts.poolLogger });
}

/**
 * Undoes the last `count` migrations applied to `schema` from `dir`, in one transaction, under the same
 * per-schema lock as `migrate` (a down migration of one schema never waits for, or fails beside, another's).
 */
export async function migrateDown(opts: {
  url: string;
  schema: string;
  dir: string;
  count: number;
}): Promise<void> {
  const schema = assertSchemaName(opts.schema);
  await runner({
    databaseUrl: opts.url,
    dir: opts.dir,
    direction: 'down',
    count: opts.count,
    migrationsTable: 'pgmigrations',
    schema,
    migrationsSchema: schema,
    singleTransaction: true,
    lockValue: lockValueFor(schema),
    advisoryLockMode: 'wait',
    log: () => {},
  });
}

/** Drops a schema and everything in it; for test teardown. */
export async function dropSchema(url: string, schema: string): Promise<void> {
  await withClient(url, (c) => c.query(`DROP SCHEMA IF EXISTS "${assertSchemaName(schema)}" CASCADE`));
}

async function withClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  // As the pool's: on a busy machine a new connection can take over 3 s (seen: a suite's teardown
  // failing its file at 3 s, 5 December); a server that is down still fails at once.
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 15_000 });
  // A drop between queries fails the query in progress; the event must not crash the process too.
  client.on('error', () => {});
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}
