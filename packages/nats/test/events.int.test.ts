import { randomBytes } from 'node:crypto';
import { createLogger, initTracing, SpanKind, trace } from '@mdp/telemetry';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { afterAll, describe, expect, it } from 'vitest';
import { connectNats, publishJson, subscribeJson } from '../src/index.ts';

const exporter = new InMemorySpanExporter();
const tracing = initTracing({ serviceName: 'nats-test', exporter });
const logger = createLogger('nats-test', 'silent');
const NATS_URL = process.env.NATS_URL ?? 'nats://localhost:4222';

afterAll(() => tracing.shutdown());

describe('JSON events over NATS', () => {
  it('carry the publisher trace context to the subscriber, and skip payloads that are not JSON', async () => {
    const nc = await connectNats({ url: NATS_URL, name: 'nats-test', logger });
    const subject = `test.${randomBytes(6).toString('hex')}`;
    const received: { payload: unknown; traceId: string | undefined }[] = [];
    const got = new Promise<void>((resolve) => {
      subscribeJson<{ n: number }>(
        nc,
        subject,
        (payload) => {
          received.push({ payload, traceId: trace.getActiveSpan()?.spanContext().traceId });
          resolve();
        },
        logger,
      );
    });
    await nc.flush();
    nc.publish(subject, Buffer.from('not json {'));
    const span = tracing.tracer.startSpan('publisher', { kind: SpanKind.PRODUCER });
    await trace.getTracer('t').startActiveSpan('outer', async (outer) => {
      publishJson(nc, subject, { n: 1 });
      outer.end();
      expect(received).toHaveLength(0);
      await got;
      expect(received).toEqual([{ payload: { n: 1 }, traceId: outer.spanContext().traceId }]);
    });
    span.end();
    await nc.drain();
  });
});
