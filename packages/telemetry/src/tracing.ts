import {
  type Attributes,
  type Context,
  context,
  isSpanContextValid,
  propagation,
  type Span,
  type SpanContext,
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  SimpleSpanProcessor,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';

export interface TracingOptions {
  serviceName: string;
  /** OTLP/HTTP collector base URL; spans are exported only when set. */
  otlpEndpoint?: string | undefined;
  /** An exporter of the caller's, e.g. an in-memory one in tests; exported synchronously. */
  exporter?: SpanExporter;
}

export interface Tracing {
  tracer: Tracer;
  /** Whether spans are recorded (an exporter is set): per-message spans that nothing reads can be skipped. */
  recording: boolean;
  shutdown(): Promise<void>;
}

/**
 * Registers the process-wide tracer provider with W3C trace-context propagation and AsyncLocalStorage
 * context. Without an exporter spans are not recorded (nothing would read them: on the hot path a
 * recorded span per request and message is measurable work) but still have ids, so trace ids propagate
 * across services and appear in logs even when nothing collects them.
 */
/** Whether the process's provider records spans (set by initTracing: an exporter is configured). */
let recordingSpans = false;

export function initTracing(opts: TracingOptions): Tracing {
  const spanProcessors: SpanProcessor[] = [];
  if (opts.exporter) spanProcessors.push(new SimpleSpanProcessor(opts.exporter));
  if (opts.otlpEndpoint) {
    const url = `${opts.otlpEndpoint.replace(/\/$/, '')}/v1/traces`;
    spanProcessors.push(new BatchSpanProcessor(new OTLPTraceExporter({ url })));
  }
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: opts.serviceName }),
    spanProcessors,
    sampler:
      spanProcessors.length > 0
        ? new ParentBasedSampler({ root: new AlwaysOnSampler() })
        : new AlwaysOffSampler(),
  });
  // Trace context only, not W3C baggage: baggage is a client's free-form text (up to 8 KB), and the
  // gateway would otherwise hand it on to every internal call. traceparent and tracestate are parsed
  // and bounded by the propagator; they place spans in a trace and decide nothing else.
  provider.register({ propagator: new W3CTraceContextPropagator() });
  recordingSpans = spanProcessors.length > 0;
  return {
    tracer: trace.getTracer(opts.serviceName),
    recording: spanProcessors.length > 0,
    // Also gives up the process-wide registration, so a later initTracing (another test file in the
    // same worker) registers its own provider instead of being refused by the global API.
    shutdown: async () => {
      await provider.shutdown();
      trace.disable();
      propagation.disable();
      context.disable();
      recordingSpans = false;
    },
  };
}

/**
 * A request's server span. Recorded through the tracer when spans are exported. Otherwise nothing reads
 * it but its ids, which carry the request through the logs and to every service: they are taken from
 * the request's own id instead of sampling, drawing new random ids and building an SDK span for every
 * request. The trace id is the parent's when the client sent a valid traceparent, else the request id's
 * 32 hex digits, so either finds its log lines.
 * `requestId` is the gateway's own (`newRequestId`: a UUIDv7's text, lowercase hex 8-4-4-4-12, 74 of its
 * bits random), never a client's: its digits are taken by position, with no pattern matched for every
 * request. Text of another length gets a span of the tracer's own.
 */
export function startRequestSpan(tracer: Tracer, name: string, parent: Context, requestId: string): Span {
  if (recordingSpans || requestId.length !== 36)
    return tracer.startSpan(name, { kind: SpanKind.SERVER }, parent);
  const from = trace.getSpanContext(parent);
  if (!from || !isSpanContextValid(from)) return new RequestIdSpan(requestId);
  return trace.wrapSpanContext({
    traceId: from.traceId,
    spanId: spanIdOf(requestId),
    traceFlags: TraceFlags.NONE,
    ...(from.traceState ? { traceState: from.traceState } : {}),
  });
}

const spanIdOf = (requestId: string) => requestId.slice(19, 23) + requestId.slice(24);
const traceIdOf = (requestId: string) =>
  requestId.slice(0, 8) + requestId.slice(9, 13) + requestId.slice(14, 18) + spanIdOf(requestId);

/**
 * The span of a request whose trace its own id gives (no parent, spans not recorded): every method does
 * nothing, as a non-recording span's, and its ids are read from the request id only when something asks
 * (a call to another service). Most requests never ask: building the ids' text for each was measurable.
 */
