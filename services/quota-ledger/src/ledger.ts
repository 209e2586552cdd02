import type { Pool } from '@mdp/db';
import type { GrpcServer } from '@mdp/grpc';
import type { NatsConnection } from '@mdp/nats';
import type { Clock } from '@mdp/nse-calendar';
import type { Logger, Registry, Tracer } from '@mdp/telemetry';
import { AccountBook } from './admission/account-book.ts';
import { startCatchUp } from './admission/catch-up.ts';
import { handOver } from './admission/handover.ts';
import { LeaseMetrics } from './admission/lease-metrics.ts';
import { handoverHolds } from './admission/registry-tables.ts';
import { createShard } from './admission/shard.ts';
import { type ShardRegistry, startShardRegistry } from './admission/shard-registry.ts';
import { startTick } from './admission/tick.ts';
import { buildApp } from './app.ts';
import { type LedgerStats, startLedgerStats } from './ledger-stats.ts';
import type { ArchiveTarget } from './log/archive/index.ts';
import type { Upkeep } from './log/usage-upkeep.ts';
import type { UpkeepSettings } from './log/usage-upkeep-plan.ts';
import { scheduleUpkeep } from './log/usage-upkeep-schedule.ts';
import { Mutex } from './mutex.ts';
import type { ProjectionStore } from './settlement/projections.ts';
import { settlementRecording } from './settlement/recording.ts';
import { consumersCaughtUp, type SettlementConsumer } from './settlement/settlement-consumer.ts';
import { startSubjects } from './settlement/subjects.ts';

export interface LedgerOptions {
  pool: Pool;
  /** Where batches are recorded: `openRecorder`'s pool. */
  recorder: Pool;
  nc: NatsConnection;
  stream: string;
  subjectPrefix: string;
  shard: number;
  /** How many shards there are: this one owns the accounts `shardOf` gives it. */
  shardCount: number;
  /** This process in the shard registry's runs (who holds the shard: host, pod). */
  holder: string;
  /** How often the shard registry is refreshed and read (default 1 s). */
  registryIntervalMs?: number;
  /** The database and schema to LISTEN on for runs that begin or hand over: read at once, not at the next refresh. */
  registryNotices?: { url: string; schema: string };
  holdTtlMs: number;
  /** How long an admission lease lasts (0: none are granted). */
  leaseMs?: number;
  retentionDays: number;
  replicas?: number;
  clock: Clock;
  logger: Logger;
  tracer: Tracer;
  /** A `ledger.settle` span per consumed event (default true; only worth it when spans are recorded). */
  settleSpans?: boolean;
  registry: Registry;
  /** Periodic gauges (consumer lag, top accounts, rebuild check); none when absent. */
  stats?: { intervalMs: number; rebuildCheckIntervalMs: number };
  /**
   * The usage log's upkeep (partitions ahead, seals, archive and drop), run by shard 0 only, first once
   * the consumer has caught up and then every `intervalMs`; none when absent.
   */
  usageLog?: { settings: UpkeepSettings; target: ArchiveTarget; intervalMs: number };
}

