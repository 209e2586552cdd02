import type { Pool } from '@mdp/db';
import type { Clock } from '@mdp/nse-calendar';
import { createLogger, createRegistry, trace } from '@mdp/telemetry';
import { AccountBook, noUnits } from '../src/admission/account-book.ts';
import { LeaseMetrics } from '../src/admission/lease-metrics.ts';
import type { ShardDeps } from '../src/admission/shard.ts';
import { Mutex } from '../src/mutex.ts';
import { ProjectionStore } from '../src/settlement/projections.ts';

/** Projections with nothing recorded in them, for a unit test's shard. */
export function nothingRecorded(): ProjectionStore {
  return {
    charged: async (ids: string[]) => new Map(ids.map((id) => [id, { day: noUnits(), month: noUnits() }])),
    accountAdmittedSince: async () => [],
    settled: async () => new Set<string>(),
  } as unknown as ProjectionStore;
}

/**
 * What a shard of a test's own needs over `pool`'s schema (none: `nothingRecorded`): caught up, owning
 * every account (none moved here), no leases, nothing to wait for in the stream; `o` overrides any of it.
 */
export function shardDeps(pool: Pool | null, clock: Clock, o: Partial<ShardDeps> = {}): ShardDeps {
  const registry = o.registry ?? createRegistry('shard');
  return {
    book: new AccountBook(30_000, () => 0),
    store: pool === null ? nothingRecorded() : new ProjectionStore(pool),
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
