import { randomBytes } from 'node:crypto';
import { dropSchema, migratedPool, type Pool } from '@mdp/db';
import { createClient, type GrpcServer, type TypedClient } from '@mdp/grpc';
import { options } from '@mdp/proto';
import { createLogger, createRegistry, grpcClientMetrics, trace } from '@mdp/telemetry';
import { buildApp } from '../src/app.ts';
import { optionsService } from '../src/service/options-service.ts';
import { OptionsStore } from '../src/store/options-store.ts';

export const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@localhost:5432/mdp';
export const R = 0.065;
const silent = createLogger('test', 'silent');

/** A fresh, uniquely named schema with the service's migrations applied, and a pool on it. */
export async function freshSchema(
  prefix: string,
): Promise<{ schema: string; pool: Pool; drop(): Promise<void> }> {
  const schema = `${prefix}_${randomBytes(5).toString('hex')}`;
  const pool = await migratedPool({
    url: DATABASE_URL,
    schema,
    dir: new URL('../migrations/', import.meta.url).pathname,
    max: 4,
    applicationName: 'options-test',
  });
  return {
    schema,
    pool,
    drop: async () => {
      await pool.end();
      await dropSchema(DATABASE_URL, schema);
    },
  };
}

export type OptionsClient = TypedClient<typeof options.OptionsAnalyticsServiceService>;

/** The service on a free port over a schema, with a client; `call` parses the document's JSON. */
export async function serve(pool: Pool, opts: { versionTtlMs?: number } = {}) {
  const server: GrpcServer = buildApp({
    logger: silent,
    tracer: trace.getTracer('test'),
    registry: createRegistry('options-test'),
    impl: optionsService({
      store: new OptionsStore(pool),
      r: R,
      clock: Date.now,
      versionTtlMs: opts.versionTtlMs,
    }),
  });
  const port = await server.listen('127.0.0.1', 0);
  const client: OptionsClient = createClient(options.OptionsAnalyticsServiceService, `127.0.0.1:${port}`, {
    target: 'options-analytics',
    metrics: grpcClientMetrics(createRegistry('options-test-client')),
    defaultDeadlineMs: 10_000,
  });
  const json = async (
    p: Promise<{ data_json: Buffer; meta_json: Buffer }>,
  ): Promise<{ data: any; meta: any }> => {
    const doc = await p;
    return {
      data: JSON.parse(doc.data_json.toString()),
      meta: doc.meta_json.length ? JSON.parse(doc.meta_json.toString()) : null,
    };
  };
  return {
    client,
    chain: (req: { symbol: string; expiry?: string; strikes?: number }) =>
      json(client.call.getOptionChain(req)),
    history: (symbol: string, range: string) => json(client.call.getIvHistory({ symbol, range })),
    stock: (symbol: string) => json(client.call.getStockOptions({ symbol })),
    close: async () => {
      client.close();
      await server.shutdown(100);
    },
  };
}

/** The gRPC status, and for INVALID_ARGUMENT the parameter, of a rejected call. */
export async function failure(
  p: Promise<unknown>,
): Promise<{ code: number; param: string | undefined; details: string }> {
  try {
    await p;
  } catch (err) {
    const e = err as { code: number; details: string; metadata?: { get(k: string): unknown[] } };
    return { code: e.code, param: e.metadata?.get('mdp-param')[0] as string | undefined, details: e.details };
  }
  throw new Error('the call succeeded');
}
