import { type Listener, listen, type Pool } from '@mdp/db';
import { Gauge, type Logger, type Registry } from '@mdp/telemetry';
import { shardOf } from '@mdp/usage';
import {
  nextStandIn,
  type Ownership,
  type RegistryView,
  ShardMap,
  type ShardRun,
  type StandInState,
} from './shard-map.ts';

/** A run of the shard registry not refreshed for this long has ended (5 refreshes missed). */
const REGISTRY_LIVE_MS = 5_000;
/** Allowance for the clocks of Postgres, JetStream and the ledgers when a move waits for a horizon. */
const REGISTRY_SKEW_MS = 1_000;
/**
 * Notified (with the schema's name: channels are per database) when a run begins or ends with a
 * hand-over: every shard then reads the registry at once instead of at its next refresh, so an account
 * moves as soon as it may, not up to a refresh later at each step of a move.
 */
const RUNS_CHANNEL = 'ledger_shard_runs';

export interface ShardRegistry {
  /** The map as last read (null before the first read). */
  map(): ShardMap | null;
  /**
   * Whether this shard may admit the account now, as the map says (`ShardMap.ownership`); before the
   * map is read, an account of its own is not admitted yet and any other is not its.
   */
  ownership(accountId: string): Ownership;
  /** Resolves once the registry has been read (this shard's run recorded) for the first time. */
  ready: Promise<void>;
  /** Stops refreshing this shard's run (a hand-over then ends it: `writeHandover`). */
  stopRefreshing(): Promise<void>;
  close(): Promise<void>;
}

/** A request a stopping shard still held, as its hand-over records it. */
export interface HandoverHold {
  accountId: string;
  requestId: string;
  admittedAt: number;
  via: string;
}

/** The registry's clock, ms: a hand-over's end is on it, as every run's times are. */
export async function registryNow(pool: Pool): Promise<number> {
  const { rows } = await pool.query<{ now: number }>(`SELECT extract(epoch FROM now()) * 1000 AS now`);
  return Number(rows[0]!.now);
}

/**
 * Ends this shard's run with a hand-over at `endedAt` (registry time): the requests it still holds, and
 * its subject recorded through then. One transaction: a new owner sees all of it or none (then waits a
 * hold TTL, as after a kill).
 */
export async function writeHandover(
  pool: Pool,
  me: { shard: number; count: number },
  endedAt: number,
  holds: readonly HandoverHold[],
): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('DELETE FROM ledger_handover_holds WHERE shard_count = $1 AND shard = $2', [
      me.count,
      me.shard,
    ]);
    if (holds.length > 0)
      await client.query(
        `INSERT INTO ledger_handover_holds (shard_count, shard, account_id, request_id, admitted_at, interface)
         SELECT $1, $2, a, r, timestamptz 'epoch' + t * interval '1 millisecond', v
           FROM unnest($3::text[], $4::text[], $5::float8[], $6::text[]) AS x(a, r, t, v)`,
        [
          me.count,
          me.shard,
          holds.map((h) => h.accountId),
          holds.map((h) => h.requestId),
          holds.map((h) => h.admittedAt),
          holds.map((h) => h.via),
        ],
      );
    const at = `timestamptz 'epoch' + $3::float8 * interval '1 millisecond'`;
    await client.query(
      `UPDATE ledger_shard_runs SET ended_at = ${at} WHERE shard_count = $1 AND shard = $2`,
      [me.count, me.shard, endedAt],
    );
    await client.query(
      `INSERT INTO ledger_subject_horizons AS h (subject, recorded_through) VALUES ($1, ${at.replace('$3', '$2')})
       ON CONFLICT (subject) DO UPDATE SET recorded_through = greatest(h.recorded_through, EXCLUDED.recorded_through)`,
      [me.shard, endedAt],
    );
    await client.query('SELECT pg_notify($1, current_schema())', [RUNS_CHANNEL]);
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}

/** The requests a hand-over of one of `from` recorded for an account. */
export async function handoverHolds(
  pool: Pool,
  accountId: string,
  from: readonly { count: number; shard: number }[],
): Promise<(HandoverHold & { from: number })[]> {
  if (from.length === 0) return [];
  const { rows } = await pool.query<{ shard: number; request_id: string; at_ms: number; interface: string }>(
    `SELECT shard, request_id, extract(epoch FROM admitted_at) * 1000 AS at_ms, interface
       FROM ledger_handover_holds
      WHERE account_id = $1 AND (shard_count, shard) IN (SELECT * FROM unnest($2::int[], $3::int[]))`,
    [accountId, from.map((f) => f.count), from.map((f) => f.shard)],
  );
  return rows.map((r) => ({
    accountId,
    requestId: r.request_id,
    admittedAt: Number(r.at_ms),
    via: r.interface,
    from: r.shard,
  }));
}

/**
 * Refreshes this shard's run (and its stand-in run, if it has one) and its subjects' horizons, then reads
 * every run of the last day.
 */
