import { ensureStream, jetstreamManager, type NatsConnection, type StreamSpec } from '@mdp/nats';
import type { Logger } from '@mdp/telemetry';
import { AckPolicy, DeliverPolicy, type JetStreamManager, nanos } from 'nats';
import type { StreamPositions } from './stream-position.ts';

/** Where one durable consumer reads: a stream, the subjects it takes from it, and the shard they are. */
export interface StreamSource {
  stream: string;
  filter: string;
  shard: number;
  /** Declared (made, or its settings brought up to date) before the consumer starts; absent: it exists. */
  ensure?: StreamSpec;
  /**
   * Every message of the stream is this shard's (its own stream, not the legacy one filtered by shard):
   * its consumer acknowledges a recorded batch once (AckAll), as `AckFloor` allows.
   */
  ownStream?: boolean;
}

/** The durable consumer of one shard in the legacy stream (and in its own stream, until 29 November 2026). */
export const durableName = (subjectPrefix: string, shard: number) => `ledger-${subjectPrefix}-${shard}`;
/** The durable consumer of one shard in its own stream: one acknowledgement a recorded batch (AckAll). */
export const batchDurableName = (subjectPrefix: string, shard: number) =>
  `${durableName(subjectPrefix, shard)}-batch`;

/** The durable consumer a source is read by. */
const durableOf = (source: StreamSource, subjectPrefix: string) =>
  source.ownStream ? batchDurableName(subjectPrefix, source.shard) : durableName(subjectPrefix, source.shard);

export const isNotFound = (err: unknown) => /(stream|consumer) not found/i.test((err as Error).message);

export async function streamExists(jsm: JetStreamManager, name: string): Promise<boolean> {
  try {
    await jsm.streams.info(name);
    return true;
  } catch (err) {
    if (isNotFound(err)) return false;
    throw err;
  }
}

/** A durable consumer's state, or null when the stream has none of that name. */
export async function consumerInfo(jsm: JetStreamManager, stream: string, durable: string) {
  try {
    return await jsm.consumers.info(stream, durable);
  } catch (err) {
    if (isNotFound(err)) return null;
    throw err;
  }
}

/** The consumer's ack_wait: a message not acknowledged (nor marked in progress) within it is delivered again. */
export const ACK_WAIT_MS = 5_000;
export const MAX_ACK_PENDING = 20_000;

/** A source's durable consumer as it is read from. */
export interface OpenedDurable {
  durable: string;
  /** When the stream was made (own stream; '' else): a recorded position is of this stream only if equal. */
  made: string;
  /**
   * Own stream: everything at or below this sequence is recorded or gone, so this process's one
   * acknowledgement a batch may start above it (`AckFloor`). Null for the legacy stream (one each).
   */
  floor: number | null;
}

/**
 * Makes or finds a source's durable consumer, at start and whenever JetStream has lost it: the stream
 * declared first (`source.ensure`); on a shard's own stream, a consumer that does not exist starts after
 * the position the log has recorded (written with each batch), so nothing recorded is handed over again
 * and nothing unrecorded is skipped; an explicit consumer of a ledger of before the batch consumer hands
 * over to it.
 */
export async function openDurable(o: {
  nc: NatsConnection;
  source: StreamSource;
  subjectPrefix: string;
  positions: StreamPositions;
  logger: Logger;
}): Promise<OpenedDurable> {
  const { source, logger } = o;
  const stream = source.stream;
  if (source.ensure) await ensureStream(o.nc, source.ensure);
  const jsm = await jetstreamManager(o.nc);
  const durable = durableOf(source, o.subjectPrefix);
  // Short ack_wait: messages a crashed replica had fetched come back within seconds. Re-delivery of a
  // message still being recorded is harmless (the log is idempotent), so there is nothing to lose.
  const config = {
    durable_name: durable,
    filter_subject: source.filter,
    ack_policy: source.ownStream ? AckPolicy.All : AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    ack_wait: nanos(ACK_WAIT_MS),
    max_ack_pending: MAX_ACK_PENDING,
  };
  // An explicit consumer of a shard's own stream (a ledger of before the batch consumer made it) hands
  // over to the batch consumer: it starts after the explicit one's ack floor, so whatever that one had
  // delivered and not acknowledged comes again, and the explicit one is then removed.
  const explicit = source.ownStream ? durableName(o.subjectPrefix, source.shard) : null;
  const previous = explicit ? await consumerInfo(jsm, stream, explicit) : null;
  // How far the log says this stream is recorded (own stream): a consumer JetStream has lost starts
  // after it, and what comes again at or below it is acknowledged without being recorded again. It is
  // the stream's only while the stream is the one it was taken on (made at the same time) and has
  // reached it: sequences never go back, so one past the stream's last is another stream's.
  const streamNow = source.ownStream ? await jsm.streams.info(stream) : null;
  const made = streamNow?.created ?? '';
  const stored = source.ownStream ? await o.positions.streamPosition(stream) : null;
  const ours = stored !== null && stored.created === made && stored.through <= streamNow!.state.last_seq;
  const storedThrough = ours ? stored.through : 0;
  if (stored && !ours) {
    logger.warn(
      { stream, recordedThrough: stored.through, lastSeq: streamNow?.state.last_seq },
      'settlement stream made again since its recorded position: that position is of the old stream',
    );
    // Else the batches' writes, which only move a position forward, would keep it.
    await o.positions.forgetStreamPosition(stored);
  }
  const startAfter = Math.max(previous?.ack_floor.stream_seq ?? 0, storedThrough);
  if (await consumerInfo(jsm, stream, durable)) {
    await jsm.consumers.update(stream, durable, {
      ack_wait: config.ack_wait,
      max_ack_pending: config.max_ack_pending,
    });
  } else {
    await jsm.consumers.add(
      stream,
      startAfter > 0
        ? { ...config, deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: startAfter + 1 }
        : config,
    );
    if (storedThrough > 0 && storedThrough >= (previous?.ack_floor.stream_seq ?? 0))
      logger.warn(
        { stream, durable, after: storedThrough },
        'settlement consumer made again after the position the log has recorded',
      );
  }
  if (explicit && previous) {
    await jsm.consumers.delete(stream, explicit);
    logger.info(
      { stream, from: explicit, to: durable, after: previous.ack_floor.stream_seq },
      'settlement consumer now acknowledges a batch at once',
    );
  }
  // Where this process's acknowledgements may go (own stream): from JetStream's ack floor now, or above
  // it what is recorded or gone already: what the explicit consumer had acknowledged, what the log has
  // recorded, and what has left the stream (JetStream reports a new consumer's floor as 0 whatever its
  // start).
  const floor = source.ownStream
    ? Math.max(
        (await jsm.consumers.info(stream, durable)).ack_floor.stream_seq,
        streamNow!.state.first_seq - 1,
        startAfter,
      )
    : null;
  return { durable, made, floor };
}
