import { randomBytes } from 'node:crypto';
import { dropSchema, migratedPool, type Pool } from '@mdp/db';
import { createClient, PARAM_METADATA_KEY, type TypedClient } from '@mdp/grpc';
import { equities } from '@mdp/proto';
import { createLogger, createRegistry, grpcClientMetrics, trace } from '@mdp/telemetry';
import { buildApp, equitiesImpl } from '../src/app.ts';
import type { Area } from '../src/areas/area.ts';
import { AreaData } from '../src/areas/index.ts';
import { pgBarSource } from '../src/areas/stocks/bar-source.ts';
import { EquitiesDataset } from '../src/areas/stocks/dataset.ts';
import { readDataset } from '../src/areas/stocks/read.ts';
import { DATABASE_URL } from './support.ts';

export const silent = createLogger('t', 'silent');
const MIGRATIONS = new URL('../migrations/', import.meta.url).pathname;

/** The real gRPC server over a fresh schema, and a real client of it. */
export interface ServiceEnv {
  schema: string;
  pool: Pool;
  client: TypedClient<typeof equities.EquitiesDataServiceService>;
  /** What the service answers from, as of the last reload. */
  readonly dataset: EquitiesDataset;
  readonly areas: AreaData;
  /** Reads the stocks and the areas again, as the server does when an import commits. */
  reload(): Promise<void>;
  /** Stops the client and server and drops the schema. */
  close(): Promise<void>;
}

/**
 * Migrates a fresh schema `<prefix>_<random>` and serves it: empty until the caller fills it and
 * calls `reload`. `areas` are the areas read (default all of them).
 */
export async function startService(opts: {
  prefix: string;
  clock: () => number;
  areas?: readonly Area<unknown>[];
}): Promise<ServiceEnv> {
  const schema = `${opts.prefix}_${randomBytes(5).toString('hex')}`;
  const pool = await migratedPool({
    url: DATABASE_URL,
    schema,
    dir: MIGRATIONS,
    max: 4,
    applicationName: `${opts.prefix}-test`,
  });
  let dataset: EquitiesDataset;
  let areas: AreaData;
  const reload = async () => {
    dataset = new EquitiesDataset(await readDataset(pool));
    areas = await AreaData.read(pool, opts.areas);
  };
  try {
    await reload();
  } catch (err) {
    await pool.end();
    await dropSchema(DATABASE_URL, schema);
    throw err;
  }
  const server = buildApp({
    logger: silent,
    tracer: trace.getTracer('t'),
    registry: createRegistry('equities-data'),
    impl: equitiesImpl({
      dataset: () => dataset,
      bars: pgBarSource(pool),
      clock: opts.clock,
      areas: () => areas,
      pool,
    }),
  });
  const port = await server.listen('127.0.0.1', 0);
  const client = createClient(equities.EquitiesDataServiceService, `127.0.0.1:${port}`, {
    target: 'equities-data',
    metrics: grpcClientMetrics(createRegistry('client')),
    defaultDeadlineMs: 10_000,
  });
  return {
    schema,
    pool,
    client,
    get dataset() {
      return dataset;
    },
    get areas() {
      return areas;
    },
    reload,
    async close() {
      client.close();
      await server.shutdown(500);
      await pool.end();
      await dropSchema(DATABASE_URL, schema);
    },
  };
}

/** The status code, the parameter named in the metadata and the message of a failed gRPC call. */
export async function grpcError(p: Promise<unknown>) {
  const err = (await p.then(
    () => undefined,
    (e: unknown) => e,
  )) as { code: number; details: string; metadata?: { get(k: string): unknown[] } } | undefined;
  if (!err) throw new Error('expected the call to fail');
  return { code: err.code, param: err.metadata?.get(PARAM_METADATA_KEY)[0], details: err.details };
}
