import type { Pool } from '@mdp/db';
import type { Clock } from '@mdp/nse-calendar';
import type { Logger } from '@mdp/telemetry';
import type { AccountBook } from './account-book.ts';
import { registryNow, writeHandover } from './registry-tables.ts';
import type { Shard } from './shard.ts';
import type { ShardRegistry } from './shard-registry.ts';

/** The longest wait for leases to come back: a gateway answers a recall within a turn of its loop. */
const RECALL_MS = 2_000;

/**
 * A graceful stop's first step, while the gateways' streams are still open: stop admitting, take the
 * leases back, and once everything published until then is recorded, end this shard's runs (its own,
 * its stand-in's, its reliefs') with a hand-over (the requests it still holds), so the accounts it gives
 * up move at once. All of it within `ms`: without a complete hand-over by then the accounts move as after
 * a kill, a hold TTL later, so a slow recording is waited for as long as the stop can afford.
 */
export async function handOver(
  o: {
    shard: Shard;
    book: AccountBook;
    registry: ShardRegistry;
    pool: Pool;
    /** Resolves once the consumer has recorded everything the stream held when called. */
    recordedPast: (ms: number) => Promise<void>;
    clock: Clock;
    logger: Logger;
  },
  ms: number,
): Promise<void> {
  const began = o.clock();
  const left = () => Math.max(0, began + ms - o.clock());
  // Each step's end (ms from the stop), logged with the outcome: a slow move says which step it was.
  const steps: Record<string, number> = {};
  const done = (step: string) => {
    steps[step] = o.clock() - began;
  };
  o.shard.stopAdmitting();
  // A holder that never answers (a lost gateway) must not take the recording's time too.
  await o.shard.recallAll(Math.min(RECALL_MS, left()));
  done('recalled');
  await o.registry.stopRefreshing();
  done('registryStopped');
  try {
    const endedAt = await registryNow(o.pool);
    await o.recordedPast(left());
    done('recorded');
    // A lease not back may still be used until it expires: nothing exact to hand over.
    if (o.book.leasesOut > 0) throw new Error(`${o.book.leasesOut} leases are not back`);
    const holds = o.book.heldRequests();
    await writeHandover(o.pool, o.registry.runs(), endedAt, holds);
    o.logger.info(
      { holds: holds.length, ms: o.clock() - began, steps },
      'handed over: accounts moving elsewhere move now',
    );
  } catch (err) {
    o.logger.warn(
      { err: (err as Error).message, ms: o.clock() - began, budgetMs: ms, steps },
      'no hand-over: accounts moving elsewhere move a hold TTL after this run ends',
    );
  }
}
