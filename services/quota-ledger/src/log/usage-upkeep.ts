import { type Pool, withTransaction } from '@mdp/db';
import { Counter, Gauge, type Logger, type Registry } from '@mdp/telemetry';
import type { PoolClient } from 'pg';
import type { ArchiveTarget } from './archive/index.ts';
import { exportDay } from './archive/index.ts';
import { partitionName, sealDay } from './usage-seals.ts';
import { type DayState, dayEndMs, type UpkeepSettings, upkeepLags, upkeepPlan } from './usage-upkeep-plan.ts';

/**
 * The usage log's upkeep, run by one process (shard 0) under a Postgres advisory lock, so two pods never
 * do it at once: make partitions ahead, seal closed days, archive and drop days past retention
 * (`usage-upkeep-plan.ts` has the rules). Every step is its own transaction and is retried on the next
 * run when it fails; nothing is dropped that was not archived and read back equal to its seal.
 */

/** The advisory lock of the upkeep: this key and the schema's (one upkeep per ledger schema). */
const UPKEEP_LOCK = 0x6d64_7075; // "mdpu"

/** Every day the log holds or has sealed: partitions and seals joined. */
export async function dayStates(pool: Pool | PoolClient): Promise<DayState[]> {
  const { rows } = await pool.query<DayState>(
    `WITH parts AS (
       SELECT to_char(to_date(substr(c.relname, 14), 'YYYYMMDD'), 'YYYY-MM-DD') AS day
         FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent = 'usage_events'::regclass AND c.relname ~ '^usage_events_[0-9]{8}$')
     SELECT coalesce(p.day, to_char(s.day, 'YYYY-MM-DD')) AS day, p.day IS NOT NULL AS partition,
            s.day IS NOT NULL AS sealed, s.archived_at IS NOT NULL AS archived, s.dropped_at IS NOT NULL AS dropped
       FROM parts p FULL JOIN usage_seals s ON to_char(s.day, 'YYYY-MM-DD') = p.day
      ORDER BY 1`,
  );
  return rows;
}

/** Detaches and drops an archived day's partition, and says so in its seal. */
async function dropDay(pool: Pool, day: string): Promise<void> {
  await withTransaction(pool, async (client) => {
    const { rowCount } = await client.query(
      'UPDATE usage_seals SET dropped_at = now() WHERE day = $1 AND archived_at IS NOT NULL',
      [day],
    );
    if (rowCount !== 1) throw new Error(`${day} is not archived: its partition stays`);
    await client.query(`ALTER TABLE usage_events DETACH PARTITION ${partitionName(day)}`);
    await client.query(`DROP TABLE ${partitionName(day)}`);
  });
}

/** Archives a sealed day to the target, read back and checked against its seal, and records where. */
async function archiveDay(pool: Pool, day: string, target: ArchiveTarget): Promise<string> {
  const { rows } = await pool.query<{ events: string; sha256: string }>(
    'SELECT events, sha256 FROM usage_seals WHERE day = $1',
    [day],
  );
  if (!rows[0]) throw new Error(`${day} is not sealed`);
  const client = await pool.connect();
  let uri: string;
  try {
    uri = await exportDay(client, day, rows[0], target);
  } finally {
    client.release();
  }
  await pool.query('UPDATE usage_seals SET archived_at = now(), archive_uri = $2 WHERE day = $1', [day, uri]);
  return uri;
}

export interface UpkeepOptions {
  pool: Pool;
  target: ArchiveTarget;
  settings: UpkeepSettings;
  clock: () => number;
  /** Whether every shard's consumer has recorded all that the usage stream holds now (sealing rule). */
  consumersCaughtUp: () => Promise<boolean>;
  /** Makes the partitions of these days (the store's `ensurePartitions`). */
  ensurePartitions: (days: string[]) => Promise<string[]>;
  /** How often a pass runs (USAGE_UPKEEP_INTERVAL_MS): exported for the staleness alert; none for one pass. */
  intervalMs?: number;
  logger: Logger;
  registry: Registry;
}

export interface Upkeep {
  /** One pass now (under the lock; false when another process holds it). */
  run(): Promise<boolean>;
}

