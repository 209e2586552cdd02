import type { Pool } from '@mdp/db';
import { Gauge, type Logger, type Registry } from '@mdp/telemetry';
import { type RegistryView, ShardMap, type ShardMapSettings, type ShardRun } from './domain/shard-map.ts';

export interface ShardRegistry {
  /** The map as last read (null before the first read). */
  map(): ShardMap | null;
  /** Resolves once the registry has been read (this shard's run recorded) for the first time. */
  ready: Promise<void>;
  close(): Promise<void>;
}

/** Refreshes this shard's run and its subjects' horizons, then reads every run of the last day. */
async function refresh(
  pool: Pool,
  me: { shard: number; count: number; holder: string },
  horizons: ReadonlyMap<number, number>,
  liveMs: number,
): Promise<RegistryView> {
  await pool.query(
    `INSERT INTO ledger_shard_runs AS r (shard_count, shard, holder, active_since, last_seen)
     VALUES ($1, $2, $3, now(), now())
     ON CONFLICT (shard_count, shard) DO UPDATE
        SET active_since = CASE WHEN r.last_seen < now() - $4 * interval '1 millisecond' THEN now() ELSE r.active_since END,
            last_seen = now(), holder = EXCLUDED.holder`,
    [me.count, me.shard, me.holder, liveMs],
  );
  await pool.query(`DELETE FROM ledger_shard_runs WHERE last_seen < now() - interval '1 day'`);
  if (horizons.size > 0)
    await pool.query(
      `INSERT INTO ledger_subject_horizons AS h (subject, recorded_through)
       SELECT s, timestamptz 'epoch' + t * interval '1 millisecond' FROM unnest($1::int[], $2::float8[]) AS x(s, t)
       ON CONFLICT (subject) DO UPDATE SET recorded_through = greatest(h.recorded_through, EXCLUDED.recorded_through)`,
      [[...horizons.keys()], [...horizons.values()]],
    );
  const { rows } = await pool.query<{
    now: number;
    runs: ShardRun[] | null;
    horizons: [number, number][] | null;
  }>(
    `SELECT extract(epoch FROM now()) * 1000 AS now,
            (SELECT json_agg(json_build_object('count', shard_count, 'shard', shard,
                    'activeSince', extract(epoch FROM active_since) * 1000, 'lastSeen', extract(epoch FROM last_seen) * 1000))
               FROM ledger_shard_runs WHERE last_seen > now() - interval '1 day') AS runs,
            (SELECT json_agg(json_build_array(subject, extract(epoch FROM recorded_through) * 1000))
               FROM ledger_subject_horizons) AS horizons`,
  );
  const r = rows[0]!;
  return { now: Number(r.now), runs: r.runs ?? [], horizons: new Map(r.horizons ?? []) };
}

/**
 * This shard's part in the shard registry (migration 0008): its run refreshed every `intervalMs`, and the
 * map other runs make (`ShardMap`) read back each time. A registry that cannot be read keeps the last map:
 * in the steady state (one shard count) it decides nothing but the hash.
 */
export function startShardRegistry(o: {
  pool: Pool;
  shard: number;
  count: number;
  holder: string;
  settings: ShardMapSettings;
  /** How far each subject this process consumes is recorded (publish time, ms). */
  horizons: () => ReadonlyMap<number, number>;
  intervalMs: number;
  logger: Logger;
  registry: Registry;
}): ShardRegistry {
  let current: ShardMap | null = null;
  let stopped = false;
  let failing = false;
  let markReady!: () => void;
  const ready = new Promise<void>((r) => {
    markReady = r;
  });
  const counts = new Gauge({
    name: 'ledger_shard_counts_live',
    help: 'Shard counts with a live run, as this shard last read the registry (more than 1 while the shard count changes)',
    registers: [o.registry],
  });
  const tick = async () => {
    try {
      const view = await refresh(o.pool, o, o.horizons(), o.settings.liveMs);
      current = new ShardMap({ shard: o.shard, count: o.count }, view, o.settings);
      counts.set(
        new Set(view.runs.filter((r) => r.lastSeen > view.now - o.settings.liveMs).map((r) => r.count)).size,
      );
      if (failing) o.logger.info('shard registry read again');
      failing = false;
      markReady();
    } catch (err) {
      if (!failing)
        o.logger.warn({ err: (err as Error).message }, 'shard registry unreadable; keeping the last map');
      failing = true;
    }
  };
  let running: Promise<void> = tick();
  const timer = setInterval(() => {
    running = running.then(() => (stopped ? undefined : tick()));
  }, o.intervalMs);
  return {
    map: () => current,
    ready,
    close: async () => {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
