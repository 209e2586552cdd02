import {
  Server,
  ServerCredentials,
  type ServerUnaryCall,
  type ServerWritableStream,
  type ServiceDefinition,
  type sendUnaryData,
  status,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import {
  extractTraceContext,
  type GrpcServerMetrics,
  grpcServerMetrics,
  inSpan,
  type Logger,
  type Registry,
  SpanKind,
  type Tracer,
} from '@mdp/telemetry';
import { HealthImplementation, type ServingStatusMap } from 'grpc-health-check';
import { RpcError } from './rpc-error.ts';
import type { AsyncServiceImpl, ServiceDefinitionOf } from './types.ts';

export interface GrpcServerOptions {
  logger: Logger;
  tracer: Tracer;
  registry: Registry;
  /**
   * Close each client connection after this long (with a grace for calls in flight), so clients
   * re-resolve and spread onto pods that appeared since. For services of unary calls only: a
   * long-lived stream (the ledger's admission stream) must not be cut.
   */
  maxConnectionAgeMs?: number;
}

/** The connection age of the unary services: long enough to cost nothing, short enough to follow scaling. */
export const UNARY_MAX_CONNECTION_AGE_MS = 5 * 60_000;
const CONNECTION_AGE_GRACE_MS = 30_000;

/** Per-method metadata → plain headers for the trace propagator. */
function metadataCarrier(call: ServerUnaryCall<unknown, unknown>): Record<string, string> {
  const carrier: Record<string, string> = {};
  for (const [key, value] of Object.entries(call.metadata.getMap())) {
    if (typeof value === 'string') carrier[key] = value;
  }
  return carrier;
}

/**
 * A gRPC server whose handlers are async functions. Every call gets a server span continuing the
 * caller's trace, a metric by method and status, and error mapping: `RpcError`s go out as their status,
 * anything else as INTERNAL with a generic message (the cause is logged, never sent). The standard
 * grpc.health.v1 service reports SERVING per registered service until shutdown begins.
 */
export class GrpcServer {
  readonly server: Server;
  private readonly health: HealthImplementation;
  private readonly serviceNames: string[] = [];
  private readonly metrics: GrpcServerMetrics;
  /** Streaming calls open now: a shutdown ends them rather than waiting out its grace for them. */
  private readonly streams = new Set<ServerWritableStream<unknown, unknown>>();

  constructor(private readonly opts: GrpcServerOptions) {
    this.server = new Server({
      'grpc.max_receive_message_length': 4 * 1024 * 1024,
      ...(opts.maxConnectionAgeMs
        ? {
            'grpc.max_connection_age_ms': opts.maxConnectionAgeMs,
            'grpc.max_connection_age_grace_ms': CONNECTION_AGE_GRACE_MS,
          }
        : {}),
    });
    this.metrics = grpcServerMetrics(opts.registry);
    const statuses: ServingStatusMap = { '': 'NOT_SERVING' };
    this.health = new HealthImplementation(statuses);
    this.health.addToServer(this.server);
  }

  add<D extends ServiceDefinitionOf>(definition: D, impl: AsyncServiceImpl<D>): this {
    const handlers: UntypedServiceImplementation = {};
    for (const [method, def] of Object.entries(definition)) {
      const fn = impl[method as keyof D];
      if (def.responseStream) {
        const handler = fn as unknown as (call: ServerWritableStream<unknown, unknown>) => void;
        handlers[method] = (call: ServerWritableStream<unknown, unknown>) => {
          this.streams.add(call);
          const forget = () => this.streams.delete(call);
          call.once('finish', forget);
          call.once('close', forget);
          call.once('cancelled', forget);
          handler(call);
        };
        continue;
      }
      if (def.requestStream) {
        handlers[method] = fn as UntypedServiceImplementation[string];
        continue;
      }
      handlers[method] = (call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>) => {
        this.handle(def.path, call, callback, fn as (req: unknown, ctx: never) => Promise<unknown>);
      };
    }
    this.server.addService(definition as unknown as ServiceDefinition, handlers);
    // '/mdp.equities.v1.EquitiesDataService/SearchStocks' → the fully qualified service name
    const firstPath = Object.values(definition)[0]?.path ?? '';
    this.serviceNames.push(firstPath.slice(1, firstPath.lastIndexOf('/')));
    return this;
  }

  private handle(
    path: string,
    call: ServerUnaryCall<unknown, unknown>,
    callback: sendUnaryData<unknown>,
    fn: (req: unknown, ctx: never) => Promise<unknown>,
  ): void {
    const { logger, tracer } = this.opts;
    const metrics = this.metrics;
    const endTimer = metrics.duration.startTimer({ method: path });
    const abort = new AbortController();
    call.on('cancelled', () => abort.abort());
    const parent = extractTraceContext(metadataCarrier(call));
    inSpan(tracer, path, { kind: SpanKind.SERVER, parent, attributes: { 'rpc.system': 'grpc' } }, () =>
      fn(call.request, { metadata: call.metadata, signal: abort.signal, peer: call.getPeer() } as never),
    ).then(
      (response) => {
        endTimer();
        metrics.handled.inc({ method: path, code: status[status.OK] });
        callback(null, response);
      },
      (err: unknown) => {
        endTimer();
        const rpcError =
          err instanceof RpcError ? err : new RpcError(status.INTERNAL, 'internal error in the data service');
        if (!(err instanceof RpcError)) logger.error({ err, method: path }, 'gRPC handler failed');
        metrics.handled.inc({ method: path, code: status[rpcError.code] });
        callback(rpcError.toServiceError(), null);
      },
    );
  }

  /** Binds and starts serving; resolves to the bound port (use port 0 in tests). */
  async listen(host: string, port: number): Promise<number> {
    const bound = await new Promise<number>((resolve, reject) => {
      this.server.bindAsync(`${host}:${port}`, ServerCredentials.createInsecure(), (err, p) =>
        err ? reject(err) : resolve(p),
      );
    });
    this.setServing(true);
    return bound;
  }

  setServing(serving: boolean): void {
    const value = serving ? 'SERVING' : 'NOT_SERVING';
    this.health.setStatus('', value);
    for (const name of this.serviceNames) this.health.setStatus(name, value);
  }

  /**
   * Stops taking new calls and ends the streams open (their clients go on elsewhere: a stream has no
   * last message to wait for), lets unary calls in flight finish within `graceMs`, then cancels the rest.
   */
  async shutdown(graceMs: number): Promise<void> {
    this.setServing(false);
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.server.forceShutdown();
        resolve();
      }, graceMs);
      this.server.tryShutdown(() => {
        clearTimeout(timer);
        resolve();
      });
      for (const call of this.streams) if (!call.writableEnded) call.end();
    });
  }
}
