import { createPool, type Pool } from '@mdp/db';
import { istDay } from '@mdp/nse-calendar';
import type { Logger } from '@mdp/telemetry';
import type { Interface, SettlementEvent } from '@mdp/usage';
import { LRUCache } from 'lru-cache';
import { type ByInterface, type ChargeDelta, noUnits } from '../admission/account-book.ts';
import { type HistoryRows, type HistoryWindow, IST_HOUR_PHASE_MS } from '../log/usage-history.ts';
import { isUuid, logColumns, logRow, logUuid, NO_ACCOUNT, uniqueLogRows } from '../log/usage-log.ts';
import type { StreamPosition, StreamPositions } from './stream-position.ts';

/**
 * One batch as one statement (atomic on its own, one round trip instead of a transaction of six): append
 * the events the log does not have yet, then move the projections by what those events changed. A
 * request counts as charged when it has a `charged` event and no `voided` one; its delta is that count
 * after the batch minus before it. "Before" reads the log as the statement found it (a data-modifying
 * CTE's rows are invisible to the rest of the statement), which is exactly the log without this batch,
 * so the result does not depend on arrival order. The requests' deltas are summed once into cells of
 * (account, IST day, route, interface): the projection's rows (usage_cells, keyed by the log's own
 * numbers, migrations 0015 and 0016; the daily figures are its sums, and a month's the sum of its
 * days), so a batch moves one row per account, day and route in it. The deltas returned (the account
 * book's day and month) are the cells' sums by day and interface, as arrays a column, the account by its
 * number (`record` names it). Each cell gets one net delta: increments upsert, decrements update rows
 * that must exist (a row proposed for insertion is checked against `charged >= 0` before ON CONFLICT
 * could make it an update). Only the shard's consumer writes its accounts' rows, one batch at a time. An
 * event of a day already sealed is not recorded (its figures are the billing record) but counted as
 * `late`; by the sealing rule there is none. The seals are asked once a day the batch holds, not once an
 * event (at 2,000 events a batch that was a fifth of the statement).
 * The batch arrives as one array a column ($1 to $7, see `logColumns`), without duplicates and ordered
 * by request id (right-edge inserts into the index). With a stream position ($8 to $10: the stream, when
 * it was made, the sequence), the same statement moves that stream's recorded position forward (a
 * stream made again starts its position afresh).
 */
