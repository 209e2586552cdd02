import { context, trace } from '@opentelemetry/api';
import { afterAll, expect, it } from 'vitest';
import {
  extractTraceContext,
  initTracing,
  injectTraceContext,
  requestTraceContext,
  requestTraceparent,
  startRequestSpan,
  traceparentOf,
  traceparentToSend,
} from './tracing.ts';

const tracing = initTracing({ serviceName: 'propagation-test' });
afterAll(() => tracing.shutdown());

it('hands on a client’s trace context but not its baggage', () => {
  const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
  const incoming = {
    traceparent,
    tracestate: 'vendor=opaque',
    baggage: `account_id=someone-else,plan=unlimited,${'x'.repeat(4000)}=1`,
  };
  const carrier: Record<string, string> = {};
  injectTraceContext(carrier, extractTraceContext(incoming));
  expect(carrier).toEqual({ traceparent, tracestate: 'vendor=opaque' });
});

it('drops a malformed traceparent instead of handing it on', () => {
  const carrier: Record<string, string> = {};
  injectTraceContext(carrier, extractTraceContext({ traceparent: `00-${'z'.repeat(5000)}-01` }));
  expect(carrier).toEqual({});
});

it('a request span with nothing exporting takes its ids from the request id, or the trace from a valid parent', () => {
  const requestId = '019ac6d2-7f3e-7a51-9c2b-3d4e5f607182';
  const own = startRequestSpan(tracing.tracer, 'GET /x', context.active(), requestId);
  expect(own.isRecording()).toBe(false);
  expect(own.spanContext()).toMatchObject({
    traceId: '019ac6d27f3e7a519c2b3d4e5f607182',
    spanId: '9c2b3d4e5f607182',
  });
  const carrier: Record<string, string> = {};
  injectTraceContext(carrier, trace.setSpan(context.active(), own));
  expect(carrier).toEqual({ traceparent: '00-019ac6d27f3e7a519c2b3d4e5f607182-9c2b3d4e5f607182-00' });

  const parent = extractTraceContext({
    traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
    tracestate: 'vendor=opaque',
  });
  const child = startRequestSpan(tracing.tracer, 'GET /x', parent, requestId);
  const handed: Record<string, string> = {};
  injectTraceContext(handed, trace.setSpan(context.active(), child));
  expect(handed).toEqual({
    traceparent: '00-0af7651916cd43dd8448eb211c80319c-9c2b3d4e5f607182-00',
    tracestate: 'vendor=opaque',
  });
  // A malformed parent is no parent: the request's own trace.
  const bad = startRequestSpan(
    tracing.tracer,
    'GET /x',
    extractTraceContext({ traceparent: 'junk' }),
    requestId,
  );
  expect(bad.spanContext().traceId).toBe('019ac6d27f3e7a519c2b3d4e5f607182');
});

it('a held span’s traceparent is what the propagator writes with the span active', () => {
  const sampled = extractTraceContext({
    traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
  });
  const spans = [
    startRequestSpan(tracing.tracer, 'GET /x', context.active(), '019ac6d2-7f3e-7a51-9c2b-3d4e5f607182'),
    startRequestSpan(tracing.tracer, 'GET /x', sampled, '019ac6d2-7f3e-7a51-9c2b-3d4e5f607183'),
    trace.wrapSpanContext({
      traceId: '0af7651916cd43dd8448eb211c80319c',
      spanId: 'b7ad6b7169203331',
      traceFlags: 1,
    }),
  ];
  for (const span of spans) {
    const carrier: Record<string, string> = {};
    injectTraceContext(carrier, trace.setSpan(context.active(), span));
    expect(carrier.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/);
    expect(traceparentOf(span)).toBe(carrier.traceparent);
  }
  expect(
    traceparentOf(trace.wrapSpanContext({ traceId: '0'.repeat(32), spanId: '0'.repeat(16), traceFlags: 0 })),
  ).toBe('');
  expect(traceparentOf(undefined)).toBe('');
});

it('sends no traceparent that the request id gives, and its reader gets the same one back from the id', () => {
  const requestId = '019ac6d2-7f3e-7a51-9c2b-3d4e5f607184';
  const own = startRequestSpan(tracing.tracer, 'GET /x', context.active(), requestId);
  expect(traceparentToSend(own)).toBe('');
  expect(requestTraceparent(requestId)).toBe(traceparentOf(own));

  // A client's trace is not in the id: it is sent.
  const parent = extractTraceContext({
    traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
  });
  const child = startRequestSpan(tracing.tracer, 'GET /x', parent, requestId);
  expect(traceparentToSend(child)).toBe('00-0af7651916cd43dd8448eb211c80319c-9c2b3d4e5f607184-00');
  expect(traceparentToSend(undefined)).toBe('');

  // Only a gateway's id gives a trace: anything else read off a stream gives none.
  for (const other of ['req-1', `${requestId}x`, requestId.toUpperCase(), requestId.replaceAll('-', '_')])
    expect(requestTraceparent(other)).toBeUndefined();
});

it('places a reader’s span under the traceparent an event carries, else its headers’, else its id’s', () => {
  const requestId = '019ac6d2-7f3e-7a51-9c2b-3d4e5f607185';
  const sent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
  const inHeaders = '00-1af7651916cd43dd8448eb211c80319c-c7ad6b7169203331-01';
  const parentOf = (ctx: ReturnType<typeof requestTraceContext>) => trace.getSpanContext(ctx);
  expect(parentOf(requestTraceContext(sent, requestId, { traceparent: inHeaders }))).toMatchObject({
    traceId: '0af7651916cd43dd8448eb211c80319c',
    spanId: 'b7ad6b7169203331',
  });
  expect(parentOf(requestTraceContext('', requestId, { traceparent: inHeaders }))?.traceId).toBe(
    '1af7651916cd43dd8448eb211c80319c',
  );
  // As the request's own span had it at the gateway, which sent nothing.
  const own = startRequestSpan(tracing.tracer, 'GET /x', context.active(), requestId);
  expect(parentOf(requestTraceContext('', requestId, { 'Nats-Msg-Id': 'x' }))).toMatchObject({
    traceId: own.spanContext().traceId,
    spanId: own.spanContext().spanId,
  });
  expect(parentOf(requestTraceContext(undefined, 'req-1'))).toBeUndefined();
});
