import { randomBytes } from 'node:crypto';
import { dropSchema, type Pool } from '@mdp/db';
import { connectNats, deleteStreamFamily, type NatsConnection } from '@mdp/nats';
import { createLogger, initTracing, SpanKind, SpanStatusCode } from '@mdp/telemetry';
import { type SettlementEvent, settlementMsgId, settlementSubject } from '@mdp/usage';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { headers } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProjectionStore } from '../src/settlement/projections.ts';
import type { SettlementConsumer } from '../src/settlement/settlement-consumer.ts';
import { DATABASE_URL, ledgerPool } from './ledger-db.ts';
import { settlementEvent, startTestConsumer, TEST_ACCOUNT } from './settlement-event.ts';

const NATS_URL = process.env.NATS_URL ?? 'nats://localhost:4222';
const tag = randomBytes(5).toString('hex');
const schema = `ledger_tel_${tag}`;
const stream = `USAGE_TEL_${tag.toUpperCase()}`;
const prefix = `usage_tel_${tag}`;
const logger = createLogger('test', 'silent');
const exporter = new InMemorySpanExporter();
const tracing = initTracing({ serviceName: 'quota-ledger', exporter });

let pool: Pool;
let nc: NatsConnection;
let consumer: SettlementConsumer;
/** Events per Postgres statement, in order. */
const statements: number[] = [];

/** The log keys events by uuid: a test's readable request ids are looked up as their digests. */
const BY_IDS = 'request_id IN (SELECT usage_log_uuid(id) FROM unnest($1::text[]) AS id)';

const event = (request_id: string, kind: SettlementEvent['kind'] = 'refunded') =>
  settlementEvent(request_id, kind);

async function publish(payload: SettlementEvent | string, traceparent?: string) {
  const h = headers();
  if (traceparent) h.set('traceparent', traceparent);
  const body = typeof payload === 'string' ? payload : JSON.stringify(payload);
  const msgID =
    typeof payload === 'string' ? `poison-${randomBytes(4).toString('hex')}` : settlementMsgId(payload);
  await nc.jetstream().publish(settlementSubject(prefix, 0, 'refunded'), body, { headers: h, msgID });
}

async function waitFor<T>(
  what: string,
  probe: () => T | undefined | Promise<T | undefined>,
  ms = 5_000,
): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

beforeAll(async () => {
  pool = await ledgerPool(schema, 'settlement-telemetry-test');
  nc = await connectNats({ url: NATS_URL, name: 'settlement-telemetry-test', logger });
  const store = new ProjectionStore(pool);
  consumer = await startTestConsumer({
    nc,
    stream,
    prefix,
    apply: async (events) => {
      statements.push(events.length);
      await store.record(events);
    },
    tracer: tracing.tracer,
  });
});
afterAll(async () => {
  await consumer?.stop();
  await deleteStreamFamily(nc, stream).catch(() => {});
  await nc?.close();
  await pool?.end();
  await dropSchema(DATABASE_URL, schema);
  await tracing.shutdown();
});

