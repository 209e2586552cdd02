import { BURST_WINDOW_MS } from '@mdp/admission';
import type { Pool } from '@mdp/db';
import type { GrpcServer } from '@mdp/grpc';
import type { NatsConnection } from '@mdp/nats';
import type { Clock } from '@mdp/nse-calendar';
import { Counter, type Logger, type Registry, type Tracer } from '@mdp/telemetry';
import { type SettlementEvent, shardOf } from '@mdp/usage';
import { AccountBook } from './admission/account-book.ts';
import { handOver } from './admission/handover.ts';
import { LeaseMetrics } from './admission/lease-metrics.ts';
import { createShard } from './admission/shard.ts';
import { handoverHolds, type ShardRegistry, startShardRegistry } from './admission/shard-registry.ts';
import { buildApp } from './app.ts';
import { type LedgerStats, startLedgerStats } from './ledger-stats.ts';
import type { ArchiveTarget } from './log/archive/index.ts';
import { createUpkeep, type Upkeep } from './log/usage-upkeep.ts';
import type { UpkeepSettings } from './log/usage-upkeep-plan.ts';
import { Mutex } from './mutex.ts';
import { ProjectionStore } from './settlement/projections.ts';
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
  /** True once the consumer has caught up with the stream; admissions and usage wait for it. */
  caughtUp(): boolean;
  /** Resolves when `caughtUp()` turns true (or the ledger closes first). */
  catchingUp: Promise<void>;
  /**
   * A graceful stop's first step: stops admitting, takes the leases back, and once everything published
   * until then is recorded, ends this shard's run with a hand-over (the requests it still holds), so the
   * accounts it gives up move at once. Waits at most about `ms` for each step; without a complete
   * hand-over they move as after a kill, a hold TTL later.
   */
  handOver(ms: number): Promise<void>;
  close(): Promise<void>;
}

const CATCH_UP_POLL_MS = 100;
/**
 * A batch still not recorded after this long means Postgres is away or not answering (a batch takes
 * milliseconds): logged, as hold expiry waits for the backlog to be recorded (see `AccountBook.sweep`).
 */
const RECORDING_STALL_MS = 1_000;
/** A run of the shard registry not refreshed for this long has ended (5 refreshes missed). */
const REGISTRY_LIVE_MS = 5_000;
/** Allowance for the clocks of Postgres, JetStream and the ledgers when a move waits for a horizon. */
const REGISTRY_SKEW_MS = 1_000;
/** How long a usage read of a leased account waits for the stream to be recorded up to the read. */
const RECORDED_PAST_WAIT_MS = 2_000;
/** How often the retired subjects this shard inherits are looked for (a JetStream consumer listing). */
const ADOPT_EVERY_MS = 5_000;