const RECORD_BATCH = `
WITH position AS (
  INSERT INTO settlement_stream_positions AS p (stream, stream_created, recorded_through)
  SELECT $8::text, $9::text, $10::bigint WHERE $8::text IS NOT NULL
  ON CONFLICT (stream) DO UPDATE
    SET recorded_through = CASE WHEN p.stream_created = EXCLUDED.stream_created
                                THEN greatest(p.recorded_through, EXCLUDED.recorded_through)
                                ELSE EXCLUDED.recorded_through END,
        stream_created = EXCLUDED.stream_created,
        updated_at = now()
),
input AS (
  SELECT e.request_id, e.account, e.kind, a.admitted_at, (a.admitted_at AT TIME ZONE 'Asia/Kolkata')::date AS day,
         e.route, e.status, e.interface
    FROM unnest($1::uuid[], $2::int[], $3::"char"[], $4::bigint[], $5::smallint[], $6::smallint[], $7::"char"[])
      AS e(request_id, account, kind, at_ms, route, status, interface)
   CROSS JOIN LATERAL (SELECT timestamptz 'epoch' + e.at_ms * interval '1 millisecond' AS admitted_at) AS a
),
sealed AS (
  -- The batch's days already sealed: one look-up a day of the batch, not one an event.
  SELECT s.day FROM usage_seals s WHERE s.day IN (SELECT DISTINCT day FROM input)
),
fresh AS (
  INSERT INTO usage_events (request_id, admitted_at, account, route, status, kind, interface)
  SELECT request_id, admitted_at, account, route, status, kind, interface
    FROM input i
   WHERE i.day NOT IN (SELECT day FROM sealed)
  ON CONFLICT (request_id, account, kind, admitted_at) DO NOTHING
  RETURNING request_id, account, kind, admitted_at, route, interface
),
requests AS (
  SELECT request_id, account, min(admitted_at) AS admitted_at, min(route) AS route, min(interface) AS interface,
         array_agg(kind) AS fresh_kinds
    FROM fresh GROUP BY request_id, account
),
per_request AS (
  SELECT r.account, (r.admitted_at AT TIME ZONE 'Asia/Kolkata')::date AS day, r.route, r.interface,
         usage_charged(b.kinds || r.fresh_kinds)::int - usage_charged(b.kinds)::int AS delta
    FROM requests r
   CROSS JOIN LATERAL (
     -- The account is matched outside the WHERE clause on purpose: a plan made while the log is empty
     -- would otherwise read the account's whole day by the account index for every request.
     SELECT coalesce(array_agg(u.kind) FILTER (WHERE u.account = r.account), '{}') AS kinds
       FROM usage_events u
      WHERE u.request_id = r.request_id AND u.admitted_at = r.admitted_at) AS b
),
cells AS (
  SELECT account, day, route, interface, sum(delta)::int AS delta FROM per_request
   GROUP BY 1, 2, 3, 4 HAVING sum(delta) <> 0
),
daily AS (
  SELECT account, day, interface, sum(delta)::int AS delta FROM cells GROUP BY 1, 2, 3 HAVING sum(delta) <> 0
),
cells_up AS (
  INSERT INTO usage_cells (account, day, route, interface, charged)
  SELECT account, day, route, interface, delta FROM cells WHERE delta > 0
  ON CONFLICT (account, day, route, interface)
  DO UPDATE SET charged = usage_cells.charged + EXCLUDED.charged
),
cells_down AS (
  UPDATE usage_cells t SET charged = t.charged + d.delta FROM cells d
   WHERE d.delta < 0 AND t.account = d.account AND t.day = d.day AND t.route = d.route
     AND t.interface = d.interface
)
SELECT (SELECT count(*) FROM fresh)::int AS recorded,
       (SELECT count(*) FROM input i WHERE i.day IN (SELECT day FROM sealed))::int AS late,
       d.accounts, d.days, d.vias, d.deltas
  FROM (SELECT coalesce(array_agg(account), '{}') AS accounts, coalesce(array_agg(to_char(day, 'YYYY-MM-DD')), '{}') AS days,
               coalesce(array_agg(interface::text), '{}') AS vias, coalesce(array_agg(delta), '{}') AS deltas
          FROM daily) AS d`;

/** See `ProjectionStore.history`. */
const HISTORY = `
WITH account AS (SELECT usage_account($8::uuid) AS n),
charged AS (
  SELECT e.admitted_at
    FROM usage_events e
   WHERE e.account = (SELECT n FROM account) AND e.admitted_at >= $3 AND e.admitted_at < $4
   GROUP BY e.request_id, e.admitted_at
  HAVING usage_charged(array_agg(e.kind))
),
cells AS (
  SELECT c.day, c.route, c.interface, c.charged
    FROM usage_cells c
   WHERE c.account = (SELECT n FROM account) AND c.day BETWEEN least($1::date, $5::date) AND greatest($2::date, $6::date)
)
SELECT
  (SELECT coalesce(json_agg(json_build_object('day', to_char(day, 'YYYY-MM-DD'), 'via', via, 'units', units)),
                   '[]'::json)
     FROM (SELECT day, CASE interface WHEN 'm' THEN 'mcp' ELSE 'rest' END AS via, sum(charged)::int AS units
             FROM cells WHERE day BETWEEN $1::date AND $2::date GROUP BY 1, 2 HAVING sum(charged) > 0) AS d) AS daily,
  (SELECT coalesce(json_agg(json_build_object('hourMs', hour_ms, 'units', n)), '[]'::json)
     FROM (SELECT (floor((extract(epoch FROM admitted_at) * 1000 - $7) / 3600000) * 3600000 + $7)::bigint AS hour_ms, count(*)::int AS n
             FROM charged GROUP BY 1) AS h) AS hourly,
  (SELECT coalesce(json_agg(json_build_object('route', route, 'day', d, 'month', m)), '[]'::json)
     FROM (SELECT r.name AS route, (coalesce(sum(c.charged) FILTER (WHERE c.day = $6::date), 0))::int AS d, sum(c.charged)::int AS m
             FROM cells c JOIN usage_routes r ON r.id = c.route WHERE c.day BETWEEN $5::date AND $6::date
            GROUP BY r.name HAVING sum(c.charged) > 0) AS r) AS routes`;

/**
 * The log's dictionaries: a route by its name and an account by its uuid, each a number in the log's rows.
 * Rows are only added (migrations 0005 and 0006), so a number once read stays that key's.
 */
