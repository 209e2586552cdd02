import { randomUUID } from 'node:crypto';
import { type Listener, listen, type Pool } from '@mdp/db';
import { Gauge, type Logger, type Registry } from '@mdp/telemetry';
import { shardOf } from '@mdp/usage';
import {
  type HandoverHold,
  type ProcessRuns,
  RUNS_CHANNEL,
  readView,
  refresh,
  registryNow,
  writeHandover,
} from './registry-tables.ts';
import {
  type HandedOverRun,
  nextReliefs,
  nextStandIn,
  type Ownership,
  type RegistryView,
  type Relief,
  ShardMap,
  type StandInState,
} from './shard-map.ts';

const handOverKey = (r: HandedOverRun) => `${r.count}/${r.shard}/${r.subject}/${r.endedAt}`;

/** A run of the shard registry not refreshed for this long has ended (5 refreshes missed). */
const REGISTRY_LIVE_MS = 5_000;
/** Allowance for the clocks of Postgres, JetStream and the ledgers when a move waits for a horizon. */
const REGISTRY_SKEW_MS = 1_000;
/** How long an ending relief waits for its subject to be recorded before it hands over (else it lapses). */
const RELIEF_HANDOVER_MS = 5_000;
/**
 * How often a refresh also deletes the registry's day-old rows. Not every refresh: it is four statements
 * more inside the registry's lock, and a move waits for the reads that queue behind it.
 */
