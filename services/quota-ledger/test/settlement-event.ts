import type { NatsConnection } from '@mdp/nats';
import { createLogger, createRegistry, type Registry, type Tracer } from '@mdp/telemetry';
import { type SettlementEvent, settlementMsgId, settlementSubject } from '@mdp/usage';
import { Mutex } from '../src/mutex.ts';
import { consumerMetrics, type Recording } from '../src/settlement/settlement-consumer.ts';
import { startShardConsumer } from '../src/settlement/shard-streams.ts';
import type { StreamPositions } from '../src/settlement/stream-position.ts';

/** The account of the consumer tests' events (any uuid: these tests record no admissions). */
export const TEST_ACCOUNT = '3f2b8c1e-5d4a-4e6f-9a7b-0c1d2e3f4a5b';

/** A settlement event of the quote route, settled now: a charge answers 200, anything else 404. */
export const settlementEvent = (
  request_id: string,
  kind: SettlementEvent['kind'] = 'charged',
): SettlementEvent => ({
  v: 1,
  request_id,
  account_id: TEST_ACCOUNT,
  kind,
  admitted_at_ms: Date.now(),
  settled_at_ms: Date.now(),
  route: 'getStockQuote',
  status: kind === 'charged' ? 200 : 404,
});

/** Publishes a charge of each request id to shard `shard`'s subject of `prefix`, one message each. */
export async function publishCharges(nc: NatsConnection, prefix: string, ids: string[], shard = 0) {
  for (const id of ids) {
    const e = settlementEvent(id);
    await nc.jetstream().publish(settlementSubject(prefix, shard, 'charged'), JSON.stringify(e), {
      msgID: settlementMsgId(e),
    });
  }
}

/** Positions for consumer tests that record nothing in Postgres: none kept. */
export const NO_POSITIONS: StreamPositions = {
  streamPosition: async () => null,
  forgetStreamPosition: async () => {},
};

/** What a consumer test gives its shard's consumer; the rest is `startTestConsumer`'s defaults. */
interface TestConsumer {
  nc: NatsConnection;
  stream: string;
  prefix: string;
  /** 0 unless given. */
  shard?: number;
  apply: Recording['apply'];
  /** None kept unless given. */
  positions?: StreamPositions;
  mutex?: Mutex;
  /** Where its metrics go: a registry of its own unless given. */
  registry?: Registry;
  tracer?: Tracer;
  /** Read the shard's stream only if it exists, as a ledger adopting a retired shard does (default false). */
  adopt?: boolean;
  /** How long a batch gathers (the consumer's default unless given). */
  gatherMs?: number;
  /** How long one pull lasts (the consumer's default unless given). */
  pullExpiresMs?: number;
  /** Replicas of the shard's stream (1 unless given). */
  replicas?: number;
}

/** A shard's consumer as the consumer tests start it: its own stream made if missing, nothing logged. */
export const startTestConsumer = (o: TestConsumer) =>
  startShardConsumer({
    create: !o.adopt,
    nc: o.nc,
    spec: {
      stream: o.stream,
      subjectPrefix: o.prefix,
      shard: o.shard ?? 0,
      retentionDays: 1,
      ...(o.replicas === undefined ? {} : { replicas: o.replicas }),
    },
    mutex: o.mutex ?? new Mutex(),
    positions: o.positions ?? NO_POSITIONS,
    apply: o.apply,
    logger: createLogger('test', 'silent'),
    metrics: consumerMetrics(o.registry ?? createRegistry('quota-ledger')),
    ...(o.tracer ? { tracer: o.tracer } : {}),
    ...(o.gatherMs === undefined ? {} : { gatherMs: o.gatherMs }),
    ...(o.pullExpiresMs === undefined ? {} : { pullExpiresMs: o.pullExpiresMs }),
  });
