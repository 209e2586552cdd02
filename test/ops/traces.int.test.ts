import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PATIENT_DEADLINES, STACK_SHUTDOWN_MS, type Stack, startStack } from '../stack.ts';

/** A span as an OTLP/HTTP JSON export carries it, with the exporting process's service name. */
interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** OTLP SpanKind: 2 server, 3 client, 5 consumer. */
  kind: number;
  attributes: Record<string, string | number | boolean>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
}
interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}
const plain = (v: OtlpValue) =>
  v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : (v.boolValue ?? v.doubleValue ?? ''));
const attributes = (list: OtlpAttribute[] = []) =>
  Object.fromEntries(list.map((a) => [a.key, plain(a.value)]));

/**
 * A minimal OTLP/HTTP trace receiver: what a collector at OTEL_EXPORTER_OTLP_ENDPOINT would get. The
 * services' exporter (@opentelemetry/exporter-trace-otlp-http) posts JSON to `<endpoint>/v1/traces`.
 */
function startReceiver(): Promise<{
  server: Server;
  url: string;
  spans: ReceivedSpan[];
  rejected: string[];
}> {
  const spans: ReceivedSpan[] = [];
  const rejected: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const type = req.headers['content-type'] ?? '';
      if (req.method !== 'POST' || req.url !== '/v1/traces' || !type.startsWith('application/json')) {
        rejected.push(`${req.method} ${req.url} ${type}`);
        res.writeHead(415).end();
        return;
      }
      let body = Buffer.concat(chunks);
      if (req.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
      const doc = JSON.parse(body.toString('utf8')) as {
        resourceSpans?: {
          resource?: { attributes?: OtlpAttribute[] };
          scopeSpans?: {
            spans?: (Omit<ReceivedSpan, 'service' | 'attributes'> & { attributes?: OtlpAttribute[] })[];
          }[];
        }[];
      };
      for (const rs of doc.resourceSpans ?? []) {
        const service = String(attributes(rs.resource?.attributes)['service.name'] ?? '');
        for (const ss of rs.scopeSpans ?? []) {
          for (const s of ss.spans ?? []) {
            spans.push({
              service,
              traceId: s.traceId,
              spanId: s.spanId,
              parentSpanId: s.parentSpanId ?? '',
              name: s.name,
              kind: s.kind,
              attributes: attributes(s.attributes),
            });
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, spans, rejected }),
    ),
  );
}

let receiver: Awaited<ReturnType<typeof startReceiver>>;
let stack: Stack;

beforeAll(async () => {
  receiver = await startReceiver();
  // Every process exports to the receiver; a short batch delay so spans arrive within the test.
  // Patient deadlines: the trace of a 503 of a deadline would miss the hops this test follows.
  stack = await startStack({
    ...PATIENT_DEADLINES,
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_BSP_SCHEDULE_DELAY: '100',
  });
}, 300_000);
afterAll(async () => {
  await stack?.shutdown();
  await new Promise((r) => receiver?.server.close(r));
}, STACK_SHUTDOWN_MS);

describe('one request, one trace', () => {
  it('carries one trace id through gateway → auth → ledger → data service → settlement event', async () => {
    // A fresh token: verification happens only on a cache miss, and the auth hop is part of the trace.
    const token = (await stack.admin('demo-token', '--plan', 'pro')).split('\n').at(-1)!;
    const correlationId = `trace-${randomBytes(6).toString('hex')}`;
    const res = await fetch(`${stack.baseUrl}/v1/stocks/TCS/quote`, {
      headers: { authorization: `Bearer ${token}`, 'x-request-id': correlationId },
    });
    // The client's id is echoed and traced; the platform's own id keys the request, settlement included.
    expect(res.headers.get('x-request-id')).toBe(correlationId);
    const requestId = res.headers.get('request-id')!;
    expect(requestId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    // 200 once a dataset holds TCS, 404 without one: admitted either way, and settled (charged or refunded).
    expect([200, 404]).toContain(res.status);
    const settlement = res.status === 200 ? 'charged' : 'refunded';

    const find = (service: string, name: string, traceId?: string) =>
      receiver.spans.find(
        (s) => s.service === service && s.name === name && (traceId === undefined || s.traceId === traceId),
      );
    const until = Date.now() + 15_000;
    let gateway: ReceivedSpan | undefined;
    const wanted = () => {
      gateway ??= receiver.spans.find(
        (s) => s.service === 'gateway' && s.attributes['mdp.correlation_id'] === correlationId,
      );
      if (!gateway) return null;
      const t = gateway.traceId;
      const found = {
        auth: find('auth', '/mdp.auth.v1.AuthService/VerifyToken', t),
        admit: find('quota-ledger', 'ledger.admit', t),
        data: find('equities-data', '/mdp.equities.v1.EquitiesDataService/GetStockQuote', t),
        settle: receiver.spans.find(
          (s) =>
            s.service === 'quota-ledger' &&
            s.name === 'ledger.settle' &&
            s.attributes['mdp.request_id'] === requestId,
        ),
      };
      return Object.values(found).every(Boolean) ? (found as Record<keyof typeof found, ReceivedSpan>) : null;
    };
    let spans = wanted();
    while (!spans && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 100));
      spans = wanted();
    }
    expect(receiver.rejected, 'exports the receiver could not read').toEqual([]);
    if (!spans) {
      const seen = receiver.spans.map((s) => `${s.service} ${s.name} ${s.traceId}`).join('\n');
      throw new Error(`not every hop exported a span of the request's trace; spans received:\n${seen}`);
    }
    const { auth, admit, data, settle } = spans;
    const root = gateway!;
    expect(root.name).toBe('GET /v1/stocks/:symbol/quote');
    expect(root.attributes['mdp.request_id']).toBe(requestId);
    expect(root.kind).toBe(2);
    expect(root.attributes['http.response.status_code']).toBe(res.status);
    // One trace id in five processes' spans, each hop a child of the gateway's request span.
    for (const span of [auth, admit, data, settle]) {
      expect(span.traceId, span.name).toBe(root.traceId);
      expect(span.parentSpanId, span.name).toBe(root.spanId);
    }
    expect(settle.kind).toBe(5);
    expect(settle.attributes['mdp.settlement.kind']).toBe(settlement);
  });
});