export interface Ledger {
  server: GrpcServer;
  store: ProjectionStore;
  consumer: SettlementConsumer;
  shardRegistry: ShardRegistry;
  stats: LedgerStats | null;
  /** The usage log's upkeep on shard 0 (null elsewhere, or without `usageLog`). */
  upkeep: Upkeep | null;
  /** True once the consumer has caught up with the stream; admissions and usage wait for it (`startCatchUp`). */
  caughtUp(): boolean;
  /** Resolves when `caughtUp()` turns true (or the ledger closes first). */
  catchingUp: Promise<void>;
  /**
   * A graceful stop's first step: stops admitting, takes the leases back, and once everything published
   * until then is recorded, ends this shard's run with a hand-over (the requests it still holds), so the
   * accounts it gives up move at once. All within about `ms`; without a complete hand-over by then they
   * move as after a kill, a hold TTL later.
   */
  handOver(ms: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * One ledger shard: its account book, the consumer feeding it, and the gRPC service over both, wired.
 * settlement/ records what was charged, and the book learns it (`settle`); admission/ decides over the
 * book once caught up (`startCatchUp`, `startTick`, `createShard`); log/ keeps the usage log.
 */
export async function assembleLedger(o: LedgerOptions): Promise<Ledger> {
  const { pool, clock, logger, tracer, registry } = o;
  const book = new AccountBook(o.holdTtlMs, Math.random);
  const { store, apply } = settlementRecording({ pool, recorder: o.recorder, book, clock, logger, registry });
  const leaseMetrics = new LeaseMetrics(registry, () => book.leasesOut);
  const mutex = new Mutex();
  const subjects = await startSubjects({
    nc: o.nc,
    spec: {
      stream: o.stream,
      subjectPrefix: o.subjectPrefix,
      shard: o.shard,
      retentionDays: o.retentionDays,
      replicas: o.replicas,
    },
    mutex,
    logger,
    registry,
    ...(o.settleSpans === false ? {} : { tracer }),
    clock,
    apply,
    positions: store,
  });
  const consumer = subjects.own;
  const recordedPast = (ms: number) => consumer.recordedPast(ms);
  const shardRegistry = startShardRegistry({
    pool,
    shard: o.shard,
    count: o.shardCount,
    holder: o.holder,
    holdTtlMs: o.holdTtlMs,
    horizons: () => subjects.horizons(),
    heldRequests: () => book.heldRequests(),
    recordedPast,
    intervalMs: o.registryIntervalMs,
    ...(o.registryNotices ? { notices: o.registryNotices } : {}),
    logger,
    registry,
    clock,
  });
  const catchUp = startCatchUp({
    shard: o.shard,
    consumer,
    shardRegistry,
    mutex,
    store,
    book,
    clock,
    logger,
  });
  // A relief of this shard ends once it admits, so its accounts are admitted throughout its restart.
  catchUp.whenCaughtUp(() => shardRegistry.admitting());
  const tick = startTick({ subjects, shardRegistry, book, leaseMetrics, clock, logger, registry });
  const upkeep = scheduleUpkeep({
    shard: o.shard,
    usageLog: o.usageLog,
    pool,
    clock,
    consumersCaughtUp: () => consumersCaughtUp(o.nc, o.stream, o.subjectPrefix, o.shardCount),
    ensurePartitions: (days) => store.ensurePartitions(days),
    start: (run) => catchUp.whenCaughtUp(run),
    logger,
    registry,
  });
  const shardService = createShard({
    book,
    store,
    mutex,
    clock,
    logger,
    tracer,
    registry,
    caughtUp: () => catchUp.caughtUp(),
    leaseMs: o.leaseMs ?? 0,
    leaseMetrics,
    recordedPast,
    recordedTo: (positions, ms) => consumer.recordedTo(positions, ms),
    handoverHolds: (accountId, from) => handoverHolds(pool, accountId, from),
    ownership: (accountId) => shardRegistry.ownership(accountId),
  });
  const server = buildApp({ logger, tracer, registry, shard: shardService, clock });
  const stats = o.stats
    ? startLedgerStats({ shard: o.shard, consumer, book, store, clock, logger, registry, ...o.stats })
    : null;
  const handingOver = {
    shard: shardService,
    book,
    registry: shardRegistry,
    pool,
    recordedPast,
    clock,
    logger,
  };
  return {
    server,
    store,
    consumer,
    shardRegistry,
    stats,
    upkeep,
    caughtUp: () => catchUp.caughtUp(),
    catchingUp: catchUp.done,
    handOver: (ms) => handOver(handingOver, ms),
    close: async () => {
      await catchUp.stop();
      await upkeep?.stop();
      stats?.stop();
      tick.stop();
      await shardRegistry.close();
      await subjects.stop();
    },
  };
}
