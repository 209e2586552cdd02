import type { Pool } from '@mdp/db';
import { shardOf } from '@mdp/usage';
import type { HandedOver, RegistryView, Relief, ShardRun } from './shard-map.ts';

// The shard registry's tables (migrations 0008, 0010, 0011, 0014, 0015): each process's runs, their hand-overs
// and the subjects' horizons, as SQL. The loop that refreshes and reads them is shard-registry.ts.

/**
 * Notified (with the schema's name: channels are per database) when a run begins or ends with a
 * hand-over: every shard then reads the registry at once instead of at its next refresh, so an account
 * moves as soon as it may, not up to a refresh later at each step of a move.
 */
export const RUNS_CHANNEL = 'ledger_shard_runs';
/**
 * The newest ledger migration this code was written against, kept on each of its runs (`code_level`,
 * migration 0015) so that a migration that removes what an earlier release uses can refuse while a
 * ledger of that release is running. The newest migration's number (checked by a test).
 */
export const CODE_LEVEL = '0017';
/** Taken by every refresh, for its transaction: refreshes one at a time, each run beginning in order. */
export const REGISTRY_LOCK = `pg_advisory_xact_lock(hashtext(current_schema() || ':ledger-shard-runs'))`;
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
    // Each run's holds replace its earlier hand-over's (a separate statement: a CTE's insert could meet
    // the rows its sibling deletes), then are written with its end; the horizon with the notice. Each
    // statement a round trip, which a loaded stop waits for while its accounts have no admitter.
    await client.query('BEGIN');
    for (const r of runs.own) {
      const mine = holds.filter((h) => shardOf(h.accountId, r.count) === r.shard);
      await client.query('DELETE FROM ledger_handover_holds WHERE shard_count = $1 AND shard = $2', [
        r.count,
        r.shard,
      ]);
      await client.query(
        `WITH held AS (
           INSERT INTO ledger_handover_holds (shard_count, shard, account_id, request_id, admitted_at, interface)
           SELECT $1, $2, a, r, ${at('t')}, v FROM unnest($3::text[], $4::text[], $5::float8[], $6::text[]) AS x(a, r, t, v))
         UPDATE ledger_shard_runs SET ended_at = ${at('$7')} WHERE shard_count = $1 AND shard = $2`,
        [r.count, r.shard, ...columns(mine), endedAt],
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
        `WITH held AS (
           INSERT INTO ledger_relief_holds (shard_count, shard, subject, account_id, request_id, admitted_at, interface)
           SELECT $1, $2, $3, a, r, ${at('t')}, v FROM unnest($4::text[], $5::text[], $6::float8[], $7::text[]) AS x(a, r, t, v))
         UPDATE ledger_shard_reliefs SET ended_at = ${at('$8')} WHERE shard_count = $1 AND shard = $2 AND subject = $3`,
        [...key, ...columns(mine), endedAt],
      );
    }
    await client.query(
      `WITH horizon AS (
         INSERT INTO ledger_subject_horizons AS h (subject, recorded_through) VALUES ($1, ${at('$2')})
         ON CONFLICT (subject) DO UPDATE SET recorded_through = greatest(h.recorded_through, EXCLUDED.recorded_through))
       SELECT pg_notify($3, current_schema())`,
      [subject, endedAt, RUNS_CHANNEL],
    );
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

const runJson = (subject: string, standIn: string, admitting: string) =>
  `json_build_object('count', shard_count, 'shard', shard, 'subject', ${subject},
     'activeSince', extract(epoch FROM active_since) * 1000, 'lastSeen', extract(epoch FROM last_seen) * 1000,
     'endedAt', extract(epoch FROM ended_at) * 1000, 'standIn', ${standIn}, 'admitting', ${admitting})`;
