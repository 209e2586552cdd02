import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { CellCounter, CellHistogram } from './metric-cells.ts';

/** Latency buckets in seconds, from sub-millisecond cache hits to multi-second upstream timeouts. */
export const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/**
 * How often the event-loop delay gauges (`nodejs_eventloop_lag_*`) sample, in ms. Node's monitor records
 * the time between samples, so an idle loop reads this much: the delay is the reading minus it
 * (deploy/grafana's saturation dashboard takes it off). Each sample is a timer that wakes an idle loop:
 * at prom-client's 10 ms an idle service spent about 6 ms of CPU a second on it, and the four services a
 * metered quote does not reach took 3 to 7 µs a request between them off the two cores it shares
 * (contributors.md, 7 December). At 50 ms a stall of 50 ms or more is always seen, a shorter one in
 * proportion to its length, and a 15 s scrape holds 300 samples.
 */
export const EVENT_LOOP_RESOLUTION_MS = 50;

/** One registry per process, with Node's default process metrics and the service as a label. */
export function createRegistry(service: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: EVENT_LOOP_RESOLUTION_MS });
  return registry;
}

/**
 * Public HTTP traffic, labelled by operation id (bounded), never by raw URL. Updated once per request,
 * through cells (`cell(route, method, status, code)`).
 */
export function httpServerMetrics(registry: Registry) {
  return {
    requests: new CellCounter({
      name: 'http_requests_total',
      help: 'HTTP requests answered, by operation, method, status and error code',
      labelNames: ['route', 'method', 'status', 'code'] as const,
      registers: [registry],
    }),
    duration: new CellHistogram({
      name: 'http_request_duration_seconds',
      help: 'Time from request received to response sent',
      labelNames: ['route', 'method', 'status'] as const,
      buckets: LATENCY_BUCKETS,
      registers: [registry],
    }),
  };
}
export type HttpServerMetrics = ReturnType<typeof httpServerMetrics>;

/** Calls this process makes to another service over gRPC. */
export function grpcClientMetrics(registry: Registry) {
  return {
    calls: new Counter({
      name: 'grpc_client_calls_total',
      help: 'Outgoing gRPC calls, by target service, method and status code',
      labelNames: ['target', 'method', 'code'] as const,
      registers: [registry],
    }),
    duration: new Histogram({
      name: 'grpc_client_call_duration_seconds',
      help: 'Outgoing gRPC call latency',
      labelNames: ['target', 'method'] as const,
      buckets: LATENCY_BUCKETS,
      registers: [registry],
    }),
  };
}
export type GrpcClientMetrics = ReturnType<typeof grpcClientMetrics>;

/** Calls this process answers over gRPC. */
export function grpcServerMetrics(registry: Registry) {
  return {
    handled: new Counter({
      name: 'grpc_server_handled_total',
      help: 'gRPC calls answered, by method and status code',
      labelNames: ['method', 'code'] as const,
      registers: [registry],
    }),
    duration: new Histogram({
      name: 'grpc_server_handling_seconds',
      help: 'gRPC handler latency',
      labelNames: ['method'] as const,
      buckets: LATENCY_BUCKETS,
      registers: [registry],
    }),
  };
}
export type GrpcServerMetrics = ReturnType<typeof grpcServerMetrics>;

export { Counter, Gauge, Histogram, Registry };