class RequestIdSpan implements Span {
  private context: SpanContext | undefined;
  constructor(private readonly requestId: string) {}
  spanContext(): SpanContext {
    this.context ??= {
      traceId: traceIdOf(this.requestId),
      spanId: spanIdOf(this.requestId),
      traceFlags: TraceFlags.NONE,
    };
    return this.context;
  }
  setAttribute(): this {
    return this;
  }
  setAttributes(): this {
    return this;
  }
  addEvent(): this {
    return this;
  }
  addLink(): this {
    return this;
  }
  addLinks(): this {
    return this;
  }
  setStatus(): this {
    return this;
  }
  updateName(): this {
    return this;
  }
  end(): void {}
  isRecording(): boolean {
    return false;
  }
  recordException(): void {}
}

/**
 * A span's W3C `traceparent`, as the propagator would write it with the span active; '' for a span
 * without a valid context (or none). For a caller that holds the span rather than running inside it.
 */
export function traceparentOf(span: Span | undefined): string {
  const c = span?.spanContext();
  if (c === undefined || !isSpanContextValid(c)) return '';
  return `00-${c.traceId}-${c.spanId}-0${(c.traceFlags & 0xff).toString(16)}`;
}

/**
 * The `traceparent` a request's admission and settlement carry: '' when its request id gives it
 * (`requestTraceparent`), as for most requests, so that the id is not sent twice (a settlement event
 * was 55 bytes longer for it, and building the text cost every request); otherwise `traceparentOf`.
 */
export function traceparentToSend(span: Span | undefined): string {
  return span instanceof RequestIdSpan ? '' : traceparentOf(span);
}

const GATEWAY_REQUEST_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The trace context a request's own id gives it (`startRequestSpan` with no parent and spans not
 * recorded): what a reader of an admission or settlement event that carries no `traceparent` places
 * its span under. Undefined for an id that is not a gateway's.
 */
export function requestTraceparent(requestId: string): string | undefined {
  if (!GATEWAY_REQUEST_ID.test(requestId)) return undefined;
  return `00-${traceIdOf(requestId)}-${spanIdOf(requestId)}-00`;
}

/**
 * The parent of a reader's span for a request's admission or settlement: the `traceparent` it carries,
 * else one in `headers` (a message's, from gateways that put it there), else the one its gateway
 * request id gives (`requestTraceparent`), else none.
 */
export function requestTraceContext(
  traceparent: string | undefined,
  requestId: string,
  headers?: Record<string, string>,
): Context {
  if (traceparent) return extractTraceContext({ traceparent });
  if (headers?.traceparent !== undefined) return extractTraceContext(headers);
  const derived = requestTraceparent(requestId);
  return derived === undefined ? context.active() : extractTraceContext({ traceparent: derived });
}

/** Writes the active trace context into a string map (gRPC metadata, NATS headers). */
export function injectTraceContext(carrier: Record<string, string>, ctx: Context = context.active()): void {
  propagation.inject(ctx, carrier);
}

/**
 * Reads a trace context from headers or metadata as a parent for the next span. Without a `traceparent`
 * the propagator reads nothing (it ignores a `tracestate` alone), so it is not asked: most requests
 * carry none.
 */
export function extractTraceContext(carrier: Record<string, string | string[] | undefined>): Context {
  const active = context.active();
  return carrier.traceparent === undefined ? active : propagation.extract(active, carrier);
}

/** Runs `fn` inside a new span that ends when it settles, recording a thrown error. */
export async function inSpan<T>(
  tracer: Tracer,
  name: string,
  opts: { kind: SpanKind; parent?: Context; attributes?: Record<string, string | number> },
  fn: (span: Span) => Promise<T>,
): Promise<T> {
  const parent = opts.parent ?? context.active();
  const span = tracer.startSpan(name, { kind: opts.kind, attributes: opts.attributes ?? {} }, parent);
  try {
    return await context.with(trace.setSpan(parent, span), () => fn(span));
  } catch (err) {
    span.setStatus({ code: SpanStatusCode.ERROR });
    throw err;
  } finally {
    span.end();
  }
}

export type { Attributes, Context, Span, Tracer };
export { context, SpanKind, SpanStatusCode, trace };