/** One ledger shard: its account book, the consumer feeding it, and the gRPC service over both. */
export async function assembleLedger(o: LedgerOptions): Promise<Ledger> {
  const missingPartitions = new Counter({
    name: 'ledger_usage_partition_missing_total',
    help: 'Settlement batches that found no event-log partition for their day (made then and recorded: upkeep is behind)',
    registers: [o.registry],
  });
  const afterSeal = new Counter({
    name: 'ledger_usage_events_after_seal_total',
    help: 'Settlement events of an IST day already sealed, left out of the log (the sealing rule says there are none)',
    registers: [o.registry],
  });
  const store = new ProjectionStore(o.pool, o.recorder, (days) => {
    missingPartitions.inc();
    o.logger.error({ days }, 'usage log: no partition for a batch; made it now (is the upkeep running?)');
  });
  const book = new AccountBook(o.holdTtlMs);
  const leaseMetrics = new LeaseMetrics(o.registry, () => book.leasesOut);
  const mutex = new Mutex();
  const apply = async (events: SettlementEvent[]) => {
    const result = await store.record(events);
    if (result.late > 0) {
      afterSeal.inc(result.late);
      o.logger.error({ late: result.late }, 'usage log: events of a sealed day left out of the log');
    }
    book.recordedBatch(result.deltas, events, o.clock());
  };
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
    logger: o.logger,
    registry: o.registry,
    ...(o.settleSpans === false ? {} : { tracer: o.tracer }),
    clock: o.clock,
    apply,
  });
  const consumer = subjects.own;
  const shardRegistry = startShardRegistry({
    pool: o.pool,
    shard: o.shard,
    count: o.shardCount,
    holder: o.holder,
    settings: { liveMs: REGISTRY_LIVE_MS, holdTtlMs: o.holdTtlMs, skewMs: REGISTRY_SKEW_MS },
    horizons: () => subjects.horizons(),
    intervalMs: o.registryIntervalMs ?? 1_000,
    logger: o.logger,
    registry: o.registry,
  });
  // A shard that starts (or restarts) knows only what the projections hold: charges still in the stream
  // would be invisible to admission and usage. So it serves nothing until its consumer has nothing
  // pending or unacknowledged, including messages a crashed predecessor had fetched (back after
  // ack_wait). The check repeats until it holds; the gateways meanwhile answer 503.
  let caughtUp = false;
  let stopping = false;
  /**
   * The burst windows of this shard's accounts as the last minute of the log has them, so that a shard
   * that restarts (or a new one) decides from real admissions, not an empty minute. Under the mutex, once
   * the consumer has recorded everything: what it records from then on reaches the book through `apply`.
   */
  const seedBurstWindows = async (): Promise<number> => {
    const now = o.clock();
    let n = 0;
    const map = shardRegistry.map();
    for (const r of await store.admittedSince(now - BURST_WINDOW_MS)) {
      // Accounts moving here are read from the log when their move completes (`AccountBook.seedBurst`).
      const own = map?.ownership(r.accountId);
      if (own?.kind !== 'owner' || own.moved) continue;
      book.admittedEarlier(r.requestId, r.accountId, r.admittedAtMs, now);
      n++;
    }
    book.startAdmitting(now);
    return n;
  };
  const catchingUp = (async () => {
    while (!stopping) {
      const lag = await consumer.lag().catch(() => null);
      if (lag && lag.pending === 0 && lag.ackPending === 0) {
        await consumer.idle();
        // Which accounts are this shard's to admit is read from the registry first.
        await shardRegistry.ready;
        const seeded = await mutex
          .run(() => seedBurstWindows())
          .catch((err) => {
            o.logger.warn(
              { err: (err as Error).message },
              'could not read the last minute of the log; retrying',
            );
            return null;
          });
        if (seeded === null) {
          await new Promise((r) => setTimeout(r, CATCH_UP_POLL_MS));
          continue;
        }
        caughtUp = true;
        o.logger.info(
          { shard: o.shard, recentAdmissions: seeded },
          'settlement consumer caught up; admitting',
        );
        return;
      }
      await new Promise((r) => setTimeout(r, CATCH_UP_POLL_MS));
    }
  })();
  const expired = new Counter({
    name: 'ledger_holds_expired_total',
    help: 'Admitted requests that never settled and were released after HOLD_TTL_MS',
    registers: [o.registry],
  });
  let stalledLogged = false;
  let adoptedAt = 0;
  /**
   * Each second: how far each subject is recorded (for the registry, and hold expiry: `AccountBook.sweep`),
   * the holds that never settled, and every few seconds the retired subjects this shard inherits.
   */
  const tick = async () => {
    const through = await subjects.measure();
    const now = o.clock();
    const since = consumer.recordingSince();
    const stalledSince = since !== null && now - since > RECORDING_STALL_MS ? since : null;
    if ((stalledSince !== null) !== stalledLogged) {
      stalledLogged = stalledSince !== null;
      if (stalledSince !== null)
        o.logger.warn(
          { seconds: Math.round((now - stalledSince) / 1000) },
          'settlements cannot be recorded; holds are kept until they can',
        );
      else o.logger.info('settlements are recorded again; holds expire as the backlog is recorded');
    }
    const horizons = subjects.horizons();
    const registered = shardRegistry.map();
    const swept = book.sweep(now, {
      recordedThrough: through,
      subjectRecordedThrough: (subject) =>
        Math.max(horizons.get(subject) ?? 0, registered?.recordedThrough(subject) ?? 0),
    });
    leaseMetrics.writtenOff(swept.leasesWrittenOff, swept.stranded);
    if (swept.expired > 0) {
      expired.inc(swept.expired);
      o.logger.warn({ expired: swept.expired }, 'released holds of requests that never settled');
    }
    const map = shardRegistry.map();
    if (map && now - adoptedAt >= ADOPT_EVERY_MS) {
      adoptedAt = now;
      await subjects.adopt(map.inherited(await subjects.known()));
    }
  };
  let ticking = false;
  const ticker = setInterval(() => {
    if (ticking) return;
    ticking = true;
    void tick()
      .catch((err) => o.logger.warn({ err: (err as Error).message }, 'ledger upkeep tick failed'))
      .finally(() => {
        ticking = false;
      });
  }, 1_000);
  const upkeep =
    o.usageLog && o.shard === 0
      ? createUpkeep({
          pool: o.pool,
          target: o.usageLog.target,
          settings: o.usageLog.settings,
          clock: o.clock,
          consumersCaughtUp: () => consumersCaughtUp(o.nc, o.stream, o.subjectPrefix, o.shardCount),
          ensurePartitions: (days) => store.ensurePartitions(days),
          intervalMs: o.usageLog.intervalMs,
          logger: o.logger,
          registry: o.registry,
        })
      : null;
  let upkeepRun: Promise<unknown> = Promise.resolve();
  let upkeepTimer: NodeJS.Timeout | undefined;
  if (upkeep) {
    const runUpkeep = () => {
      upkeepRun = upkeepRun
        .then(() => upkeep.run())
        .catch((err) => o.logger.error({ err: (err as Error).message }, 'usage log: upkeep failed'));
    };
    void catchingUp.then(() => {
      if (stopping) return;
      runUpkeep();
      upkeepTimer = setInterval(runUpkeep, o.usageLog!.intervalMs);
      upkeepTimer.unref();
    });
  }
  const shardService = createShard({
    book,
    store,
    mutex,
    clock: o.clock,
    logger: o.logger,
    tracer: o.tracer,
    registry: o.registry,
    caughtUp: () => caughtUp,
    leaseMs: o.leaseMs ?? 0,
    leaseMetrics,
    recordedPast: () => consumer.recordedPast(RECORDED_PAST_WAIT_MS),
    handoverHolds: (accountId, from) => handoverHolds(o.pool, accountId, from),
    ownership: (accountId) =>
      shardRegistry.map()?.ownership(accountId) ??
      (shardOf(accountId, o.shardCount) === o.shard
        ? { kind: 'handoff', why: 'the shard registry is not read yet' }
        : { kind: 'not_owner' }),
  });
  const server = buildApp({
    logger: o.logger,
    tracer: o.tracer,
    registry: o.registry,
    shard: shardService,
    clock: o.clock,
  });
  const stats = o.stats
    ? startLedgerStats({
        shard: o.shard,
        consumer,
        book,
        store,
        clock: o.clock,
        logger: o.logger,
        registry: o.registry,
        ...o.stats,
      })
    : null;
  return {
    server,
    store,
    consumer,
    shardRegistry,
    stats,
    upkeep,
    caughtUp: () => caughtUp,
    catchingUp,
    handOver: (ms) =>
      handOver(
        {
          shard: shardService,
          book,
          registry: shardRegistry,
          pool: o.pool,
          me: { shard: o.shard, count: o.shardCount },
          recordedPast: (wait) => consumer.recordedPast(wait),
          logger: o.logger,
        },
        ms,
      ),
    close: async () => {
      stopping = true;
      await catchingUp;
      clearInterval(upkeepTimer);
      await upkeepRun;
      stats?.stop();
      clearInterval(ticker);
      await shardRegistry.close();
      await subjects.stop();
    },
  };
}