async function refresh(
  pool: Pool,
  me: { shard: number; count: number; holder: string },
  standIn: number | null,
  horizons: ReadonlyMap<number, number>,
  liveMs: number,
): Promise<RegistryView> {
  const runs = standIn === null ? [me.count] : [me.count, standIn];
  // A run that begins (new, lapsed or handed over before) tells the other shards at once.
  await pool.query(
    `WITH up AS (
       INSERT INTO ledger_shard_runs AS r (shard_count, shard, holder, active_since, last_seen, stand_in)
       SELECT c, $2, $3, now(), now(), c <> $1 FROM unnest($5::int[]) AS x(c)
       ON CONFLICT (shard_count, shard) DO UPDATE
          SET active_since = CASE WHEN r.last_seen < now() - $4 * interval '1 millisecond' OR r.ended_at IS NOT NULL
                                  THEN now() ELSE r.active_since END,
              last_seen = now(), holder = EXCLUDED.holder, ended_at = NULL, stand_in = EXCLUDED.stand_in
       RETURNING active_since = now() AS began)
     SELECT pg_notify($6, current_schema()) FROM up WHERE began LIMIT 1`,
    [me.count, me.shard, me.holder, liveMs, runs, RUNS_CHANNEL],
  );
  await pool.query(`DELETE FROM ledger_shard_runs WHERE last_seen < now() - interval '1 day'`);
  await pool.query(
    `DELETE FROM ledger_handover_holds h WHERE NOT EXISTS (SELECT 1 FROM ledger_shard_runs r
       WHERE r.shard_count = h.shard_count AND r.shard = h.shard)`,
  );
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
                    'activeSince', extract(epoch FROM active_since) * 1000, 'lastSeen', extract(epoch FROM last_seen) * 1000,
                    'endedAt', extract(epoch FROM ended_at) * 1000, 'standIn', stand_in))
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
  holdTtlMs: number;
  /** How far each subject this process consumes is recorded (publish time, ms). */
  horizons: () => ReadonlyMap<number, number>;
  /** How often the registry is refreshed and read (default 1 s). */
  intervalMs?: number;
  /** Where to LISTEN for runs that begin or hand over (`RUNS_CHANNEL`); without it, refreshes only. */
  notices?: { url: string; schema: string };
  logger: Logger;
  registry: Registry;
}): ShardRegistry {
  const settings = { liveMs: REGISTRY_LIVE_MS, holdTtlMs: o.holdTtlMs, skewMs: REGISTRY_SKEW_MS };
  let current: ShardMap | null = null;
  let stand: StandInState = { standIn: null, ended: false };
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
      let view = await refresh(o.pool, o, stand.standIn, o.horizons(), settings.liveMs);
      let map = new ShardMap({ shard: o.shard, count: o.count }, view, settings, stand.standIn);
      const next = nextStandIn(map, stand);
      if (next !== stand) {
        const was = stand.standIn;
        stand = next;
        if (was !== null) {
          o.logger.warn(
            { standIn: { shard: o.shard, count: was } },
            'the newer shard count has no runs left (rolled back): no longer standing in; what it admitted moves back a hold TTL from now',
          );
          // Not refreshed again, its run lapses: the runs that take its accounts wait out its holds.
          map = new ShardMap({ shard: o.shard, count: o.count }, view, settings);
        } else {
          o.logger.info(
            { standIn: { shard: o.shard, count: stand.standIn } },
            'the shard count is changing: standing in for this index under the newer count',
          );
          // Registered at once: an account handed over to this index under that count is admitted now.
          view = await refresh(o.pool, o, stand.standIn, o.horizons(), settings.liveMs);
          map = new ShardMap({ shard: o.shard, count: o.count }, view, settings, stand.standIn);
        }
      }
      current = map;
      counts.set(
        new Set(view.runs.filter((r) => r.lastSeen > view.now - settings.liveMs).map((r) => r.count)).size,
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
  // One read at a time; a notice while one is queued asks for nothing more.
  let queued = false;
  const readSoon = () => {
    if (queued || stopped) return;
    queued = true;
    running = running.then(() => {
      queued = false;
      return stopped ? undefined : tick();
    });
  };
  const timer = setInterval(readSoon, o.intervalMs ?? 1_000);
  const notices = o.notices;
  // A notice missed while the connection was down is made up by reading on every (re)connection.
  const listener: Listener | null = notices
    ? listen({
        url: notices.url,
        channel: RUNS_CHANNEL,
        applicationName: 'quota-ledger-registry',
        logger: o.logger,
        onNotify: (schema) => {
          if (schema === notices.schema) readSoon();
        },
        onConnected: readSoon,
      })
    : null;
  const stop = async () => {
    stopped = true;
    clearInterval(timer);
    await listener?.close();
    await running;
  };
  return {
    map: () => current,
    ownership: (accountId) =>
      current?.ownership(accountId) ??
      (shardOf(accountId, o.count) === o.shard
        ? { kind: 'handoff', why: 'the shard registry is not read yet' }
        : { kind: 'not_owner' }),
    ready,
    stopRefreshing: stop,
    close: stop,
  };
}
