import { initTracing } from '@mdp/telemetry';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServices, startGateway, startServices, type TestGateway } from './harness.ts';

const exporter = new InMemorySpanExporter();
const tracing = initTracing({ serviceName: 'observability-test', exporter });
let services: RunningServices;
let gw: TestGateway;

beforeAll(async () => {
  services = await startServices();
  gw = await startGateway(services);
});
afterAll(async () => {
  await gw.close();
  await services.stop();
  await tracing.shutdown();
});

describe('traces', () => {
  it('one trace id runs from the HTTP request through the gRPC call into the data service', async () => {
    exporter.reset();
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const res = await gw.inject({
      method: 'GET',
      url: '/v1/stocks/TCS/quote',
      headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
    });
    expect(res.statusCode).toBe(200);
    const spans = exporter.getFinishedSpans();
    const gateway = spans.find((s) => s.name.startsWith('GET '));
    const service = spans.find((s) => s.name === '/mdp.equities.v1.EquitiesDataService/GetStockQuote');
    expect(gateway?.spanContext().traceId).toBe(traceId);
    expect(service?.spanContext().traceId).toBe(traceId);
    expect(service?.parentSpanContext?.spanId).toBe(gateway?.spanContext().spanId);
    expect(gateway?.attributes['http.response.status_code']).toBe(200);
  });
});

describe('metrics', () => {
  it('counts requests by operation, status and error code, and times upstream calls', async () => {
    await gw.get('/v1/stocks/TCS/quote');
    await gw.get('/v1/stocks/TCS/quote?bogus=1');
    const text = await gw.registry.metrics();
    expect(text).toMatch(
      /http_requests_total\{route="getStockQuote",method="GET",status="200",code="",service="gateway"\} [1-9]/,
    );
    expect(text).toMatch(
      /http_requests_total\{route="getStockQuote",method="GET",status="400",code="invalid_request",service="gateway"\} 1/,
    );
    expect(text).toMatch(
      /grpc_client_calls_total\{target="equities-data",method="getStockQuote",code="OK",service="gateway"\}/,
    );
    expect(text).toMatch(/http_request_duration_seconds_bucket\{.*route="getStockQuote"/);
  });
});
