import type { Pool } from '@mdp/db';
import { Counter, type Logger, type Registry } from '@mdp/telemetry';
import type { SettlementEvent } from '@mdp/usage';
import { ProjectionStore } from './projections.ts';
import { type SettlingBook, settle } from './settle.ts';
import type { StreamPosition } from './stream-position.ts';

interface SettlementRecording {
  store: ProjectionStore;
  /**
   * Records a batch in the log and the projections (and, for a shard's own stream, how far that stream
   * is recorded), then the book learns it (`settle`): the consumers' `apply`.
   */
  apply(events: SettlementEvent[], position: StreamPosition | null): Promise<void>;
}

/** Where settlements are recorded (`recorder`: `openRecorder`'s pool), and what recording reports. */
export function settlementRecording(o: {
  pool: Pool;
  recorder: Pool;
  book: SettlingBook;
  clock: () => number;
  logger: Logger;
  registry: Registry;
}): SettlementRecording {
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
  return {
    store,
    apply: async (events, position) => {
      const { late } = settle(o.book, await store.record(events, position), events, o.clock());
      if (late > 0) {
        afterSeal.inc(late);
        o.logger.error({ late }, 'usage log: events of a sealed day left out of the log');
      }
    },
  };
}
