import { jetstreamManager } from '@mdp/nats';
import { LEGACY_STREAM, shardStreamSpec } from '@mdp/usage';
import { type StreamSource, streamExists } from './durable-consumer.ts';
import {
  type ConsumerLag,
  type ConsumerSpec,
  type Recording,
  type SettlementConsumer,
  type StreamConsumer,
  startStreamConsumer,
} from './settlement-consumer.ts';

/** Where a publish landed, as JetStream acknowledged it. */
export interface StreamSeq {
  stream: string;
  seq: number;
}

/** One shard's events as its ledger reads them: from each stream that holds them. */
export interface ShardConsumer extends SettlementConsumer {
  /** Each stream's consumer: the shard's own stream's, and the legacy stream's while it exists. */
  readonly parts: readonly StreamConsumer[];
  /** Starts reading the legacy stream if one has appeared since (an older gateway made it). */
  lookForLegacy(): Promise<void>;
  /**
   * Resolves once everything up to each of `positions` is recorded; a position on a stream not read here
   * (yet) waits for everything, as `recordedPast`. Rejects after `timeoutMs`.
   */
  recordedTo(positions: readonly StreamSeq[], timeoutMs: number): Promise<void>;
}

/**
 * The consumer of one shard's settlement events: its own stream (made here for the shard this ledger
 * runs; for a retired shard it adopts, read only if it exists), and the legacy stream that held every
 * shard's events before each had its own, for as long as that stream exists. Recording is the same
 * for both (the log is keyed by request, and a batch's effect does not depend on arrival order), so
 * a request whose charge is in one and whose void is in the other is recorded right.
 */
export async function startShardConsumer(
  o: Recording & {
    spec: ConsumerSpec;
    /** Make the shard's own stream if it does not exist (false for a retired shard's). */
    create: boolean;
  },
): Promise<ShardConsumer> {
  const { spec } = o;
  const jsm = await jetstreamManager(o.nc);
  const start = (source: StreamSource) =>
    startStreamConsumer({ ...o, source, subjectPrefix: spec.subjectPrefix });
  const own = shardStreamSpec(spec.stream, spec.subjectPrefix, spec.shard, spec.retentionDays, spec.replicas);
  const parts: StreamConsumer[] = [];
  if (o.create || (await streamExists(jsm, own.name)))
    parts.push(
      await start({
        stream: own.name,
        filter: own.subjects[0]!,
        shard: spec.shard,
        ownStream: true,
        ...(o.create ? { ensure: own } : {}),
      }),
    );
  let legacy: StreamConsumer | undefined;
  const lookForLegacy = async () => {
    if (legacy || !(await streamExists(jsm, spec.stream))) return;
    legacy = await start({
      stream: spec.stream,
      filter: LEGACY_STREAM.filter(spec.subjectPrefix, spec.shard),
      shard: spec.shard,
    });
    parts.push(legacy);
    o.logger.info({ shard: spec.shard, stream: spec.stream }, 'recording the legacy settlement stream too');
  };
  await lookForLegacy();

  const all = <T>(f: (c: SettlementConsumer) => T) => parts.map(f);
  const recordedPast = async (timeoutMs: number) => {
    await Promise.all(all((c) => c.recordedPast(timeoutMs)));
  };
  return {
    parts,
    lookForLegacy,
    stop: async () => {
      await Promise.all(all((c) => c.stop()));
    },
    lag: async () => {
      const lags = await Promise.all(all((c) => c.lag()));
      return lags.reduce<ConsumerLag>(
        (sum, l) => ({ pending: sum.pending + l.pending, ackPending: sum.ackPending + l.ackPending }),
        { pending: 0, ackPending: 0 },
      );
    },
    idle: async () => {
      await Promise.all(all((c) => c.idle()));
    },
    recordingSince: () => {
      const since = all((c) => c.recordingSince()).filter((t): t is number => t !== null);
      return since.length === 0 ? null : Math.min(...since);
    },
    // The earliest of the parts': a part may hold nothing newer (see `horizonOf`, which asks each part).
    recordedThrough: () => Math.min(...all((c) => c.recordedThrough())),
    idleNow: () => all((c) => c.idleNow()).every(Boolean),
    recordedPast,
    recordedTo: async (positions, timeoutMs) => {
      const waits = positions.map((p) =>
        parts.find((c) => c.stream === p.stream)?.recordedTo(p.seq, timeoutMs),
      );
      if (waits.includes(undefined)) await recordedPast(timeoutMs);
      else await Promise.all(waits);
    },
  };
}