/** Every run of the last day and every subject's horizon, on the registry's clock: what a map is made of. */
const READ_VIEW = `
SELECT extract(epoch FROM clock_timestamp()) * 1000 AS now,
       (SELECT json_agg(run) FROM (
          SELECT ${runJson('shard', 'stand_in', 'admitting')} AS run FROM ledger_shard_runs WHERE last_seen > now() - interval '1 day'
          UNION ALL
          SELECT ${runJson('subject', 'false', 'true')} FROM ledger_shard_reliefs WHERE last_seen > now() - interval '1 day') x) AS runs,
       (SELECT json_agg(json_build_array(subject, extract(epoch FROM recorded_through) * 1000))
          FROM ledger_subject_horizons) AS horizons`;
interface ViewRow {
  now: number;
  runs: ShardRun[] | null;
  horizons: [number, number][] | null;
}
const viewOf = (r: ViewRow): RegistryView => ({
  now: Number(r.now),
  runs: r.runs ?? [],
  horizons: new Map(r.horizons ?? []),
});

/**
 * The registry as refreshes have committed it, read in one statement without refreshing this process's
 * runs or taking the registry's lock. The lock orders runs that begin; a read begins none, and what it
 * could miss (a run beginning now) begins later than every run it sees, so never takes their accounts.
 * Enough for a map that begins no run of this process (a hand-over told by its notice); a run this
 * process begins is registered by a refresh, under the lock, which reads the registry again.
 */
export async function readView(pool: Pool): Promise<RegistryView> {
  const { rows } = await pool.query<ViewRow>(READ_VIEW);
  return viewOf(rows[0]!);
}

/**
 * Refreshes this process's runs (its own, its stand-in's, its reliefs') and its subjects' horizons, then
 * reads every run of the last day; with `housekeep`, first deletes the rows of runs not seen for a day
 * (they are read by no map: a refresh reads the last day's only).
 */
export async function refresh(
  pool: Pool,
  me: { shard: number; count: number; holder: string },
  runs: { standIn: number | null; reliefs: readonly Relief[]; admitting: boolean; announce: boolean },
  horizons: ReadonlyMap<number, number>,
  liveMs: number,
  housekeep = true,
): Promise<RegistryView> {
  const { standIn, reliefs } = runs;
  const counts = standIn === null ? [me.count] : [me.count, standIn];
  // A run begins again once it has handed over, or after it lapsed in another process (a restart). One
  // that lapsed in this process (its refreshes failed or were slow) has admitted all along on its last
  // map: begun again, it would be later than a run waiting for its accounts, which would then take them at
  // once, before its holds expire or its charges are recorded.
  const since = (r: string) =>
    `CASE WHEN ${r}.ended_at IS NOT NULL
            OR (${r}.last_seen < now() - $4 * interval '1 millisecond' AND ${r}.holder <> $3)
          THEN $9::timestamptz ELSE ${r}.active_since END`;
  const client = await pool.connect();
  try {
    // Refreshes one at a time, each run that begins at the time it takes the lock: of two runs that begin
    // together, the later reads the earlier (and waits for it), and the earlier began first.
    await client.query('BEGIN');
    const { rows: locked } = await client.query<{ ts: string }>(
      `SELECT ${REGISTRY_LOCK}, clock_timestamp()::text AS ts,
              set_config('mdp.ledger_code_level', $1, true)`,
      [CODE_LEVEL],
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
         RETURNING active_since = $9 AS began),
       horizon AS (
         INSERT INTO ledger_subject_horizons AS h (subject, recorded_through)
         SELECT s, timestamptz 'epoch' + t * interval '1 millisecond' FROM unnest($12::int[], $13::float8[]) AS x(s, t)
         ON CONFLICT (subject) DO UPDATE SET recorded_through = greatest(h.recorded_through, EXCLUDED.recorded_through))
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
        [...horizons.keys()],
        [...horizons.values()],
      ],
    );
    if (housekeep) {
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
    }
    const { rows } = await client.query<ViewRow>(READ_VIEW);
    await client.query('COMMIT');
    return viewOf(rows[0]!);
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}
