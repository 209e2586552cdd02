import { jetstreamManager, type NatsConnection, streamFamily } from '@mdp/nats';
import {
  Counter,
  Histogram,
  type Logger,
  type Registry,
  requestTraceContext,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
} from '@mdp/telemetry';
import { parseSettlementMessage, type SettlementEvent } from '@mdp/usage';
import { ConsumerEvents, type ConsumerMessages, type JetStreamManager, type JsMsg } from 'nats';
import type { Mutex } from '../mutex.ts';
import { AckFloor } from './ack-floor.ts';
import {
  ACK_WAIT_MS,
  batchDurableName,
  consumerInfo,
  durableName,
  isNotFound,
  MAX_ACK_PENDING,
  openDurable,
  type StreamSource,
  streamExists,
} from './durable-consumer.ts';
import { lookUntilHeld, PullWatch } from './pull-watch.ts';
import { readInTurns, turnForIo } from './read-in-turns.ts';
import type { StreamPosition, StreamPositions } from './stream-position.ts';

/** Where a ledger's settlement events are: the stream settings every shard shares, and its shard. */
export interface ConsumerSpec {
  /** The base name: each shard's stream is `<stream>_<shard>`, the legacy stream `<stream>`. */
  stream: string;
  subjectPrefix: string;
  shard: number;
  retentionDays: number;
  /** JetStream replicas of the streams (1 on a single NATS server). */
  replicas?: number;
}

/** Where the shard's durable consumer stands in the stream (JetStream consumer info). */
export interface ConsumerLag {
  /** Messages in the stream for this shard not yet delivered to it. */
  pending: number;
  /** Messages delivered but not yet acknowledged (being recorded, or to be re-delivered). */
  ackPending: number;
}

export interface SettlementConsumer {
  stop(): Promise<void>;
  /** Asks JetStream how far behind the durable consumer is. */
  lag(): Promise<ConsumerLag>;
  /** Resolves when every message received so far is recorded and acknowledged (not gathering for more). */
  idle(): Promise<void>;
  /**
   * When the batch being recorded now was first tried (its statement may be failing and retried, or
   * hanging on a database that stopped answering); null while nothing is being recorded.
   */
  recordingSince(): number | null;
  /**
   * Through when the stream's messages are recorded: the newest publish time (JetStream's clock, ms)
   * among the messages recorded so far. Everything published before it was delivered before it (the
   * stream is in publish order) and so is recorded too, unless a batch is still being recorded.
   */
  recordedThrough(): number;
  /** Nothing received is waiting to be recorded, and no batch is being recorded. */
  idleNow(): boolean;
  /**
   * Resolves once every message the stream held for this shard when called is recorded: JetStream says
   * how far it has delivered with nothing left to deliver, and the batches up to there are recorded
   * (a batch gathering more is recorded at once). Rejects after `timeoutMs`.
   */
  recordedPast(timeoutMs: number): Promise<void>;
}

/** The consumer of one stream. */
export interface StreamConsumer extends SettlementConsumer {
  /** The stream's name, as JetStream's acknowledgements of publishes to it give it. */
  readonly stream: string;
  /**
   * Resolves once every message of this consumer's up to stream sequence `seq` is recorded (on a shard's
   * own stream, everything at or below it: the ack floor). Rejects after `timeoutMs`.
   */
  recordedTo(seq: number, timeoutMs: number): Promise<void>;
}

/** What every consumer records with: the connection, the recording step and what it reports to. */
export interface Recording {
  nc: NatsConnection;
  mutex: Mutex;
  /** Records a batch, and with it how far a shard's own stream is recorded (null: the legacy stream). */
  apply: (events: SettlementEvent[], position: StreamPosition | null) => Promise<void>;
  positions: StreamPositions;
  logger: Logger;
  metrics: ConsumerMetrics;
  /** Each message gets a `ledger.settle` span continuing the trace of the request it settles. */
  tracer?: Tracer;
  clock?: () => number;
  /** How long a batch gathers (`GATHER_MS` unless given). */
  gatherMs?: number;
  /** How long one pull lasts (`PULL_EXPIRES_MS` unless given; at least the client's 1 s). */
  pullExpiresMs?: number;
}