describe('settlement consumer telemetry', () => {
  it('records each event in a ledger.settle span that continues the trace of the request it settles', async () => {
    const traceId = randomBytes(16).toString('hex');
    const parentSpanId = randomBytes(8).toString('hex');
    await publish(event(`req-${tag}-1`), `00-${traceId}-${parentSpanId}-01`);
    const span = await waitFor('the settle span', () =>
      exporter.getFinishedSpans().find((s) => s.spanContext().traceId === traceId),
    );
    expect(span.name).toBe('ledger.settle');
    expect(span.kind).toBe(SpanKind.CONSUMER);
    expect(span.parentSpanContext?.spanId).toBe(parentSpanId);
    expect(span.attributes).toMatchObject({
      'messaging.system': 'nats',
      'messaging.destination.name': settlementSubject(prefix, 0, 'refunded'),
      'mdp.settlement.kind': 'refunded',
      'mdp.request_id': `req-${tag}-1`,
      'mdp.shard': 0,
    });
    // The span ends only once the event is in Postgres (recorded, then acknowledged).
    const { rows } = await pool.query(`SELECT kind FROM usage_events WHERE ${BY_IDS}`, [[`req-${tag}-1`]]);
    expect(rows).toEqual([{ kind: 'r' }]);
  });

  it('marks the span of a poison message as an error', async () => {
    const traceId = randomBytes(16).toString('hex');
    await publish('not json at all', `00-${traceId}-${randomBytes(8).toString('hex')}-01`);
    const span = await waitFor('the poison span', () =>
      exporter.getFinishedSpans().find((s) => s.spanContext().traceId === traceId),
    );
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
  });

  it('records a batch message event by event, each span under its own request, leaving out a bad event', async () => {
    const traces = [0, 1].map(() => ({
      traceId: randomBytes(16).toString('hex'),
      spanId: randomBytes(8).toString('hex'),
    }));
    const events = traces.map((t, i) => ({
      ...event(`req-${tag}-batch-${i}`, 'charged'),
      traceparent: `00-${t.traceId}-${t.spanId}-01`,
    }));
    const batch = { v: 1, events: [...events, { ...event(`req-${tag}-batch-bad`), kind: 'gifted' }] };
    await nc.jetstream().publish(settlementSubject(prefix, 0, 'charged'), JSON.stringify(batch), {
      msgID: `batch:${tag}`,
    });
    for (const [i, t] of traces.entries()) {
      const span = await waitFor(`the settle span of event ${i}`, () =>
        exporter.getFinishedSpans().find((s) => s.spanContext().traceId === t.traceId),
      );
      expect(span.parentSpanContext?.spanId).toBe(t.spanId);
      expect(span.attributes).toMatchObject({ 'mdp.request_id': `req-${tag}-batch-${i}` });
    }
    const ids = [0, 1, 'bad'].map((i) => `req-${tag}-batch-${i}`);
    const { rows } = await pool.query(`SELECT kind FROM usage_events WHERE ${BY_IDS}`, [ids]);
    expect(rows).toEqual([{ kind: 'c' }, { kind: 'c' }]);
    const charged = await pool.query(
      "SELECT charged FROM usage_daily WHERE account_id = $1 AND interface = 'rest'",
      [TEST_ACCOUNT],
    );
    expect(charged.rows).toEqual([{ charged: 2 }]);
  });

  it('records messages that arrive together in one statement, and every event of them', async () => {
    const from = statements.length;
    const ids = Array.from({ length: 30 }, (_, i) => `together-${tag}-${i}`);
    // Published at once, as thirty gateways' charges of one moment would arrive.
    await Promise.all(ids.map((id) => publish(event(id))));
    await waitFor('all thirty recorded', () =>
      statements.slice(from).reduce((a, b) => a + b, 0) >= 30 ? true : undefined,
    );
    await consumer.idle();
    const { rows } = await pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM usage_events WHERE ${BY_IDS}`,
      [ids],
    );
    expect(rows[0]!.n).toBe(30);
    expect(statements.length - from).toBeLessThan(30);
    expect(Math.max(...statements.slice(from))).toBeGreaterThan(1);
  });

  it('reports its lag: events waiting in JetStream for this shard', async () => {
    await consumer.idle();
    // JetStream applies the acknowledgements sent after a batch on its own time, after they were sent:
    // on a loaded machine a read straight after may still count them (30 ack-pending, in one CI run).
    await waitFor('no lag once every message is recorded', async () => {
      const lag = await consumer.lag();
      return lag.pending === 0 && lag.ackPending === 0 ? lag : undefined;
    });
    await consumer.stop();
    for (let i = 0; i < 3; i++) await publish(event(`req-${tag}-lag-${i}`));
    // Undelivered, or handed to a pull request still open on the server: either way not recorded yet.
    const lag = await consumer.lag();
    expect(lag.pending + lag.ackPending).toBe(3);
  });
});
