import { addDays, DAY_MS, istDateStart, istDay } from '@mdp/nse-calendar';

/**
 * What the usage log's upkeep should do at a moment, decided from the days it holds (pure; the clock
 * is a parameter). The rules, in the words of docs/operators.md:
 * - partitions exist from yesterday to `aheadDays` after today (an event is never refused for want of
 *   one; if one is missing all the same, the recorder makes it and an alert fires);
 * - a day is sealed once it can receive no more events: `sealGraceMs` after it ended (longer than a
 *   gateway retries a refund or void, plus a hold's TTL), and only when every shard's consumer has
 *   recorded all that the stream held by then (the runner checks that; the plan only lists candidates);
 * - a day older than the last `retentionDays` IST days (today included) is archived, read back and
 *   checked against its seal, and only then dropped. An unsealed day is never archived or dropped.
 */

export interface UpkeepSettings {
  retentionDays: number;
  aheadDays: number;
  sealGraceMs: number;
}

/** A day the log holds or has held, as usage_seals and the partitions say. */
export interface DayState {
  day: string;
  /** Its partition exists. */
  partition: boolean;
  sealed: boolean;
  archived: boolean;
  dropped: boolean;
}

export interface UpkeepPlan {
  /** Days whose partition must exist (made when missing). */
  ensure: string[];
  /** Closed days past the grace, not sealed yet, oldest first. */
  seal: string[];
  /** Sealed days past retention, not archived yet. */
  archive: string[];
  /** Archived days past retention whose partition is still there. */
  drop: string[];
  /** The oldest day kept in Postgres: days before it are past retention. */
  firstRetainedDay: string;
}

/** When the IST day `day` ends (the next midnight IST), epoch ms. */
export const dayEndMs = (day: string) => istDateStart(day) + DAY_MS;

export function upkeepPlan(now: number, days: readonly DayState[], s: UpkeepSettings): UpkeepPlan {
  const today = istDay(now);
  const firstRetainedDay = addDays(today, -(s.retentionDays - 1));
  const ensure = Array.from({ length: s.aheadDays + 2 }, (_, i) => addDays(today, i - 1));
  const sorted = [...days].sort((a, b) => (a.day < b.day ? -1 : 1));
  return {
    ensure,
    seal: sorted
      .filter((d) => d.partition && !d.sealed && dayEndMs(d.day) + s.sealGraceMs <= now)
      .map((d) => d.day),
    archive: sorted.filter((d) => d.sealed && !d.archived && d.day < firstRetainedDay).map((d) => d.day),
    drop: sorted.filter((d) => d.archived && d.partition && d.day < firstRetainedDay).map((d) => d.day),
    firstRetainedDay,
  };
}

/** Figures for the gauges, from the days as they are after a run. */
export function upkeepLags(
  now: number,
  days: readonly DayState[],
  s: UpkeepSettings,
): { aheadDays: number; sealLagDays: number; archiveLagDays: number } {
  const today = istDay(now);
  const held = new Set(days.filter((d) => d.partition).map((d) => d.day));
  let aheadDays = 0;
  while (held.has(addDays(today, aheadDays + 1))) aheadDays++;
  const firstRetainedDay = addDays(today, -(s.retentionDays - 1));
  return {
    aheadDays,
    sealLagDays: days.filter((d) => d.partition && !d.sealed && dayEndMs(d.day) + s.sealGraceMs <= now)
      .length,
    archiveLagDays: days.filter((d) => d.partition && d.day < firstRetainedDay).length,
  };
}
