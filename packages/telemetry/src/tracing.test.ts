import { afterAll, expect, it } from 'vitest';
import { extractTraceContext, initTracing, injectTraceContext } from './tracing.ts';

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