const DICTIONARIES = {
  routes: {
    add: 'INSERT INTO usage_routes (name) SELECT unnest($1::text[]) ON CONFLICT DO NOTHING',
    read: 'SELECT id, name AS key FROM usage_routes WHERE name = ANY($1::text[])',
  },
  accounts: {
    add: 'INSERT INTO usage_accounts (account_id) SELECT unnest($1::uuid[]) ON CONFLICT DO NOTHING',
    read: 'SELECT id, account_id::text AS key FROM usage_accounts WHERE account_id = ANY($1::uuid[])',
  },
} as const;

/** Postgres's refusal of a row whose range has no partition. */
const isMissingPartition = (err: unknown) =>
  (err as { code?: string }).code === '23514' && /no partition/.test((err as Error).message);

/** How `ProjectionStore.settled` names a request: its key, the account and the id. */
export const settledKey = (requestId: string, accountId: string) => `${accountId}/${requestId}`;

/** A request as the log keys it. */
export interface LoggedRequest {
  requestId: string;
  accountId: string;
  admittedAtMs: number;
}

/** What `ProjectionStore.matching` looks for among a request's events (`e`, its account `r.account_id`). */
const LOGGED = {
  any: 'bool_or(e.account = usage_account(r.account_id))',
  charged: 'usage_charged(array_agg(e.kind) FILTER (WHERE e.account = usage_account(r.account_id)))',
} as const;

/** RECORD_BATCH's one row: the deltas as arrays a column, the account by its number. */
interface RecordedRow {
  recorded: number;
  late: number;
  accounts: number[];
  days: string[];
  vias: string[];
  deltas: number[];
}

export interface BatchResult {
  /** Events not seen before (the rest were duplicates or re-deliveries). */
  recorded: number;
  /** Events of a day already sealed, left out (see RECORD_BATCH). */
  late: number;
  deltas: ChargeDelta[];
}

/**
 * Settings of the connections the batch statement runs on (`ProjectionStore`'s recorder). The statement
 * is named, so a connection plans it once and keeps the plan: planning it for every batch cost more
 * than running it (0.25 ms against 0.47 for 25 events). A plan made while the log is young looks
 * earlier events up by scanning the log (seen: planned at a few hundred rows, then every batch scanning
 * the grown log, Postgres CPU per request four times as high and recording falling behind), and nothing
 * replaces it while no ANALYZE runs. Planned with sequential scans off, every read of the statement goes
 * through an index whatever the tables' sizes. Only the recorder: the rebuild check needs its scans.
 */
const RECORDER_SETTINGS = { enable_seqscan: 'off' };

/** The recorder's pool: one connection, as the consumer records one batch at a time. */
export function openRecorder(o: {
  url: string;
  schema: string;
  applicationName: string;
  logger?: Logger;
}): Pool {
  return createPool({ ...o, max: 1, settings: RECORDER_SETTINGS });
}

/**
 * The ledger's Postgres side: the append-only event log and the projections derived from it, written in
 * one statement per batch so that a projection never disagrees with the log. `recorder` is the pool
 * batches are recorded on (`openRecorder`); tools that never record may leave it out.
 */
export class ProjectionStore implements StreamPositions {
  /** usage_routes and usage_accounts as far as this process has needed them (accounts: the busiest). */
  private readonly numbers = {
    routes: new LRUCache<string, number>({ max: 1_000 }),
    accounts: new LRUCache<string, number>({ max: 100_000 }),
  };

  constructor(
    private readonly pool: Pool,
    private readonly recorder: Pool = pool,
    /** Told when a batch found no partition for some of its days (made then; an alert: upkeep is behind). */
    private readonly onMissingPartition: (days: string[]) => void = () => {},
  ) {}

  /** Makes the partitions of these IST days (YYYY-MM-DD) that do not exist and are not sealed; returns those made. */
  async ensurePartitions(days: string[], pool: Pool = this.pool): Promise<string[]> {
    const { rows } = await pool.query<{ day: string }>(
      `SELECT to_char(d, 'YYYY-MM-DD') AS day FROM unnest($1::date[]) AS d WHERE usage_events_ensure_partition(d)`,
      [days],
    );
    return rows.map((r) => r.day);
  }

