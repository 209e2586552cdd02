import { hostname } from 'node:os';
import { holdSessionLock } from '@mdp/db';
import { connectNats } from '@mdp/nats';
import { systemClock } from '@mdp/nse-calendar';
import { runGrpcService } from '@mdp/runtime';
import { ledgerConfig } from './config.ts';
import { assembleLedger } from './ledger.ts';
import { archiveTarget, upkeepSettings } from './log/usage-log-config.ts';
import { openRecorder } from './settlement/projections.ts';

await runGrpcService({
  name: 'quota-ledger',
  defaultSchema: 'ledger',
  migrationsDir: new URL('../migrations/', import.meta.url),
  config: ledgerConfig,
  build: async (rt, pool) => {
    const { config } = rt;
    if (config.SHARD_INDEX >= config.SHARD_COUNT) throw new Error('SHARD_INDEX must be below SHARD_COUNT');
    // One process per shard index: two would split the shard's durable consumer and each admit from
    // half its charges. Claimed before anything of the shard starts.
    const claim = holdSessionLock({
      url: config.DATABASE_URL,
      schema: config.DB_SCHEMA,
      name: `quota-ledger shard ${config.SHARD_INDEX}`,
      applicationName: `quota-ledger-${config.SHARD_INDEX}@${hostname()}`,
      logger: rt.logger,
      waitMs: config.SHARD_CLAIM_WAIT_MS,
      onLostTo: (holder) => {
        rt.logger.fatal(
          { shard: config.SHARD_INDEX, holder },
          'another process took this shard while the database session was being restored; exiting',
        );
        process.exit(1);
      },
    });
    await claim.acquired;
    let natsUp = true;
    const nc = await connectNats({
      url: config.NATS_URL,
      name: `quota-ledger-${config.SHARD_INDEX}`,
      logger: rt.logger,
      onDisconnect: () => {
        natsUp = false;
      },
      onReconnect: () => {
        natsUp = true;
      },
    });
    const recorder = openRecorder({
      url: rt.config.DATABASE_URL,
      schema: rt.config.DB_SCHEMA,
      applicationName: 'quota-ledger-recorder',
      logger: rt.logger,
    });
    const ledger = await assembleLedger({
      pool,
      recorder,
      nc,
      stream: config.USAGE_STREAM,
      subjectPrefix: config.USAGE_SUBJECT,
      shard: config.SHARD_INDEX,
      shardCount: config.SHARD_COUNT,
      holder: `quota-ledger-${config.SHARD_INDEX}@${hostname()}`,
      holdTtlMs: config.HOLD_TTL_MS,
      registryNotices: { url: config.DATABASE_URL, schema: config.DB_SCHEMA },
      leaseMs: config.LEASE_MS,
      retentionDays: config.USAGE_RETENTION_DAYS,
      replicas: config.USAGE_STREAM_REPLICAS,
      clock: systemClock,
      logger: rt.logger,
      tracer: rt.tracing.tracer,
      settleSpans: rt.tracing.recording,
      registry: rt.registry,
      stats: {
        intervalMs: config.LEDGER_STATS_INTERVAL_MS,
        rebuildCheckIntervalMs: config.REBUILD_CHECK_INTERVAL_MS,
      },
      usageLog: {
        settings: upkeepSettings(config),
        target: await archiveTarget(config),
        intervalMs: config.USAGE_UPKEEP_INTERVAL_MS,
      },
    });
    rt.logger.info(
      { shard: config.SHARD_INDEX, of: config.SHARD_COUNT, stream: config.USAGE_STREAM },
      'ledger shard consuming',
    );
    return {
      server: ledger.server,
      ready: () => natsUp && !nc.isClosed() && ledger.caughtUp(),
      // The gateways send a restarting shard's accounts to its relief until they can connect here.
      listenWhen: ledger.catchingUp,
      // Leases come back, and accounts are handed over, while the gateways' streams are still open. Half
      // the grace: a loaded shard once needed more than 2 s to record what was published before its stop
      // (4 December), and without a hand-over its accounts wait for its restart instead of its relief.
      beforeDrain: (graceMs) => ledger.handOver(graceMs / 2),
      close: async () => {
        await ledger.close();
        await nc.drain();
        await recorder.end();
        await claim.close();
      },
    };
  },
});
