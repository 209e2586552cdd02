import type { Pool } from '@mdp/db';
import type { Logger } from '@mdp/telemetry';
import type { AccountBook } from './account-book.ts';
import { registryNow, writeHandover } from './registry-tables.ts';
import type { Shard } from './shard.ts';
import type { ShardRegistry } from './shard-registry.ts';

/**
 * A graceful stop's first step, while the gateways' streams are still open: stop admitting, take the
 * leases back, and once everything published until then is recorded, end this shard's runs (its own,
 * its stand-in's, its reliefs') with a hand-over (the requests it still holds), so the accounts it gives up move at once. Each wait is at most
 * about `ms`; without a complete hand-over the accounts move as after a kill, a hold TTL later.
 */
export async function handOver(
  o: {
    shard: Shard;
    book: AccountBook;
    registry: ShardRegistry;
    pool: Pool;
    /** Resolves once the consumer has recorded everything the stream held when called. */
    recordedPast: (ms: number) => Promise<void>;
    logger: Logger;
  },
  ms: number,
): Promise<void> {
  o.shard.stopAdmitting();
  await o.shard.recallAll(ms);
  await o.registry.stopRefreshing();
  try {
    const endedAt = await registryNow(o.pool);
    await o.recordedPast(ms);
    // A lease not back may still be used until it expires: nothing exact to hand over.
    if (o.book.leasesOut > 0) throw new Error(`${o.book.leasesOut} leases are not back`);
    const holds = o.book.heldRequests();
    await writeHandover(o.pool, o.registry.runs(), endedAt, holds);
    o.logger.info({ holds: holds.length }, 'handed over: accounts moving elsewhere move now');
  } catch (err) {
    o.logger.warn(
      { err: (err as Error).message },
      'no hand-over: accounts moving elsewhere move a hold TTL after this run ends',
    );
  }
}
