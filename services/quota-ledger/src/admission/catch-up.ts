import { BURST_WINDOW_MS } from '@mdp/admission';
import type { Logger } from '@mdp/telemetry';
import type { Mutex } from '../mutex.ts';
import type { ProjectionStore } from '../settlement/projections.ts';
import type { SettlementConsumer } from '../settlement/settlement-consumer.ts';
import type { AccountBook } from './account-book.ts';
import type { ShardRegistry } from './shard-registry.ts';

const CATCH_UP_POLL_MS = 100;

interface CatchUp {
  /** True once the consumer has caught up with the stream; admissions and usage wait for it. */
  caughtUp(): boolean;
  /** Resolves when `caughtUp()` turns true (or the catch-up stops first). */
  done: Promise<void>;
  /** Runs `fn` once caught up, unless the catch-up was stopped by then. */
  whenCaughtUp(fn: () => void): void;
  /** Stops trying; resolves once the attempt in progress has ended. */
  stop(): Promise<void>;
}

interface CatchUpParts {
  shard: number;
  consumer: SettlementConsumer;
  shardRegistry: ShardRegistry;
  mutex: Mutex;
  store: ProjectionStore;
  book: AccountBook;
  clock: () => number;
  logger: Logger;
}

/**
 * The burst windows of this shard's accounts as the last minute of the log has them, so that a shard
 * that restarts (or a new one) decides from real admissions, not an empty minute. Under the mutex, once
 * the consumer has recorded everything: what it records from then on reaches the book as it is recorded.
 */
async function seedBurstWindows(o: CatchUpParts): Promise<number> {
  const now = o.clock();
  let n = 0;
  const map = o.shardRegistry.map();
  for (const r of await o.store.admittedSince(now - BURST_WINDOW_MS)) {
    // Accounts moving here are read from the log when their move completes (`AccountBook.seedBurst`).
    const own = map?.ownership(r.accountId);
    if (own?.kind !== 'owner' || own.moved) continue;
    o.book.admittedEarlier(r.requestId, r.accountId, r.admittedAtMs, now);
    n++;
  }
  o.book.startAdmitting(now);
  return n;
}

/**
 * A shard that starts (or restarts) knows only what the projections hold: charges still in the stream
 * would be invisible to admission and usage. So it serves nothing until its consumer has nothing
 * pending or unacknowledged, including messages a crashed predecessor had fetched (back after
 * ack_wait), and its burst windows are seeded. The check repeats until it holds; the gateways meanwhile
 * answer 503.
 */
export function startCatchUp(o: CatchUpParts): CatchUp {
  let caughtUp = false;
  let stopping = false;
  const done = (async () => {
    while (!stopping) {
      const lag = await o.consumer.lag().catch(() => null);
      if (lag && lag.pending === 0 && lag.ackPending === 0) {
        await o.consumer.idle();
        // Which accounts are this shard's to admit is read from the registry first.
        await o.shardRegistry.ready;
        const seeded = await o.mutex
          .run(() => seedBurstWindows(o))
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
  return {
    caughtUp: () => caughtUp,
    done,
    whenCaughtUp: (fn) => {
      void done.then(() => {
        if (!stopping) fn();
      });
    },
    stop: async () => {
      stopping = true;
      await done;
    },
  };
}