  /**
   * Records a batch of events, and with them where their stream is recorded through (`position`, for a
   * shard's own stream). Duplicates (same request, account and kind) are ignored by the log's unique
   * key, so re-delivered and repeated events change nothing. Projection deltas are computed from the
   * kinds a request had before and after the batch, which makes the result independent of arrival
   * order.
   */
  async record(events: SettlementEvent[], position: StreamPosition | null = null): Promise<BatchResult> {
    if (events.length === 0 && position === null) return { recorded: 0, late: 0, deltas: [] };
    const routes = await this.numbered(
      'routes',
      events.map((e) => e.route),
    );
    const accounts = await this.numbered(
      'accounts',
      events.map((e) => e.account_id.toLowerCase()),
    );
    const sorted = uniqueLogRows(
      events.map((e) => logRow(e, routes.get(e.route)!, accounts.get(e.account_id.toLowerCase())!)),
    );
    const statement = {
      name: 'record_batch',
      text: RECORD_BATCH,
      values: [
        ...logColumns(sorted),
        position?.stream ?? null,
        position?.created ?? null,
        position?.through ?? null,
      ],
    };
    let result: RecordedRow;
    try {
      result = (await this.recorder.query<RecordedRow>(statement)).rows[0]!;
    } catch (err) {
      if (!isMissingPartition(err)) throw err;
      // Never a lost event: make the days' partitions (not a sealed day's) and record the batch again.
      const days = [...new Set(sorted.map((r) => istDay(r.admitted_at_ms)))];
      this.onMissingPartition(days);
      await this.ensurePartitions(days, this.recorder);
      result = (await this.recorder.query<RecordedRow>(statement)).rows[0]!;
    }
    const named = new Map<number, string>();
    for (const [id, n] of accounts) named.set(n, id);
    const deltas: ChargeDelta[] = result.accounts.map((n, i) => {
      const day = result.days[i]!;
      return {
        accountId: named.get(n)!,
        day,
        month: day.slice(0, 7),
        via: result.vias[i] === 'm' ? 'mcp' : 'rest',
        delta: result.deltas[i]!,
      };
    });
    return { recorded: result.recorded, late: result.late, deltas };
  }

  async streamPosition(stream: string): Promise<StreamPosition | null> {
    const { rows } = await this.pool.query<{ created: string; through: string }>(
      'SELECT stream_created AS created, recorded_through AS through FROM settlement_stream_positions WHERE stream = $1',
      [stream],
    );
    const row = rows[0];
    return row ? { stream, created: row.created, through: Number(row.through) } : null;
  }

  async forgetStreamPosition(p: StreamPosition): Promise<void> {
    await this.pool.query(
      'DELETE FROM settlement_stream_positions WHERE stream = $1 AND stream_created = $2 AND recorded_through = $3',
      [p.stream, p.created, p.through],
    );
  }

  /** The numbers of these routes (names) or accounts (uuids), adding to the dictionary those it lacks. */
  private async numbered(
    dictionary: keyof typeof DICTIONARIES,
    keys: string[],
  ): Promise<Map<string, number>> {
    const cache = this.numbers[dictionary];
    const found = new Map<string, number>();
    const missing: string[] = [];
    for (const key of new Set(keys)) {
      const n = cache.get(key);
      if (n === undefined) missing.push(key);
      else found.set(key, n);
    }
    if (missing.length > 0) {
      const { add, read } = DICTIONARIES[dictionary];
      await this.recorder.query(add, [missing]);
      const { rows } = await this.recorder.query<{ id: number; key: string }>(read, [missing]);
      for (const r of rows) {
        cache.set(r.key, r.id);
        found.set(r.key, r.id);
      }
    }
    return found;
  }

  /** Which of these requests have a settlement event (of any kind) recorded in the log, by `settledKey`. */
  settled(requests: LoggedRequest[]): Promise<Set<string>> {
    return this.matching(requests, 'any');
  }

  /** Which of these requests have their charge recorded in the log and not its void, by `settledKey`. */
  chargedNotVoided(requests: LoggedRequest[]): Promise<Set<string>> {
    return this.matching(requests, 'charged');
  }