/** What the consumers of one process count, shared by the streams they read. */
export interface ConsumerMetrics {
  recorded: Counter<'kind' | 'outcome'>;
  redelivered: Counter;
  madeAgain: Counter<'lost'>;
  batchSeconds: Histogram;
  pulledAgain: Counter<'cause'>;
}

export function consumerMetrics(registry: Registry): ConsumerMetrics {
  const madeAgain = new Counter({
    name: 'ledger_settlement_consumers_made_again_total',
    help: 'Durable settlement consumers JetStream lost while the ledger ran, made again by it after the position its log has recorded; lost: consumer (the stream kept), or stream (its unrecorded charges gone with it)',
    labelNames: ['lost'] as const,
    registers: [registry],
  });
  const pulledAgain = new Counter({
    name: 'ledger_settlement_pulls_again_total',
    help: 'Pulls a settlement consumer made again because the one it waited on was lost; cause: leader_moved (JetStream elected its consumer a new leader, which does not know the pull; again while that leader holds none of its pulls), lost (messages waited in JetStream for it and none came for an interval)',
    labelNames: ['cause'] as const,
    registers: [registry],
  });
  // Both series from the start: an alert's increase() sees the first one.
  for (const lost of ['consumer', 'stream']) madeAgain.inc({ lost }, 0);
  for (const cause of ['leader_moved', 'lost']) pulledAgain.inc({ cause }, 0);
  return {
    madeAgain,
    recorded: new Counter({
      name: 'ledger_settlement_events_total',
      help: 'Settlement events consumed, by kind and outcome (consumed, poison)',
      labelNames: ['kind', 'outcome'] as const,
      registers: [registry],
    }),
    redelivered: new Counter({
      name: 'ledger_settlement_redeliveries_total',
      help: 'Settlement messages JetStream delivered again (not acknowledged within ack_wait: a crashed replica, or recording that fell behind)',
      registers: [registry],
    }),
    pulledAgain,
    batchSeconds: new Histogram({
      name: 'ledger_event_append_seconds',
      help: 'Time to append a batch of events and update the projections',
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
      registers: [registry],
    }),
  };
}

/** Each shard's own stream of this base name, by shard. */
const shardStreams = async (jsm: JetStreamManager, stream: string) =>
  (await streamFamily(jsm, stream)).numbered;

/** The shards of this prefix with a durable consumer in the legacy stream (none when it does not exist). */
async function legacyShards(
  jsm: JetStreamManager,
  stream: string,
  subjectPrefix: string,
): Promise<Set<number>> {
  const found = new Set<number>();
  if (!(await streamExists(jsm, stream))) return found;
  const prefix = durableName(subjectPrefix, 0).slice(0, -1);
  for await (const info of jsm.consumers.list(stream)) {
    const rest = info.name.slice(prefix.length);
    if (info.name.startsWith(prefix) && /^\d+$/.test(rest)) found.add(Number(rest));
  }
  return found;
}

/** Every shard whose events the streams hold: a stream of its own, or a consumer in the legacy stream. */
export async function knownShards(
  nc: NatsConnection,
  stream: string,
  subjectPrefix: string,
): Promise<number[]> {
  const jsm = await jetstreamManager(nc);
  const shards = new Set([
    ...(await shardStreams(jsm, stream)).keys(),
    ...(await legacyShards(jsm, stream, subjectPrefix)),
  ]);
  return [...shards].sort((a, b) => a - b);
}

/**
 * Whether `durable` has recorded all that `stream` held when this was asked: its acknowledged floor has
 * reached the stream's last message, or it has nothing delivered unacknowledged and nothing left to
 * deliver (in the legacy stream the last message may be another shard's). A stream with no consumer of
 * that name has been recorded only if it holds nothing and `needed` is false.
 */
