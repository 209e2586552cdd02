import { hash } from 'node:crypto';
import { ApiError } from '@mdp/errors';
import {
  type AsyncClient,
  createClient,
  PARAM_METADATA_KEY,
  replicaMetrics,
  status,
  type TypedClient,
} from '@mdp/grpc';
import { auth, equities, filings, ledger, options } from '@mdp/proto';
import { Gauge, grpcClientMetrics, type Registry } from '@mdp/telemetry';
import type { UpstreamName, Upstreams } from './catalogue/index.ts';
import { LedgerShards } from './ledger-shards.ts';

export interface UpstreamAddresses {
  auth: string;
  equities: string;
  filings: string;
  options: string;
  /** One address per ledger shard, in shard order. */
  ledger: string[];
}

/**
 * One long-lived channel per address of each owning service, with per-address outlier ejection (see
 * `createClient`); call `close` on shutdown. The data services' methods are all reads: a call that
 * missed its deadline on one replica may go once to another within its budget (`reads`). Auth and the
 * ledger have writes, so their calls are never sent twice.
 */
export function connectUpstreams(
  addresses: UpstreamAddresses,
  registry: Registry,
  deadlineMs: number,
  shards: LedgerShards = new LedgerShards(addresses.ledger),
): { upstreams: Upstreams; authClient: AsyncClient<typeof auth.AuthServiceService>; close: () => void } {
  const metrics = grpcClientMetrics(registry);
  const replicas = replicaMetrics(registry);
  const opts = (target: string, reads = false) => ({
    target,
    metrics,
    replicaMetrics: replicas,
    defaultDeadlineMs: deadlineMs,
    reads,
  });
  const clients = {
    auth: createClient(auth.AuthServiceService, addresses.auth, opts('auth')),
    equities: createClient(
      equities.EquitiesDataServiceService,
      addresses.equities,
      opts('equities-data', true),
    ),
    filings: createClient(
      filings.FilingsReaderServiceService,
      addresses.filings,
      opts('filings-reader', true),
    ),
    options: createClient(
      options.OptionsAnalyticsServiceService,
      addresses.options,
      opts('options-analytics', true),
    ),
  };
  const ledgers = addresses.ledger.map((a) =>
    createClient(ledger.QuotaLedgerServiceService, a, opts('quota-ledger')),
  );
  // Every gateway must route an account to the same shard: two maps at once show as two `map` values
  // (an alert), and the shards refuse the accounts a different map sends them (not_owner).
  new Gauge({
    name: 'gateway_ledger_shard_map',
    help: 'The shard map this gateway routes by: how many shards, and a digest of their addresses in order',
    labelNames: ['shards', 'map'] as const,
    registers: [registry],
  }).set(
    { shards: String(ledgers.length), map: hash('sha256', addresses.ledger.join(','), 'hex').slice(0, 12) },
    1,
  );
  const all: TypedClient<never>[] = Object.values(clients) as never;
  return {
    authClient: clients.auth.call,
    upstreams: {
      equities: clients.equities.call,
      filings: clients.filings.call,
      options: clients.options.call,
      ledger: (accountId: string) => ledgers[shards.route(shards.of(accountId))]!.call,
    },
    close: () => {
      for (const client of [...all, ...ledgers]) client.close();
    },
  };
}

interface GrpcFailure {
  code: number;
  details?: string;
  metadata?: { get(key: string): unknown[] };
}

function isGrpcFailure(err: unknown): err is GrpcFailure {
  return typeof err === 'object' && err !== null && typeof (err as GrpcFailure).code === 'number';
}

/**
 * What a client is told when the owning service fails. The service's own words pass through only for
 * NOT_FOUND and INVALID_ARGUMENT, which are written for clients; every other detail stays in the logs.
 * The ledger is the quota backend: when it cannot answer (a shard catching up, recording behind a usage
 * read, a deadline), SPEC 7.5's 503 with Retry-After, not a data dependency's 502.
 */
export function toApiError(err: unknown, upstream?: UpstreamName): ApiError {
  if (!isGrpcFailure(err)) return ApiError.internal(err);
  switch (err.code) {
    case status.NOT_FOUND:
      return new ApiError('not_found', err.details || 'not found');
    case status.INVALID_ARGUMENT: {
      const param = err.metadata?.get(PARAM_METADATA_KEY)[0];
      return new ApiError('invalid_request', err.details || 'invalid request', {
        details: typeof param === 'string' ? { param } : {},
      });
    }
    case status.UNAVAILABLE:
    case status.DEADLINE_EXCEEDED:
    case status.CANCELLED:
    case status.RESOURCE_EXHAUSTED:
      return upstream === 'ledger' ? ApiError.serviceUnavailable(err) : ApiError.upstreamUnavailable(err);
    default:
      return ApiError.toolError(err);
  }
}