const HOUSEKEEPING_MS = 60_000;

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
  /**
   * Resolves once notices are heard (LISTEN taken) and the read that connection asked for is done, so
   * a change made after it is told rather than left to the next refresh; at once without notices.
   * Not a condition of admitting: without notices a shard still reads every interval.
   */
  listening: Promise<void>;
  /** The runs this process refreshes now (a stopping shard's hand-over ends them). */
  runs(): ProcessRuns;
  /** This process admits from now (its consumer has caught up): told at once, a relief of it then ends. */
  admitting(): void;
  /** Stops refreshing this shard's runs (a hand-over then ends them: `writeHandover`). */
  stopRefreshing(): Promise<void>;
  close(): Promise<void>;
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
  clock: () => number;
}): ShardRegistry {
  const settings = { liveMs: REGISTRY_LIVE_MS, holdTtlMs: o.holdTtlMs, skewMs: REGISTRY_SKEW_MS };
  const me = { shard: o.shard, count: o.count };
  // This process's runs, told apart from another process's of the same index and host (a restart): a run
  // that lapsed begins again only in another process (`refresh`).
  const runner = { ...me, holder: `${o.holder} ${randomUUID().slice(0, 8)}` };
  let current: ShardMap | null = null;
  let stand: StandInState = { standIn: null, ended: false };
  let reliefs: Relief[] = [];
  /** Whether this process admits yet (`admitting()`), and whether the registry has been told. */
  let admitting = false;
  let told = false;
  /** Saying this process admits is a write: it takes a refresh, never a notice's read alone. */
  const toTell = () => admitting && !told;
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
  /** When the last refresh that succeeded began (this process's clock); its start before the first. */
  let readAt = o.clock();
  const shardLabel = String(o.shard);
  new Gauge({
    name: 'ledger_shard_registry_read_age_seconds',
    help: 'Seconds since this shard last refreshed its run and read the shard registry (since its start before the first read). Past 5 s the other shards see its run lapsed; it admits on the map it last read',
    labelNames: ['shard'] as const,
    registers: [o.registry],
    collect() {
      this.set({ shard: shardLabel }, (o.clock() - readAt) / 1000);
    },
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
  /** The hand-overs this process has said it takes over, by `handOverKey`: each is logged once. */
  let takenOver = new Set<string>();
  /**
   * The read that found them: how long it waited after it was asked (a notice, the interval, a stop of
   * the one before), and how long it took. A slow move says which of the two it was.
   */
  const tellTakenOver = (runs: readonly HandedOverRun[], read: { waitedMs: number; readMs: number }) => {
    // One run may be earlier to this shard's own map and to its stand-in's or a relief's: listed once.
    const byKey = new Map(runs.map((r) => [handOverKey(r), r]));
    const fresh = [...byKey].filter(([k]) => !takenOver.has(k)).map(([, r]) => r);
    takenOver = new Set(byKey.keys());
    if (fresh.length === 0) return;
    o.logger.info(
      { from: fresh.map(({ count, shard, subject }) => ({ count, shard, subject })), ...read },
      'taking over: the accounts these runs handed over are admitted here now',
    );
  };
  /**
   * A notice's read (`readView`: one statement, no lock), kept as the map when that map asks this
   * process to begin or end no run (no stand-in or relief to change): so a hand-over's new owner takes
   * its accounts after one statement, not a refresh queued behind the other shards' for the lock. Null
   * when kept; else the view, for the full read to go on from.
   */
  const noticeRead = async (askedAt: number): Promise<RegistryView | null> => {
    const began = o.clock();
    const view = await readView(o.pool);
    const map = mapOf(view);
    if (nextStandIn(map, stand) !== stand || nextReliefs(map, reliefs).changed) return view;
    current = map;
    tellTakenOver(map.takenOver(), { waitedMs: began - askedAt, readMs: o.clock() - began });
    return null;
  };
  /** When a refresh last deleted the day-old rows (never yet). */
  let housekeptAt = Number.NEGATIVE_INFINITY;
  /**
   * A read of the registry asked for at `askedAt`: a notice's alone if it will do; else this process's
   * runs refreshed (but after a notice's read, which then serves as the refresh's), and what the map asks
   * of it done: a stand-in, reliefs begun (registered at once) or ended.
   */
  const tick = async (askedAt: number, notice: boolean) => {
    let read: RegistryView | undefined;
    // A notice read that fails leaves it to the full read, which says so.
    if (notice && !toTell()) {
      const got = await noticeRead(askedAt).catch(() => undefined);
      if (got === null) return;
      read = got;
    }
    const began = o.clock();
    try {
      const announce = toTell();
      const housekeep = read === undefined && began - housekeptAt >= HOUSEKEEPING_MS;
      let view =
        read ?? (await refresh(o.pool, runner, runsNow(announce), o.horizons(), settings.liveMs, housekeep));
      if (housekeep) housekeptAt = began;
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
      if (relief.changed) {
        reliefs = relief.held;
        map = mapOf(view);
        if (relief.ended.length > 0) {
          // Not admitted from here on, before the hand-over's end is taken.
          current = map;
          const ended = relief.ended;
          ending = ending.then(() => endReliefs(ended));
        }
        if (relief.begun.length > 0) {
          o.logger.info(
            { reliefs: relief.begun },
            'relieving a shard that handed over while its process restarts',
          );
          register = true;
        }
      }
      // Registered at once: an account handed over to this index under that count is admitted now.
      if (register) {
        view = await refresh(o.pool, runner, runsNow(false), o.horizons(), settings.liveMs, false);
        map = mapOf(view);
      }
      current = map;
      tellTakenOver(map.takenOver(), { waitedMs: began - askedAt, readMs: o.clock() - began });
      relieving.set(reliefs.length);
      counts.set(
        new Set(view.runs.filter((r) => r.lastSeen > view.now - settings.liveMs).map((r) => r.count)).size,
      );
      if (failing) o.logger.info('shard registry read again');
      failing = false;
      // A notice's read that registered nothing refreshed no run: the next refresh is within a second.
      if (read === undefined || register) readAt = began;
      markReady();
    } catch (err) {
      if (!failing)
        o.logger.warn({ err: (err as Error).message }, 'shard registry unreadable; keeping the last map');
      failing = true;
    }
  };
  let running: Promise<void> = tick(o.clock(), false);
  // One read at a time; an ask while one is queued joins it, making it a full read if it asks for one
  // (a notice never takes an interval's refresh away).
  let queued: { full: boolean } | null = null;
  /**
   * Resolves when the read this ask made or joined is over (at once once stopped). A queued read is the
   * last link of `running` until it begins, so joining it is waiting for `running`.
   */
  const readSoon = (full: boolean): Promise<void> => {
    if (stopped) return Promise.resolve();
    if (queued !== null) {
      queued.full ||= full;
      return running;
    }
    const ask = { full };
    queued = ask;
    const askedAt = o.clock();
    running = running.then(() => {
      queued = null;
      return stopped ? undefined : tick(askedAt, !ask.full);
    });
    return running;
  };
  const timer = setInterval(() => void readSoon(true), o.intervalMs ?? 1_000);
  const notices = o.notices;
  let heard!: () => void;
  const listening = new Promise<void>((r) => {
    heard = r;
  });
  // A notice missed while the connection was down is made up by reading on every (re)connection.
  const listener: Listener | null = notices
    ? listen({
        url: notices.url,
        channel: RUNS_CHANNEL,
        applicationName: 'quota-ledger-registry',
        logger: o.logger,
        onNotify: (schema) => {
          if (schema === notices.schema) readSoon(false);
        },
        onConnected: () => void readSoon(true).then(heard),
      })
    : null;
  if (listener === null) heard();
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
    listening,
    runs,
    admitting: () => {
      admitting = true;
      void readSoon(true);
    },
    stopRefreshing: stop,
    close: stop,
  };
}
