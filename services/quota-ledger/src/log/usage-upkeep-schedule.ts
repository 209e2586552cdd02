import type { Pool } from '@mdp/db';
import type { Logger, Registry } from '@mdp/telemetry';
import type { ArchiveTarget } from './archive/index.ts';
import { createUpkeep, type Upkeep, type UpkeepOptions } from './usage-upkeep.ts';
import type { UpkeepSettings } from './usage-upkeep-plan.ts';

interface ScheduledUpkeep extends Upkeep {
  /** No pass after this; resolves once the pass running (if any) has ended. */
  stop(): Promise<void>;
}

/**
 * The usage log's upkeep as a ledger shard runs it: shard 0 only, a first pass once `start` calls (when
 * its consumer has caught up) and then every `intervalMs`, one pass at a time; none without `usageLog`.
 */
export function scheduleUpkeep(
  o: {
    shard: number;
    usageLog?: { settings: UpkeepSettings; target: ArchiveTarget; intervalMs: number };
    pool: Pool;
    clock: () => number;
    logger: Logger;
    registry: Registry;
    start: (run: () => void) => void;
  } & Pick<UpkeepOptions, 'consumersCaughtUp' | 'ensurePartitions'>,
): ScheduledUpkeep | null {
  const { usageLog, logger } = o;
  if (!usageLog || o.shard !== 0) return null;
  const upkeep = createUpkeep({
    pool: o.pool,
    target: usageLog.target,
    settings: usageLog.settings,
    clock: o.clock,
    consumersCaughtUp: o.consumersCaughtUp,
    ensurePartitions: o.ensurePartitions,
    intervalMs: usageLog.intervalMs,
    logger,
    registry: o.registry,
  });
  let running: Promise<unknown> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  const runUpkeep = () => {
    running = running
      .then(() => upkeep.run())
      .catch((err) => logger.error({ err: (err as Error).message }, 'usage log: upkeep failed'));
  };
  o.start(() => {
    runUpkeep();
    timer = setInterval(runUpkeep, usageLog.intervalMs);
    timer.unref();
  });
  return {
    run: () => upkeep.run(),
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}
