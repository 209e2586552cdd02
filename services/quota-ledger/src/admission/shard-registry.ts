import { type Listener, listen, type Pool } from '@mdp/db';
import { Gauge, type Logger, type Registry } from '@mdp/telemetry';
import { shardOf } from '@mdp/usage';
import {
  type HandedOver,
  nextReliefs,
  nextStandIn,
  type Ownership,
  type RegistryView,
  type Relief,
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
/** How long an ending relief waits for its subject to be recorded before it hands over (else it lapses). */
const RELIEF_HANDOVER_MS = 5_000;

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
  /** The runs this process refreshes now (a stopping shard's hand-over ends them). */
  runs(): ProcessRuns;
  /** This process admits from now (its consumer has caught up): told at once, a relief of it then ends. */
  admitting(): void;
  /** Stops refreshing this shard's runs (a hand-over then ends them: `writeHandover`). */
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

/** This process's runs: under its own index (its count, and a stand-in), and its reliefs of other indices. */
export interface ProcessRuns {
  subject: number;
  own: readonly { count: number; shard: number }[];
  reliefs: readonly Relief[];
}

/**
 * Ends `runs` with a hand-over at `endedAt` (registry time): the requests the process still holds of each
 * run's accounts, and its subject recorded through then. One transaction: a new owner sees all of it or
 * none (then waits a hold TTL, as after a kill).
 */
export async function writeHandover(
  pool: Pool,
  runs: ProcessRuns,
  endedAt: number,
  holds: readonly HandoverHold[],
): Promise<void> {
  const { subject } = runs;
  const at = (p: string) => `timestamptz 'epoch' + ${p}::float8 * interval '1 millisecond'`;
  const columns = (of: readonly HandoverHold[]) => [
    of.map((h) => h.accountId),
    of.map((h) => h.requestId),
    of.map((h) => h.admittedAt),
    of.map((h) => h.via),
  ];
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    for (const r of runs.own) {
      const mine = holds.filter((h) => shardOf(h.accountId, r.count) === r.shard);
      await client.query('DELETE FROM ledger_handover_holds WHERE shard_count = $1 AND shard = $2', [
        r.count,
        r.shard,
      ]);
      await client.query(
        `INSERT INTO ledger_handover_holds (shard_count, shard, account_id, request_id, admitted_at, interface)
         SELECT $1, $2, a, r, ${at('t')}, v FROM unnest($3::text[], $4::text[], $5::float8[], $6::text[]) AS x(a, r, t, v)`,
        [r.count, r.shard, ...columns(mine)],
      );
      await client.query(
        `UPDATE ledger_shard_runs SET ended_at = ${at('$3')} WHERE shard_count = $1 AND shard = $2`,
        [r.count, r.shard, endedAt],
      );
    }
    for (const r of runs.reliefs) {
      const mine = holds.filter((h) => shardOf(h.accountId, r.count) === r.shard);
      const key = [r.count, r.shard, subject];
      await client.query(
        'DELETE FROM ledger_relief_holds WHERE shard_count = $1 AND shard = $2 AND subject = $3',
        key,
      );
      await client.query(
        `INSERT INTO ledger_relief_holds (shard_count, shard, subject, account_id, request_id, admitted_at, interface)
         SELECT $1, $2, $3, a, r, ${at('t')}, v FROM unnest($4::text[], $5::text[], $6::float8[], $7::text[]) AS x(a, r, t, v)`,
        [...key, ...columns(mine)],
      );
      await client.query(
        `UPDATE ledger_shard_reliefs SET ended_at = ${at('$4')} WHERE shard_count = $1 AND shard = $2 AND subject = $3`,
        [...key, endedAt],
      );
    }
    await client.query(
      `INSERT INTO ledger_subject_horizons AS h (subject, recorded_through) VALUES ($1, ${at('$2')})
       ON CONFLICT (subject) DO UPDATE SET recorded_through = greatest(h.recorded_through, EXCLUDED.recorded_through)`,
      [subject, endedAt],
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

/** The requests the hand-overs of `from` recorded for an account, each with the run it came from. */
export async function handoverHolds(
  pool: Pool,
  accountId: string,
  from: readonly HandedOver[],
): Promise<(HandoverHold & { from: HandedOver })[]> {
  if (from.length === 0) return [];
  const { rows } = await pool.query<{
    shard_count: number;
    shard: number;
    subject: number;
    request_id: string;
    at_ms: number;
    interface: string;
  }>(
    `WITH f AS (SELECT * FROM unnest($2::int[], $3::int[], $4::int[]) AS f(c, s, sub))
     SELECT h.shard_count, h.shard, h.shard AS subject, h.request_id,
            extract(epoch FROM h.admitted_at) * 1000 AS at_ms, h.interface
       FROM ledger_handover_holds h JOIN f ON f.c = h.shard_count AND f.s = h.shard AND f.sub = h.shard
      WHERE h.account_id = $1
     UNION ALL
     SELECT h.shard_count, h.shard, h.subject, h.request_id, extract(epoch FROM h.admitted_at) * 1000, h.interface
       FROM ledger_relief_holds h JOIN f ON f.c = h.shard_count AND f.s = h.shard AND f.sub = h.subject
      WHERE h.account_id = $1`,
    [accountId, from.map((f) => f.count), from.map((f) => f.shard), from.map((f) => f.subject)],
  );
  return rows.map((r) => ({
    accountId,
    requestId: r.request_id,
    admittedAt: Number(r.at_ms),
    via: r.interface,
    from: { count: r.shard_count, shard: r.shard, subject: r.subject },
  }));
}

/**
 * Refreshes this process's runs (its own, its stand-in's, its reliefs') and its subjects' horizons, then
 * reads every run of the last day.
 */
async function refresh(
  pool: Pool,
  me: { shard: number; count: number; holder: string },
  runs: { standIn: number | null; reliefs: readonly Relief[]; admitting: boolean; announce: boolean },
  horizons: ReadonlyMap<number, number>,
  liveMs: number,
): Promise<RegistryView> {
  const { standIn, reliefs } = runs;
  const counts = standIn === null ? [me.count] : [me.count, standIn];
  // A run that begins again after it lapsed or handed over.
  const since = (r: string) =>
    `CASE WHEN ${r}.last_seen < now() - $4 * interval '1 millisecond' OR ${r}.ended_at IS NOT NULL
          THEN $9::timestamptz ELSE ${r}.active_since END`;
  const client = await pool.connect();
  try {
    // Refreshes one at a time, each run that begins at the time it takes the lock: of two runs that begin
    // together, the later reads the earlier (and waits for it), and the earlier began first.
    await client.query('BEGIN');
    const { rows: locked } = await client.query<{ ts: string }>(
      `SELECT pg_advisory_xact_lock(hashtext(current_schema() || ':ledger-shard-runs')), clock_timestamp()::text AS ts`,
    );
    // A run that begins (new, lapsed or handed over before) tells the other shards at once.
    await client.query(
      `WITH up AS (
         INSERT INTO ledger_shard_runs AS r (shard_count, shard, holder, active_since, last_seen, stand_in, admitting)
         SELECT c, $2, $3, $9, now(), c <> $1, $10 FROM unnest($5::int[]) AS x(c)
         ON CONFLICT (shard_count, shard) DO UPDATE
            SET active_since = ${since('r')}, last_seen = now(), holder = EXCLUDED.holder, ended_at = NULL,
                stand_in = EXCLUDED.stand_in, admitting = EXCLUDED.admitting
         RETURNING active_since = $9 AS began),
       relieved AS (
         INSERT INTO ledger_shard_reliefs AS r (shard_count, shard, subject, holder, active_since, last_seen)
         SELECT c, s, $2, $3, $9, now() FROM unnest($7::int[], $8::int[]) AS x(c, s)
         ON CONFLICT (shard_count, shard, subject) DO UPDATE
            SET active_since = ${since('r')}, last_seen = now(), holder = EXCLUDED.holder, ended_at = NULL
         RETURNING active_since = $9 AS began)
       SELECT pg_notify($6, current_schema())
         FROM (SELECT began FROM up UNION ALL SELECT began FROM relieved UNION ALL SELECT $11::boolean) b WHERE began LIMIT 1`,
      [
        me.count,
        me.shard,
        me.holder,
        liveMs,
        counts,
        RUNS_CHANNEL,
        reliefs.map((r) => r.count),
        reliefs.map((r) => r.shard),
        locked[0]!.ts,
        runs.admitting,
        runs.announce,
      ],
    );
    await client.query(`DELETE FROM ledger_shard_runs WHERE last_seen < now() - interval '1 day'`);
    await client.query(`DELETE FROM ledger_shard_reliefs WHERE last_seen < now() - interval '1 day'`);
    await client.query(
      `DELETE FROM ledger_handover_holds h WHERE NOT EXISTS (SELECT 1 FROM ledger_shard_runs r
         WHERE r.shard_count = h.shard_count AND r.shard = h.shard)`,
    );
    await client.query(
      `DELETE FROM ledger_relief_holds h WHERE NOT EXISTS (SELECT 1 FROM ledger_shard_reliefs r
         WHERE r.shard_count = h.shard_count AND r.shard = h.shard AND r.subject = h.subject)`,
    );
    if (horizons.size > 0)
      await client.query(
        `INSERT INTO ledger_subject_horizons AS h (subject, recorded_through)
         SELECT s, timestamptz 'epoch' + t * interval '1 millisecond' FROM unnest($1::int[], $2::float8[]) AS x(s, t)
         ON CONFLICT (subject) DO UPDATE SET recorded_through = greatest(h.recorded_through, EXCLUDED.recorded_through)`,
        [[...horizons.keys()], [...horizons.values()]],
      );
    const run = (subject: string, standIn: string, admitting: string) =>
      `json_build_object('count', shard_count, 'shard', shard, 'subject', ${subject},
         'activeSince', extract(epoch FROM active_since) * 1000, 'lastSeen', extract(epoch FROM last_seen) * 1000,
         'endedAt', extract(epoch FROM ended_at) * 1000, 'standIn', ${standIn}, 'admitting', ${admitting})`;
    const { rows } = await client.query<{
      now: number;
      runs: ShardRun[] | null;
      horizons: [number, number][] | null;
    }>(
      `SELECT extract(epoch FROM clock_timestamp()) * 1000 AS now,
              (SELECT json_agg(run) FROM (
                 SELECT ${run('shard', 'stand_in', 'admitting')} AS run FROM ledger_shard_runs WHERE last_seen > now() - interval '1 day'
                 UNION ALL
                 SELECT ${run('subject', 'false', 'true')} FROM ledger_shard_reliefs WHERE last_seen > now() - interval '1 day') x) AS runs,
              (SELECT json_agg(json_build_array(subject, extract(epoch FROM recorded_through) * 1000))
                 FROM ledger_subject_horizons) AS horizons`,
    );
    await client.query('COMMIT');
    const r = rows[0]!;
    return { now: Number(r.now), runs: r.runs ?? [], horizons: new Map(r.horizons ?? []) };
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
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
  /** Every request this process holds (an ending relief hands over those of its accounts). */
  heldRequests: () => HandoverHold[];
  /** Resolves once everything its own subject held when called is recorded (or rejects after `ms`). */
  recordedPast: (ms: number) => Promise<void>;
  /** How often the registry is refreshed and read (default 1 s). */
  intervalMs?: number;
  /** Where to LISTEN for runs that begin or hand over (`RUNS_CHANNEL`); without it, refreshes only. */
  notices?: { url: string; schema: string };
  logger: Logger;
  registry: Registry;
}): ShardRegistry {
  const settings = { liveMs: REGISTRY_LIVE_MS, holdTtlMs: o.holdTtlMs, skewMs: REGISTRY_SKEW_MS };
  const me = { shard: o.shard, count: o.count };
  let current: ShardMap | null = null;
  let stand: StandInState = { standIn: null, ended: false };
  let reliefs: Relief[] = [];
  /** Whether this process admits yet (`admitting()`), and whether the registry has been told. */
  let admitting = false;
  let told = false;
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
  const relieving = new Gauge({
    name: 'ledger_reliefs',
    help: "Other shards' indices this shard admits while their processes restart (reliefs)",
    registers: [o.registry],
  });
  const runs = (): ProcessRuns => ({
    subject: o.shard,
    own: stand.standIn === null ? [me] : [me, { count: stand.standIn, shard: o.shard }],
    reliefs,
  });
  const runsNow = (announce: boolean) => ({ standIn: stand.standIn, reliefs, admitting, announce });
  const mapOf = (view: RegistryView) => new ShardMap(me, view, settings, stand.standIn, reliefs);
  /** Hand-overs of ended reliefs still being written: a stop waits for them. */
  let ending: Promise<void> = Promise.resolve();
  /** Ends reliefs this process no longer admits (the map without them is in use already). */
  const endReliefs = async (ended: readonly Relief[]) => {
    try {
      const endedAt = await registryNow(o.pool);
      await o.recordedPast(RELIEF_HANDOVER_MS);
      await writeHandover(o.pool, { subject: o.shard, own: [], reliefs: ended }, endedAt, o.heldRequests());
      o.logger.info({ reliefs: ended }, 'relief over (its shard runs again): handed over');
    } catch (err) {
      o.logger.warn(
        { err: (err as Error).message, reliefs: ended },
        'relief over without a hand-over: its accounts move a hold TTL after it lapses',
      );
    }
  };
  const tick = async () => {
    try {
      const announce = admitting && !told;
      let view = await refresh(o.pool, o, runsNow(announce), o.horizons(), settings.liveMs);
      told ||= announce;
      let map = mapOf(view);
      let register = false;
      const next = nextStandIn(map, stand);
      if (next !== stand) {
        const was = stand.standIn;
        stand = next;
        if (was !== null)
          // Not refreshed again, its run lapses: the runs that take its accounts wait out its holds.
          o.logger.warn(
            { standIn: { shard: o.shard, count: was } },
            'the newer shard count has no runs left (rolled back): no longer standing in; what it admitted moves back a hold TTL from now',
          );
        else {
          o.logger.info(
            { standIn: { shard: o.shard, count: stand.standIn } },
            'the shard count is changing: standing in for this index under the newer count',
          );
          register = true;
        }
        map = mapOf(view);
      }
      const relief = nextReliefs(map, reliefs);
      const begun = relief.held.filter((r) => !reliefs.includes(r));
      if (relief.ended.length > 0 || begun.length > 0) {
        reliefs = relief.held;
        map = mapOf(view);
        if (relief.ended.length > 0) {
          // Not admitted from here on, before the hand-over's end is taken.
          current = map;
          const ended = relief.ended;
          ending = ending.then(() => endReliefs(ended));
        }
        if (begun.length > 0) {
          o.logger.info({ reliefs: begun }, 'relieving a shard that handed over while its process restarts');
          register = true;
        }
      }
      // Registered at once: an account handed over to this index under that count is admitted now.
      if (register) {
        view = await refresh(o.pool, o, runsNow(false), o.horizons(), settings.liveMs);
        map = mapOf(view);
      }
      current = map;
      relieving.set(reliefs.length);
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
    await ending;
  };
  return {
    map: () => current,
    ownership: (accountId) =>
      current?.ownership(accountId) ??
      (shardOf(accountId, o.count) === o.shard
        ? { kind: 'handoff', why: 'the shard registry is not read yet' }
        : { kind: 'not_owner' }),
    ready,
    runs,
    admitting: () => {
      admitting = true;
      readSoon();
    },
    stopRefreshing: stop,
    close: stop,
  };
}
