import type { Pool } from '@mdp/db';
import type { Clock } from '@mdp/nse-calendar';
import { createLogger, createRegistry, trace } from '@mdp/telemetry';
import { AccountBook } from '../src/admission/account-book.ts';
import { LeaseMetrics } from '../src/admission/lease-metrics.ts';
import type { ShardDeps } from '../src/admission/shard.ts';
import { Mutex } from '../src/mutex.ts';
import { ProjectionStore } from '../src/settlement/projections.ts';

/**
 * What a shard of a test's own needs over `pool`'s schema: caught up, owning every account (none moved
 * here), no leases, nothing to wait for in the stream; `o` overrides any of it.
 */
export function shardDeps(pool: Pool, clock: Clock, o: Partial<ShardDeps> = {}): ShardDeps {
  const registry = o.registry ?? createRegistry('shard');
  return {
    book: new AccountBook(30_000),
    store: new ProjectionStore(pool),
    mutex: new Mutex(),
    clock,
    logger: createLogger('test', 'silent'),
    tracer: trace.getTracer('t'),
    registry,
    caughtUp: () => true,
    ownership: () => ({ kind: 'owner', moved: false }),
    leaseMs: 0,
    leaseMetrics: new LeaseMetrics(registry, () => 0),
    recordedPast: async () => {},
    recordedTo: async () => {},
    handoverHolds: async () => [],
    ...o,
  };
}
