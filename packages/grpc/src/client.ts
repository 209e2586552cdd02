import { Metadata, type ServiceError, status } from '@grpc/grpc-js';
import { type GrpcClientMetrics, injectTraceContext } from '@mdp/telemetry';
import { ADDRESS_CHANNEL_OPTIONS, type OutlierPolicy, type ReplicaMetrics, ReplicaSet } from './replicas.ts';
import type { AsyncClient, ServiceDefinitionOf, UnaryMethodDefinition } from './types.ts';

export interface ClientOptions {
  /** Label for metrics: the owning service, e.g. `equities-data`. */
  target: string;
  metrics: GrpcClientMetrics;
  /** Per-address ejections and the open breaker, when the process exports them. */
  replicaMetrics?: ReplicaMetrics;
  /** Applied to every call unless the call gives its own: the call's whole budget, retry included. */
  defaultDeadlineMs: number;
  /**
   * Every method is a read: a call that missed its deadline or found its replica unavailable may go
   * once to another replica within its budget.
   */
  reads?: boolean;
  /** Outlier handling; OUTLIER_POLICY unless given (tests shorten it). */
  outliers?: OutlierPolicy;
}

/**
 * Channel settings for a channel that spreads calls round robin over every address its name has, for
 * a long-lived stream (the ledger's admission stream); unary calls use `createClient`'s channel per address.
 */
export const CHANNEL_OPTIONS = {
  'grpc.service_config': JSON.stringify({ loadBalancingConfig: [{ round_robin: {} }] }),
  ...ADDRESS_CHANNEL_OPTIONS,
};

export interface TypedClient<D extends ServiceDefinitionOf> {
  call: AsyncClient<D>;
  /** The addresses the target has now, each with whether it is ejected. */
  addresses(): { address: string; ejected: boolean }[];
  close(): void;
}

/**
 * A promise-returning client built straight from a generated service definition: a channel per
 * address the target resolves to (a headless Service's name: every ready pod) with outlier ejection
 * (see ReplicaSet), a deadline on every call, the caller's trace context in the metadata, and a metric
 * per call.
 */
export function createClient<D extends ServiceDefinitionOf>(
  definition: D,
  address: string,
  opts: ClientOptions,
): TypedClient<D> {
  const replicas = new ReplicaSet(address, opts.target, opts.outliers, opts.replicaMetrics);
  const call = {} as Record<string, unknown>;
  for (const [name, def] of Object.entries(definition) as [
    string,
    UnaryMethodDefinition<unknown, unknown>,
  ][]) {
    if (def.requestStream || def.responseStream) continue;
    call[name] = async (request: unknown, callOpts?: { deadlineMs?: number }) => {
      const metadata = new Metadata();
      const carrier: Record<string, string> = {};
      injectTraceContext(carrier);
      for (const [k, v] of Object.entries(carrier)) metadata.set(k, v);
      const endTimer = opts.metrics.duration.startTimer({ target: opts.target, method: name });
      let code: number = status.OK;
      try {
        return await replicas.unary(
          def,
          request,
          metadata,
          callOpts?.deadlineMs ?? opts.defaultDeadlineMs,
          opts.reads ?? false,
        );
      } catch (err) {
        code = (err as ServiceError).code;
        throw err;
      } finally {
        endTimer();
        opts.metrics.calls.inc({ target: opts.target, method: name, code: status[code] ?? String(code) });
      }
    };
  }
  return {
    call: call as AsyncClient<D>,
    addresses: () => replicas.addresses(),
    close: () => replicas.close(),
  };
}