async function drained(jsm: JetStreamManager, stream: string, durable: string, needed: boolean) {
  const last = (await jsm.streams.info(stream)).state.last_seq;
  let info: Awaited<ReturnType<JetStreamManager['consumers']['info']>>;
  try {
    info = await jsm.consumers.info(stream, durable);
  } catch (err) {
    if (isNotFound(err)) return !needed && last === 0;
    throw err;
  }
  const idle = info.num_pending === 0 && info.num_ack_pending === 0;
  return info.ack_floor.stream_seq >= last || idle;
}

/**
 * Whether every shard has recorded all that the settlement streams held when this was asked. Every
 * shard's: those below `shardCount` (one without its stream and consumer yet has consumed nothing:
 * false), and any other whose events a stream holds, a shard retired by a smaller shard count whose
 * subject may still hold events of a day about to be sealed; in its own stream and in the legacy one.
 */
export async function consumersCaughtUp(
  nc: NatsConnection,
  stream: string,
  subjectPrefix: string,
  shardCount: number,
): Promise<boolean> {
  const jsm = await jetstreamManager(nc);
  const own = await shardStreams(jsm, stream);
  for (let shard = 0; shard < shardCount; shard++) if (!own.has(shard)) return false;
  for (const [shard, name] of own) {
    // A ledger of before the batch consumer still reads its own stream by the explicit one.
    const durable = (await consumerInfo(jsm, name, batchDurableName(subjectPrefix, shard)))
      ? batchDurableName(subjectPrefix, shard)
      : durableName(subjectPrefix, shard);
    if (!(await drained(jsm, name, durable, shard < shardCount))) return false;
  }
  if (!(await streamExists(jsm, stream))) return true;
  const legacy = await legacyShards(jsm, stream, subjectPrefix);
  for (let shard = 0; shard < shardCount; shard++) if (!legacy.has(shard)) return false;
  for (const shard of legacy)
    if (!(await drained(jsm, stream, durableName(subjectPrefix, shard), true))) return false;
  return true;
}

/** The most messages one statement records; a gathering that reaches it ends (see `GATHER_MS`). */
const BATCH = 500;
/**
 * While a flush runs, the messages received and not acknowledged yet are marked in progress this often,
 * so that a batch waiting on a slow or starved Postgres (and the messages queued behind it) is not
 * delivered again after ack_wait: harmless to the log, but repeated work exactly when there is least time.
 */
const WORKING_EVERY_MS = 2_000;
/**
 * How long one pull of the consumer's lasts before it is made again (heartbeats at half of it). The
 * consumer asks JetStream whether its pull is lost (`PullWatch`) every two pulls' lives.
 */
const PULL_EXPIRES_MS = 5_000;
/** How often a wait for recording (a stop's hand-over) looks whether its pull is lost. */
const WAIT_LOOK_MS = 1_000;
/**
 * How long the first message of a batch waits for others, unless a batch's worth (`BATCH` messages) has
 * come or something waits for what is in hand to be recorded (a usage read of a leased account, a
 * handover, catch-up, a stop), which ends the wait at once. Postgres's CPU an event falls with the
 * batch: about 30 µs at 25 events, 17 at 100 and 13 at 1,000 on one account (28 November 2026); over
 * 1,000 accounts in turn, where each account's projection rows move once for each batch it is in,
 * 28.5 µs at 400 events and 20.5 at 2,000 (1 December). At the
 * metered quote's 8,000 to 12,000 a second, 250 ms gathers 2,000 to 3,000 events. Nobody else waits for
 * it: the gateway's 200 waits for JetStream, not for Postgres, and the shard counts an admitted request
 * as a hold until its event is recorded; only the projections in Postgres (the usage history) trail by
 * that much.
 */
export const GATHER_MS = 250;

/** The longest the consumer reads a pull's messages before letting the shard's event loop turn (`readInTurns`). */
const READ_TURN_MS = 2;

/**
 * The shard's durable JetStream consumer. Messages are recorded in batches (one Postgres transaction
 * each) and acknowledged only after the commit, so a crash anywhere means re-delivery, never loss; the
 * log's unique key makes re-delivery harmless. A message that is not a settlement event is terminated
 * (never re-delivered) and counted, so one poison message cannot stall the shard.
 */