  private async matching(requests: LoggedRequest[], what: keyof typeof LOGGED): Promise<Set<string>> {
    const keyed = requests.filter((r) => isUuid(r.accountId));
    if (keyed.length === 0) return new Set();
    const { rows } = await this.pool.query<{ request_id: string; account_id: string }>(
      `SELECT r.request_id, r.account_id
         FROM unnest($1::text[], $2::uuid[], $3::uuid[], $4::bigint[]) AS r(request_id, request_key, account_id, at_ms)
        CROSS JOIN LATERAL (
          -- By the request's key only (see RECORD_BATCH on why the account is matched apart).
          SELECT ${LOGGED[what]} AS found FROM usage_events e
           WHERE e.request_id = r.request_key
             AND e.admitted_at = timestamptz 'epoch' + r.at_ms * interval '1 millisecond') AS x
        WHERE x.found`,
      [
        keyed.map((r) => r.requestId),
        keyed.map((r) => logUuid(r.requestId)),
        keyed.map((r) => r.accountId),
        keyed.map((r) => r.admittedAtMs),
      ],
    );
    return new Set(rows.map((r) => settledKey(r.request_id, r.account_id)));
  }

  /**
   * Every request admitted after `sinceMs` that the log holds (any kind of settlement: an admission
   * counts in the burst window whatever became of it), oldest first: read by the log's BRIN index on
   * admission time, so its cost follows the minute's events, not the day's.
   */
  async admittedSince(
    sinceMs: number,
  ): Promise<{ accountId: string; requestId: string; admittedAtMs: number }[]> {
    const { rows } = await this.pool.query<{ account_id: string; request_id: string; at_ms: string }>(
      `SELECT a.account_id::text AS account_id, e.request_id::text AS request_id,
              (extract(epoch FROM e.admitted_at) * 1000)::bigint AS at_ms
         FROM usage_events e JOIN usage_accounts a ON a.id = e.account
        WHERE e.admitted_at > timestamptz 'epoch' + $1::bigint * interval '1 millisecond'
        GROUP BY 1, 2, 3
        ORDER BY 3`,
      [sinceMs],
    );
    return rows.map((r) => ({
      accountId: r.account_id,
      requestId: r.request_id,
      admittedAtMs: Number(r.at_ms),
    }));
  }

  /**
   * When the requests of one account admitted after `sinceMs` were admitted (any settlement: an
   * admission counts in the burst window whatever became of it). Read by the account index; once per
   * account that moves between shards.
   */
  async accountAdmittedSince(
    accountId: string,
    sinceMs: number,
  ): Promise<{ requestId: string; at: number }[]> {
    if (!isUuid(accountId)) return [];
    const { rows } = await this.pool.query<{ request_id: string; at_ms: string }>(
      `SELECT e.request_id::text AS request_id, (extract(epoch FROM e.admitted_at) * 1000)::bigint AS at_ms
         FROM usage_events e
        WHERE e.account = usage_account($1::uuid)
          AND e.admitted_at > timestamptz 'epoch' + $2::bigint * interval '1 millisecond'
        GROUP BY 1, 2 ORDER BY 2`,
      [accountId, sinceMs],
    );
    return rows.map((r) => ({ requestId: r.request_id, at: Number(r.at_ms) }));
  }

  /**
   * Charged counts of these accounts' day and month by interface, as the projections hold them, by
   * account (every one asked for, at 0 when it has none): one statement, each account's month read by
   * the primary key's range (account, day), the day being one of its days.
   */
  async charged(
    accountIds: readonly string[],
    day: string,
    month: string,
  ): Promise<Map<string, { day: ByInterface; month: ByInterface }>> {
    const counts = new Map(accountIds.map((id) => [id, { day: noUnits(), month: noUnits() }]));
    // An account id the auth service did not make has nothing charged.
    const keyed = accountIds.filter(isUuid);
    if (keyed.length === 0) return counts;
    const { rows } = await this.pool.query<{
      account_id: string;
      window: 'day' | 'month';
      via: Interface;
      charged: number;
    }>(
      `WITH days AS (
         SELECT a.account_id, c.day, CASE c.interface WHEN 'm' THEN 'mcp' ELSE 'rest' END AS via, c.charged
           FROM unnest($1::text[]) AS a(account_id)
           JOIN usage_accounts n ON n.account_id = a.account_id::uuid
           JOIN usage_cells c ON c.account = n.id
          WHERE c.day >= ($3::text || '-01')::date
            AND c.day < (($3::text || '-01')::date + interval '1 month')::date)
       SELECT account_id, 'day' AS window, via, sum(charged)::int AS charged
         FROM days WHERE day = $2::date GROUP BY 1, 3
       UNION ALL
       SELECT account_id, 'month', via, sum(charged)::int FROM days GROUP BY 1, 3`,
      [keyed, day, month],
    );
    for (const row of rows) {
      const c = counts.get(row.account_id);
      if (c) c[row.window][row.via] = row.charged;
    }
    return counts;
  }