export function createUpkeep(o: UpkeepOptions): Upkeep {
  const { pool, logger } = o;
  const failures = new Counter({
    name: 'ledger_usage_archive_failures_total',
    help: 'Usage-log days whose archiving failed, by stage (export, verify, drop); the partition is kept',
    labelNames: ['stage'] as const,
    registers: [o.registry],
  });
  // Every stage's series from the start, so that Prometheus sees the first failure as an increase.
  for (const stage of ['export', 'verify', 'drop']) failures.inc({ stage }, 0);
  const gauges = {
    bytes: new Gauge({
      name: 'ledger_usage_log_bytes',
      help: "Bytes of the usage event log's partitions (heap and indexes)",
      registers: [o.registry],
    }),
    partitions: new Gauge({
      name: 'ledger_usage_log_partitions',
      help: 'Partitions (IST days) of the usage event log held in Postgres',
      registers: [o.registry],
    }),
    ahead: new Gauge({
      name: 'ledger_usage_partitions_ahead_days',
      help: 'Whole IST days after today that already have an event-log partition',
      registers: [o.registry],
    }),
    sealLag: new Gauge({
      name: 'ledger_usage_seal_lag_days',
      help: 'Closed IST days past the seal grace that are not sealed yet',
      registers: [o.registry],
    }),
    archiveLag: new Gauge({
      name: 'ledger_usage_archive_lag_days',
      help: 'IST days past the retention window still held in Postgres (not archived and dropped yet)',
      registers: [o.registry],
    }),
    lastSuccess: new Gauge({
      name: 'ledger_usage_upkeep_last_success_timestamp_seconds',
      help: 'When the usage-log upkeep last completed a pass without a failure (Unix seconds)',
      registers: [o.registry],
    }),
  };
  // What the staleness alert measures the last success against (USAGE_UPKEEP_INTERVAL_MS is configurable).
  if (o.intervalMs !== undefined)
    new Gauge({
      name: 'ledger_usage_upkeep_interval_seconds',
      help: 'How often shard 0 runs the usage-log upkeep (USAGE_UPKEEP_INTERVAL_MS, in seconds)',
      registers: [o.registry],
    }).set(o.intervalMs / 1000);

  async function pass(): Promise<boolean> {
    const now = o.clock();
    let ok = true;
    const plan = upkeepPlan(now, await dayStates(pool), o.settings);
    const made = await o.ensurePartitions(plan.ensure);
    if (made.length > 0) logger.info({ days: made }, 'usage log: partitions made ahead');
    if (plan.seal.length > 0) {
      if (await o.consumersCaughtUp()) {
        for (const day of plan.seal) {
          // Checked again per day: a day still inside the grace is left for a later pass.
          if (dayEndMs(day) + o.settings.sealGraceMs > o.clock()) continue;
          const seal = await sealDay(pool, day);
          logger.info({ day, ...seal }, 'usage log: day sealed');
        }
      } else logger.info({ days: plan.seal }, 'usage log: waiting for the consumers before sealing');
    }
    const sealed = upkeepPlan(now, await dayStates(pool), o.settings);
    for (const day of sealed.archive) {
      try {
        const uri = await archiveDay(pool, day, o.target);
        logger.info({ day, uri }, 'usage log: day archived and read back equal to its seal');
      } catch (err) {
        ok = false;
        const stage = (err as { stage?: string }).stage === 'verify' ? 'verify' : 'export';
        failures.inc({ stage });
        logger.error(
          { day, stage, err: (err as Error).message },
          'usage log: archiving failed; the day is kept',
        );
      }
    }
    for (const day of upkeepPlan(now, await dayStates(pool), o.settings).drop) {
      try {
        await dropDay(pool, day);
        logger.info({ day }, 'usage log: archived day dropped from Postgres');
      } catch (err) {
        ok = false;
        failures.inc({ stage: 'drop' });
        logger.error({ day, err: (err as Error).message }, 'usage log: dropping an archived day failed');
      }
    }
    const after = await dayStates(pool);
    const lags = upkeepLags(o.clock(), after, o.settings);
    gauges.ahead.set(lags.aheadDays);
    gauges.sealLag.set(lags.sealLagDays);
    gauges.archiveLag.set(lags.archiveLagDays);
    const { rows } = await pool.query<{ bytes: string; partitions: number }>(
      `SELECT coalesce(sum(pg_total_relation_size(relid)), 0) AS bytes, count(*)::int AS partitions
         FROM pg_partition_tree('usage_events') WHERE isleaf`,
    );
    gauges.bytes.set(Number(rows[0]!.bytes));
    gauges.partitions.set(rows[0]!.partitions);
    if (ok) gauges.lastSuccess.set(Math.floor(o.clock() / 1000));
    return ok;
  }

  return {
    run: async () => {
      const lock = await pool.connect();
      try {
        const { rows } = await lock.query<{ got: boolean }>(
          'SELECT pg_try_advisory_lock($1, hashtext(current_schema())) AS got',
          [UPKEEP_LOCK],
        );
        if (!rows[0]!.got) return false;
        try {
          await pass();
        } finally {
          await lock.query('SELECT pg_advisory_unlock($1, hashtext(current_schema()))', [UPKEEP_LOCK]);
        }
        return true;
      } finally {
        lock.release();
      }
    },
  };
}
