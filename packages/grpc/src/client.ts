import { type CallOptions, Client, credentials, Metadata, type ServiceError, status } from '@grpc/grpc-js';
import { type GrpcClientMetrics, injectTraceContext } from '@mdp/telemetry';
import type { AsyncClient, ServiceDefinitionOf, UnaryMethodDefinition } from './types.ts';

export interface ClientOptions {
  /** Label for metrics: the owning service, e.g. `equities-data`. */
  target: string;
  metrics: GrpcClientMetrics;
  /** Applied to every call unless the call gives its own. */
  defaultDeadlineMs: number;
}

/**
 * Channel settings for long-lived connections between pods: detect dead peers, reconnect fast, and
 * spread calls over every address the name resolves to (round robin). Behind a Kubernetes headless
 * Service (`dns:///name.ns.svc.cluster.local:port`) that is every ready pod; a plain ClusterIP name
 * resolves to one address and behaves as before.
 */
export const CHANNEL_OPTIONS = {
  'grpc.service_config': JSON.stringify({ loadBalancingConfig: [{ round_robin: {} }] }),
  'grpc.keepalive_time_ms': 20_000,
  'grpc.keepalive_timeout_ms': 5_000,
  'grpc.keepalive_permit_without_calls': 1,
  'grpc.initial_reconnect_backoff_ms': 200,
  'grpc.max_reconnect_backoff_ms': 2_000,
  'grpc.max_receive_message_length': 16 * 1024 * 1024,
};

export interface TypedClient<D extends ServiceDefinitionOf> {
  call: AsyncClient<D>;
  /** The channel itself, for streaming methods. */
  raw: Client;
  close(): void;
}

/**
 * A promise-returning client built straight from a generated service definition: one HTTP/2 channel,
 * a deadline on every call, the caller's trace context in the metadata, and a metric per call.
 */
export function createClient<D extends ServiceDefinitionOf>(
  definition: D,
  address: string,
  opts: ClientOptions,
): TypedClient<D> {
  const client = new Client(address, credentials.createInsecure(), CHANNEL_OPTIONS);
  const call = {} as Record<string, unknown>;
  for (const [name, def] of Object.entries(definition) as [
    string,
    UnaryMethodDefinition<unknown, unknown>,
  ][]) {
    if (def.requestStream || def.responseStream) continue;
    call[name] = (request: unknown, callOpts?: { deadlineMs?: number }) => {
      const metadata = new Metadata();
      const carrier: Record<string, string> = {};
      injectTraceContext(carrier);
      for (const [k, v] of Object.entries(carrier)) metadata.set(k, v);
      const options: CallOptions = {
        deadline: Date.now() + (callOpts?.deadlineMs ?? opts.defaultDeadlineMs),
      };
      const endTimer = opts.metrics.duration.startTimer({ target: opts.target, method: name });
      return new Promise((resolve, reject) => {
        client.makeUnaryRequest(
          def.path,
          def.requestSerialize,
          def.responseDeserialize,
          request,
          metadata,
          options,
          (err: ServiceError | null, value?: unknown) => {
            endTimer();
            opts.metrics.calls.inc({
              target: opts.target,
              method: name,
              code: status[err ? err.code : status.OK] ?? String(err?.code),
            });
            if (err) reject(err);
            else resolve(value);
          },
        );
      });
    };
  }
  return { call: call as AsyncClient<D>, raw: client, close: () => client.close() };
}
