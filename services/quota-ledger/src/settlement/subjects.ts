import type { NatsConnection } from '@mdp/nats';
import { type Logger, Registry, type Tracer } from '@mdp/telemetry';
import type { Mutex } from '../mutex.ts';
import {
  type ConsumerSpec,
  consumerMetrics,
  knownShards,
  type Recording,
  type SettlementConsumer,
} from './settlement-consumer.ts';
import { type ShardConsumer, startShardConsumer } from './shard-streams.ts';

/**
 * How far a stream's consumer has recorded its subject: now, when JetStream has nothing for it that is
 * not acknowledged and it holds nothing unrecorded (asked before the answer, so nothing published before
 * is missed); else the newest publish time it has recorded.
 */
async function horizonOf(consumer: SettlementConsumer, clock: () => number): Promise<number> {
  const asked = clock();
  const lag = await consumer.lag().catch(() => null);
  if (lag && lag.pending === 0 && lag.ackPending === 0 && consumer.idleNow()) return asked;
  return consumer.recordedThrough();
}

/** How far a shard's subject is recorded: the least of its streams' horizons. */
async function shardHorizon(consumer: ShardConsumer, clock: () => number): Promise<number> {
  const horizons = await Promise.all(consumer.parts.map((part) => horizonOf(part, clock)));
  return Math.min(...horizons);
}

export interface Subjects {
  /** This shard's own subject's consumer. */
  own: ShardConsumer;
  /** How far each subject consumed here is recorded, as of the last `measure`. */
  horizons(): ReadonlyMap<number, number>;
  /** Measures every consumer's horizon; resolves to the own subject's. */
  measure(): Promise<number>;
  /**
   * Consumes exactly these retired subjects besides its own (shards of a larger count that no process
   * runs any more, whose late events would otherwise never be recorded); stops those not named.
   */
  adopt(retired: readonly number[]): Promise<void>;
  /** Shards whose events the settlement streams hold (every shard that ever ran). */
  known(): Promise<number[]>;
  stop(): Promise<void>;
}

/** The settlement subjects one shard consumes: its own, and retired shards' it inherits. */
export async function startSubjects(o: {
  nc: NatsConnection;
  spec: ConsumerSpec;
  mutex: Mutex;
  apply: Recording['apply'];
  positions: Recording['positions'];
  logger: Logger;
  registry: Registry;
  tracer?: Tracer;
  clock: () => number;
}): Promise<Subjects> {
  const start = (shard: number, registry: Registry) =>
    startShardConsumer({
      ...o,
      metrics: consumerMetrics(registry),
      spec: { ...o.spec, shard },
      create: shard === o.spec.shard,
    });
  const own = await start(o.spec.shard, o.registry);
  const adopted = new Map<number, ShardConsumer>();
  const horizons = new Map<number, number>();
  return {
    own,
    horizons: () => horizons,
    measure: async () => {
      const ownHorizon = await shardHorizon(own, o.clock);
      horizons.set(o.spec.shard, ownHorizon);
      for (const [subject, consumer] of adopted) horizons.set(subject, await shardHorizon(consumer, o.clock));
      return ownHorizon;
    },
    adopt: async (retired) => {
      await own.lookForLegacy();
      for (const [subject, consumer] of adopted) {
        if (retired.includes(subject)) continue;
        adopted.delete(subject);
        horizons.delete(subject);
        await consumer.stop();
        o.logger.info(
          { subject },
          'stopped recording a retired shard subject: a process runs that shard again',
        );
      }
      for (const subject of retired) {
        if (adopted.has(subject) || subject === o.spec.shard) continue;
        // Its metrics would collide with the own consumer's in the service's registry: kept apart.
        adopted.set(subject, await start(subject, new Registry()));
        o.logger.info({ subject }, 'recording a retired shard subject (its shard runs no more)');
      }
    },
    known: () => knownShards(o.nc, o.spec.stream, o.spec.subjectPrefix),
    stop: async () => {
      await Promise.all([own.stop(), ...[...adopted.values()].map((c) => c.stop())]);
    },
  };
}
