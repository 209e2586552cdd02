import { Counter, type Logger, type Registry } from '@mdp/telemetry';
import type { Subjects } from '../settlement/subjects.ts';
import type { AccountBook } from './account-book.ts';
import type { LeaseMetrics } from './lease-metrics.ts';
import type { ShardRegistry } from './shard-registry.ts';

/**
 * A batch still not recorded after this long means Postgres is away or not answering (a batch takes
 * milliseconds): logged, as hold expiry waits for the backlog to be recorded (see `AccountBook.sweep`).
 */
const RECORDING_STALL_MS = 1_000;
/** How often the retired subjects this shard inherits are looked for (a JetStream consumer listing). */
const ADOPT_EVERY_MS = 5_000;

/**
 * Each second: how far each subject is recorded (for the registry, and hold expiry: `AccountBook.sweep`),
 * the holds that never settled, and every few seconds the retired subjects this shard inherits. One tick
 * at a time: a tick still running when the next is due lets it pass.
 */
export function startTick(o: {
  subjects: Subjects;
  shardRegistry: ShardRegistry;
  book: AccountBook;
  leaseMetrics: LeaseMetrics;
  clock: () => number;
  logger: Logger;
  registry: Registry;
}): { stop(): void } {
  const expired = new Counter({
    name: 'ledger_holds_expired_total',
    help: 'Admitted requests that never settled and were released after HOLD_TTL_MS',
    registers: [o.registry],
  });
  let stalledLogged = false;
  /** Says once when recording stalls, and once when it resumes. */
  const watchRecording = (now: number) => {
    const since = o.subjects.own.recordingSince();
    const stalledSince = since !== null && now - since > RECORDING_STALL_MS ? since : null;
    if ((stalledSince !== null) === stalledLogged) return;
    stalledLogged = stalledSince !== null;
    if (stalledSince !== null)
      o.logger.warn(
        { seconds: Math.round((now - stalledSince) / 1000) },
        'settlements cannot be recorded; holds are kept until they can',
      );
    else o.logger.info('settlements are recorded again; holds expire as the backlog is recorded');
  };
  let adoptedAt = 0;
  const tick = async () => {
    const through = await o.subjects.measure();
    const now = o.clock();
    watchRecording(now);
    const horizons = o.subjects.horizons();
    const map = o.shardRegistry.map();
    const swept = o.book.sweep(now, {
      recordedThrough: through,
      subjectRecordedThrough: (subject) =>
        Math.max(horizons.get(subject) ?? 0, map?.recordedThrough(subject) ?? 0),
    });
    o.leaseMetrics.writtenOff(swept.leasesWrittenOff, swept.stranded);
    if (swept.expired > 0) {
      expired.inc(swept.expired);
      o.logger.warn({ expired: swept.expired }, 'released holds of requests that never settled');
    }
    if (map && now - adoptedAt >= ADOPT_EVERY_MS) {
      adoptedAt = now;
      await o.subjects.adopt(map.inherited(await o.subjects.known()));
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
  return { stop: () => clearInterval(ticker) };
}