  /**
   * One account's usage history over `w`, in one statement (one snapshot: the consumer's batch
   * statements are atomic, so days, hours and routes never straddle a batch). Days and routes come from
   * the projection's cells (the account's primary-key range). Hours come from the log,
   * with the projections' rule: a request counts when it has a `charged` event and no `voided` one
   * (`refunded` never carried a charge); read by the account index of the partitions the hours touch
   * (at most two days), a request's events grouped together (they share its account and admission).
   */
  async history(accountId: string, w: HistoryWindow): Promise<HistoryRows> {
    const { rows } = await this.pool.query<HistoryRows>(HISTORY, [
      w.days[0],
      w.days[w.days.length - 1],
      new Date(w.hoursFrom),
      new Date(w.hoursTo),
      w.monthFirstDay,
      w.today,
      IST_HOUR_PHASE_MS,
      // An account id the auth service did not make has no events.
      isUuid(accountId) ? accountId : NO_ACCOUNT,
    ]);
    return rows[0]!;
  }
  /**
   * Replays the event log into a fresh projection and lists every (account, `<day> <route>`, interface)
   * where it differs from the live one (usage_cells, named by the dictionaries; the daily and monthly
   * figures are its sums, so they agree when it does). Empty means the live projection is exactly what
   * the log implies. Days
   * whose partition was archived and dropped are replayed from their seals' figures. With `sinceDay`,
   * only days from it on are compared: the periodic check of recent days.
   */
  async rebuildDifferences(
    sinceDay = '1970-01-01',
  ): Promise<{ account_id: string; period: string; via: Interface; live: number; rebuilt: number }[]> {
    const { rows } = await this.pool.query<{
      account_id: string;
      period: string;
      via: Interface;
      live: number;
      rebuilt: number;
    }>(
      `WITH per_request AS (
         SELECT (min(e.admitted_at) AT TIME ZONE 'Asia/Kolkata')::date AS day, a.account_id::text AS account_id,
                min(r.name) AS route, CASE WHEN bool_or(e.interface = 'm') THEN 'mcp' ELSE 'rest' END AS via,
                usage_charged(array_agg(e.kind)) AS charged
           FROM usage_events e JOIN usage_routes r ON r.id = e.route JOIN usage_accounts a ON a.id = e.account
          WHERE e.admitted_at >= ($1::date)::timestamp AT TIME ZONE 'Asia/Kolkata'
          GROUP BY e.request_id, a.account_id),
       rebuilt AS (
         SELECT account_id, day, route, via, count(*)::int AS n FROM per_request WHERE charged GROUP BY 1, 2, 3, 4
         UNION ALL
         SELECT f.account_id, f.day, f.route, f.interface, f.charged
           FROM usage_seal_figures f JOIN usage_seals s USING (day)
          WHERE s.dropped_at IS NOT NULL AND f.day >= $1::date AND f.charged > 0),
       live AS (
         SELECT a.account_id::text AS account_id, c.day, r.name AS route,
                CASE c.interface WHEN 'm' THEN 'mcp' ELSE 'rest' END AS via, c.charged AS n
           FROM usage_cells c JOIN usage_accounts a ON a.id = c.account JOIN usage_routes r ON r.id = c.route
          WHERE c.charged <> 0 AND c.day >= $1::date)
       SELECT account_id, to_char(day, 'YYYY-MM-DD') || ' ' || route AS period, via,
              coalesce(l.n, 0) AS live, coalesce(r.n, 0) AS rebuilt
         FROM live l FULL JOIN rebuilt r USING (account_id, day, route, via)
        WHERE coalesce(l.n, 0) <> coalesce(r.n, 0)
        ORDER BY 1, 2, 3`,
      [sinceDay],
    );
    return rows;
  }

  /** Totals for the rebuild report. */
  async totals(): Promise<{ events: number; accounts: number }> {
    const { rows } = await this.pool.query<{ events: number; accounts: number }>(
      'SELECT count(*)::int AS events, count(DISTINCT account)::int AS accounts FROM usage_events',
    );
    return rows[0]!;
  }
}