export async function startStreamConsumer(
  opts: Recording & { source: StreamSource; subjectPrefix: string },
): Promise<StreamConsumer> {
  const { nc, logger, source } = opts;
  const spec = { stream: source.stream, shard: source.shard };
  const jsm = await jetstreamManager(nc);
  const open = () =>
    openDurable({ nc, source, subjectPrefix: opts.subjectPrefix, positions: opts.positions, logger });
  let opened = await open();
  const durable = opened.durable;
  let floor = opened.floor === null ? null : new AckFloor(opened.floor);
  /** Recorded messages above the floor, by stream sequence: the one the floor reaches is acknowledged. */
  const unacked = new Map<number, JsMsg>();
  /**
   * Which consumer the messages in hand came from: it moves on when JetStream is found to have lost the
   * consumer, and a message is acknowledged only while its generation is the current one. An AckAll
   * acknowledgement is taken by whatever consumer has the name: one for sequence n of a stream since
   * deleted, reaching the consumer of a stream made again, would acknowledge that stream's messages up
   * to n, recorded or not.
   */
  let generation = 0;
  let consumer = await nc.jetstream().consumers.get(spec.stream, durable);
  // A pull lost with the servers (a whole cluster restarted) is made again when it expires or two
  // heartbeats are missed: with the client's 30 s, recording stopped for 15 to 20 s (contributors.md).
  // Where the client's own recovery does not (see `PullWatch`), the watch below pulls again.
  const pullExpiresMs = opts.pullExpiresMs ?? PULL_EXPIRES_MS;
  const pull = async () => {
    const pulled = await consumer.consume({ max_messages: 2_000, expires: pullExpiresMs });
    watchFor(pulled).catch(() => {});
    return pulled;
  };

  const { recorded, redelivered, batchSeconds, pulledAgain, madeAgain } = opts.metrics;

  const clock = opts.clock ?? Date.now;
  let pending: JsMsg[] = [];
  let flushing: Promise<void> | null = null;
  let recordingSince: number | null = null;
  let recordedThrough = 0;
  /** The newest stream sequence among the messages recorded (or terminated) so far. */
  let recordedSeq = 0;
  const waiters: (() => void)[] = [];
  const gatherMs = opts.gatherMs ?? GATHER_MS;
  /** Ends the gathering under way, if any: someone waits for what is in hand to be recorded. */
  let hurry = () => {};
  const gathering = () =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, gatherMs);
      hurry = () => {
        clearTimeout(timer);
        resolve();
      };
    }).finally(() => {
      hurry = () => {};
    });

  /**
   * Each message is read as it arrives (`receive`), not when its batch is recorded: a batch of hundreds
   * parsed at once held the event loop, and the admissions waiting on it, for tens of milliseconds.
   */
  const parsedOf = new WeakMap<JsMsg, ReturnType<typeof parseSettlementMessage>>();
  const parse = (m: JsMsg): ReturnType<typeof parseSettlementMessage> => {
    try {
      return parseSettlementMessage(m.json());
    } catch {
      return 'not JSON';
    }
  };

  /**
   * A consumer span per event, child of the trace context of the request it settles: the event's own
   * (events travel in batches), else the message's headers (single events published by older gateways),
   * else the one its request id gives (a gateway leaves that out of the event).
   */
  const settleSpan = (m: JsMsg, e: SettlementEvent | null): Span | undefined => {
    if (!opts.tracer) return undefined;
    let headers: Record<string, string> | undefined;
    if (!e?.traceparent && m.headers) {
      headers = {};
      for (const key of m.headers.keys()) headers[key] = m.headers.get(key);
    }
    return opts.tracer.startSpan(
      'ledger.settle',
      {
        kind: SpanKind.CONSUMER,
        attributes: {
          'messaging.system': 'nats',
          'messaging.destination.name': m.subject,
          'mdp.shard': spec.shard,
          ...(e ? { 'mdp.settlement.kind': e.kind, 'mdp.request_id': e.request_id } : {}),
        },
      },
      requestTraceContext(e?.traceparent, e?.request_id ?? '', headers),
    );
  };

  const poison = (m: JsMsg, reason: string) => {
    logger.error(
      { subject: m.subject, seq: m.seq, reason },
      'poison settlement message left out (never delivered again)',
    );
    recorded.inc({ kind: 'unknown', outcome: 'poison' });
  };

  /** What a batch was delivered under: its consumer's generation, floor and stream. */
  interface Generation {
    generation: number;
    floor: AckFloor | null;
    made: string;
  }
  /** The messages of the batch being recorded (they have left `pending`). */
  let recording: JsMsg[] = [];
  /**
   * A recorded batch: one acknowledgement for what it lets the floor pass (own stream), else one a
   * message; none when its consumer was lost since it was delivered (the next starts after the log).
   */
  const acknowledge = (batch: readonly JsMsg[], good: readonly JsMsg[], of: Generation) => {
    const current = of.generation === generation;
    if (!of.floor) {
      if (current) for (const m of good) m.ack();
      return;
    }
    if (current) for (const m of batch) if (m.seq > of.floor.through) unacked.set(m.seq, m);
    const moved = of.floor.recorded(batch.map((m) => m.seq));
    if (current && moved !== null) ackThrough(moved);
  };
  const ackThrough = (seq: number) => {
    unacked.get(seq)?.ack();
    for (const s of unacked.keys()) if (s <= seq) unacked.delete(s);
  };
  /**
   * Recorded messages waiting above a hole in the floor for a while: when JetStream has nothing delivered
   * and unacknowledged but this process's own, the hole is no delivery's (it left the stream first).
   */
  const holes = setInterval(() => {
    const f = floor;
    if (!f || f.waiting === 0 || reopening) return;
    void (async () => {
      const info = await jsm.consumers.info(spec.stream, durable);
      // Its own unacknowledged deliveries: recorded above the floor, being recorded, or waiting.
      const mine = new Set(
        [...unacked.keys(), ...recording.map((m) => m.seq), ...pending.map((m) => m.seq)].filter(
          (seq) => seq > f.through,
        ),
      );
      if (info.num_ack_pending > mine.size) return;
      if (f !== floor) return;
      const moved = f.skipHoles();
      if (moved !== null) {
        logger.warn(
          { stream: spec.stream, through: moved },
          'settlement stream: sequences no consumer was given, passed',
        );
        ackThrough(moved);
      }
    })().catch(() => {});
  }, ACK_WAIT_MS * 2);
  holes.unref();

  const flush = async () => {
    const heartbeat = setInterval(() => {
      for (const m of recording) m.working();
      for (const m of pending) m.working();
    }, WORKING_EVERY_MS);
    try {
      await flushAll();
    } finally {
      clearInterval(heartbeat);
      recording = [];
    }
    flushing = null;
    for (const w of waiters.splice(0)) w();
  };

  const flushAll = async () => {
    await gathering();
    while (pending.length > 0) {
      const batch = pending.splice(0, BATCH);
      recording = batch;
      const of: Generation = { generation, floor, made: opened.made };
      const events: SettlementEvent[] = [];
      const good: JsMsg[] = [];
      const spans: Span[] = [];
      for (const m of batch) {
        const parsed = parsedOf.get(m) ?? parse(m);
        // Now, not when the message is collected: a message promoted to the old generation (one that
        // waited through a scavenge) would keep its events alive through every scavenge until the next
        // full collection, and they would be promoted in turn.
        parsedOf.delete(m);
        if (typeof parsed === 'string') {
          poison(m, parsed);
          // Under AckAll a termination acknowledges everything below it too: the batch's
          // acknowledgement covers it instead, once the floor passes it.
          if (!floor) m.term();
          const span = settleSpan(m, null);
          span?.setStatus({ code: SpanStatusCode.ERROR, message: parsed });
          span?.end();
          continue;
        }
        // A batch's unreadable events are counted and left out; the rest of it is recorded.
        for (const reason of parsed.rejected) poison(m, reason);
        for (const e of parsed.events) {
          events.push(e);
          const span = settleSpan(m, e);
          if (span) spans.push(span);
        }
        good.push(m);
      }
      const end = batchSeconds.startTimer();
      recordingSince = clock();
      const through = of.floor?.after(batch.map((m) => m.seq)) ?? 0;
      const position =
        of.floor && through > of.floor.through ? { stream: spec.stream, created: of.made, through } : null;
      for (;;) {
        try {
          await opts.mutex.run(() => opts.apply(events, position));
          break;
        } catch (err) {
          // The database is away: keep the batch (unacknowledged) and try again; JetStream holds the rest.
          logger.warn(
            { err: (err as Error).message, events: events.length },
            'could not record settlements; retrying',
          );
          await new Promise((r) => setTimeout(r, 500));
        }
      }
      end();
      recordingSince = null;
      for (const m of batch) {
        recordedThrough = Math.max(recordedThrough, m.info.timestampNanos / 1e6);
        recordedSeq = Math.max(recordedSeq, m.seq);
      }
      acknowledge(batch, good, of);
      const kinds = new Map<string, number>();
      for (const e of events) kinds.set(e.kind, (kinds.get(e.kind) ?? 0) + 1);
      for (const [kind, n] of kinds) recorded.inc({ kind, outcome: 'consumed' }, n);
      for (const span of spans) span.end();
      // The book has learnt this batch (one step, from the statement's result); preparing the next
      // statement is another step of thousands of events, so the admissions that came meanwhile go first.
      if (pending.length > 0) await turnForIo();
    }
  };

  /** Messages received by this process, all pulls counted. */
  let received = 0;
  const receive = async () => {
    for await (const m of readInTurns(messages, READ_TURN_MS)) {
      received++;
      if (m.redelivered) redelivered.inc();
      if (floor && m.seq <= floor.through) {
        // Recorded already (its acknowledgement was lost, or the log is ahead of a consumer made again).
        m.ack();
        recordedSeq = Math.max(recordedSeq, m.seq);
        recordedThrough = Math.max(recordedThrough, m.info.timestampNanos / 1e6);
        continue;
      }
      parsedOf.set(m, parse(m));
      pending.push(m);
      flushing ??= flush();
      if (pending.length >= BATCH) hurry();
    }
  };
  const logStop = (err: unknown) => logger.error({ err }, 'settlement consumer stopped');

  // Messages a lost pull's iterator held and never gave come again after ack_wait (none are acknowledged
  // unrecorded), so a new pull loses nothing.
  let stopping = false;
  /** Stops pulling and waits until the loop has passed on every message received. */
  const stopPulling = async () => {
    messages.stop();
    await loop;
  };
  const pullAgain = async () => {
    const fresh = await pull();
    if (stopping) return fresh.stop();
    messages = fresh;
    loop = receive().catch(logStop);
  };
  let repulling: Promise<void> | null = null;
  /** The pull in hand is lost: another is made, unless the consumer is being made again (that pulls). */
  const repull = (cause: 'leader_moved' | 'lost') => {
    if (reopening || stopping) return;
    const of = generation;
    repulling ??= (async () => {
      pulledAgain.inc({ cause });
      await stopPulling();
      if (of === generation && !reopening && !stopping) await pullAgain();
    })()
      .catch((err) =>
        logger.warn({ err: (err as Error).message }, 'settlement consumer: could not pull again'),
      )
      .finally(() => {
        repulling = null;
      });
  };

  /**
   * Looks at the pull by `PullWatch`'s rule (what JetStream says of the consumer, and what this process
   * received since the last look) and pulls again when it is lost; `over` names the time between looks in
   * the log. One for the interval's watch, one for each wait for recording.
   */
  const pullLooker = (over: string) => {
    const watch = new PullWatch(MAX_ACK_PENDING);
    let receivedAtLook = received;
    return (info: { num_pending: number; num_ack_pending: number; num_waiting: number }, of = generation) => {
      const look = {
        pending: info.num_pending,
        ackPending: info.num_ack_pending,
        received: received - receivedAtLook,
      };
      receivedAtLook = received;
      if (!watch.lost(look) || of !== generation) return;
      logger.warn(
        { stream: spec.stream, durable, pending: look.pending, waitingPulls: info.num_waiting },
        `settlement consumer: messages waited ${over} and none came; pulling again`,
      );
      repull('lost');
    };
  };

  let reopening: Promise<void> | null = null;
  /**
   * JetStream has lost the durable consumer (or its stream, with it): it is made again as at start,
   * after the position the log has recorded, once the messages in hand are recorded (and, their consumer
   * gone, not acknowledged). Without this, recording would stop until the process restarted. A stream
   * this ledger does not declare (the legacy one, a retired shard's) is not made again.
   */
  const reopen = (why: string) => {
    reopening ??= (async () => {
      if (stopping || (!source.ensure && !(await streamExists(jsm, spec.stream)))) return;
      generation++;
      logger.warn(
        { stream: spec.stream, durable, why },
        'settlement consumer lost by JetStream: making it again after what the log has recorded',
      );
      await repulling;
      await stopPulling();
      hurry();
      await flushing;
      unacked.clear();
      const before = opened.made;
      while (!stopping) {
        try {
          opened = await open();
          consumer = await nc.jetstream().consumers.get(spec.stream, durable);
          break;
        } catch (err) {
          logger.warn(
            { err: (err as Error).message },
            'settlement consumer: JetStream would not declare it again yet; retrying',
          );
          await new Promise((r) => setTimeout(r, 1_000));
        }
      }
      if (stopping) return;
      floor = opened.floor === null ? null : new AckFloor(opened.floor);
      // Another stream's sequences start again: what is recorded of it is what the log says.
      const lost = opened.made === before ? 'consumer' : 'stream';
      if (lost === 'stream') recordedSeq = opened.floor ?? 0;
      await pullAgain();
      madeAgain.inc({ lost });
    })()
      .catch((err) =>
        logger.error({ err: (err as Error).message }, 'settlement consumer: declaring it again failed'),
      )
      .finally(() => {
        reopening = null;
      });
  };
  /** The pull's own news of a lost consumer, as it comes (the watch below looks every interval too). */
  const LOST = new Set<string>([
    ConsumerEvents.ConsumerDeleted,
    ConsumerEvents.ConsumerNotFound,
    ConsumerEvents.StreamNotFound,
  ]);
  const watchFor = async (pulled: ConsumerMessages) => {
    for await (const s of await pulled.status()) if (LOST.has(s.type)) reopen(s.type);
  };
  let messages = await pull();
  let loop = receive().catch(logStop);

  const lookAtPull = pullLooker('a whole interval');
  const watch = setInterval(() => {
    void (async () => {
      if (reopening || stopping) return;
      const of = generation;
      const info = await consumerInfo(jsm, spec.stream, durable);
      if (!info) return reopen('not found');
      lookAtPull(info, of);
    })().catch((err) =>
      logger.warn({ err: (err as Error).message }, 'settlement consumer: could not look at its pull'),
    );
  }, 2 * pullExpiresMs);
  watch.unref();

  // A consumer's new leader (a stepdown, or its server lost) knows nothing of the pulls its predecessor
  // held, and nats-server 2.9 tells the puller nothing: the client would notice only when two heartbeats
  // are missed (a whole pull's life, `PULL_EXPIRES_MS`), and the shard records nothing until then. The
  // new leader announces itself, so the pull is made again at once.
  // The pull made again may still miss the new leader (`HELD_LOOKS_MS`): the consumer looks, and pulls
  // again while the leader holds none of its pulls.
  /** The leader move whose pull is being looked at: a newer move's looks replace an older's. */
  let move = 0;
  const lookHeld = async (of: number) => {
    await repulling;
    await lookUntilHeld({
      sleep: (ms) => new Promise((r) => setTimeout(r, ms).unref()),
      // The watch makes again a consumer not found.
      look: async () => {
        const info = await consumerInfo(jsm, spec.stream, durable).catch(() => null);
        return info && { waiting: info.num_waiting, leader: info.cluster?.leader };
      },
      received: () => received,
      current: () => of === move && !reopening && !stopping,
      pullAgain: async (leader) => {
        logger.warn(
          { stream: spec.stream, durable, leader },
          'settlement consumer: the new leader holds no pull of it; pulling again',
        );
        repull('leader_moved');
        await repulling;
      },
    });
  };
  const elected = nc.subscribe(`$JS.EVENT.ADVISORY.CONSUMER.LEADER_ELECTED.${spec.stream}.${durable}`, {
    callback: (err) => {
      if (err) return;
      logger.info({ stream: spec.stream, durable }, 'settlement consumer: a new leader; pulling again');
      repull('leader_moved');
      lookHeld(++move).catch((err) =>
        logger.warn({ err: (err as Error).message }, 'settlement consumer: could not look at its new pull'),
      );
    },
  });

  /** `where`: how far it got, for the error. */
  const timedOut = (until: number, where?: () => string) => {
    if (clock() >= until)
      throw new Error(`the usage stream is not recorded up to the read yet${where ? `: ${where()}` : ''}`);
  };
  /** Resolves once `done` (rejects at `until`), recording what is in hand at once meanwhile. */
  const recordedAt = async (done: () => boolean, until: number, where?: () => string) => {
    while (!done()) {
      hurry();
      timedOut(until, where);
      // The flush under way, else a moment for the delivery to reach the loop and start one.
      await new Promise<void>((resolve) => {
        if (!flushing) return void setTimeout(resolve, 1);
        const timer = setTimeout(resolve, until - clock());
        waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  };

  return {
    stop: async () => {
      stopping = true;
      clearInterval(holes);
      clearInterval(watch);
      elected.unsubscribe();
      await reopening;
      await repulling;
      messages.stop();
      await loop.catch(() => {});
      hurry();
      await flushing;
      pending = [];
    },
    idle: () => {
      hurry();
      return flushing ? new Promise<void>((r) => waiters.push(r)) : Promise.resolve();
    },
    recordingSince: () => recordingSince,
    recordedThrough: () => recordedThrough,
    idleNow: () => flushing === null && pending.length === 0,
    stream: spec.stream,
    recordedPast: async (timeoutMs) => {
      const until = clock() + timeoutMs;
      // The watch above looks every two pulls' lives, longer than a stop's whole hand-over: a waiter
      // looks at the pull by the same rule every `WAIT_LOOK_MS`, so a lost one is made again in time
      // (a graceful stop once waited its 5 s with 24 messages undelivered, 6 December 2026).
      const lookAtPull = pullLooker('a second while recording was awaited');
      let lookedAt = Number.NEGATIVE_INFINITY;
      let target: number;
      for (;;) {
        const info = await jsm.consumers.info(spec.stream, durable);
        // Acknowledged is recorded: a message is acknowledged only once its batch is.
        if (info.num_pending === 0 && info.num_ack_pending === 0) return;
        hurry();
        if (info.num_pending === 0) {
          target = info.delivered.stream_seq;
          break;
        }
        timedOut(until, () => `${info.num_pending} messages not delivered to this shard`);
        if (clock() - lookedAt >= WAIT_LOOK_MS) {
          lookedAt = clock();
          lookAtPull(info);
        }
        await new Promise((r) => setTimeout(r, 5));
      }
      await recordedAt(
        () => recordedSeq >= target,
        until,
        () => `recorded through ${recordedSeq} of ${target}`,
      );
    },
    // A predecessor's deliveries not recorded yet sit below the newest recorded: the floor waits for them.
    recordedTo: (seq, timeoutMs) =>
      recordedAt(() => (floor ? floor.through : recordedSeq) >= seq, clock() + timeoutMs),
    lag: async () => {
      const info = await jsm.consumers.info(spec.stream, durable);
      return { pending: info.num_pending, ackPending: info.num_ack_pending };
    },
  };
}
