import { reliefOf, shardOf } from '@mdp/usage';

/**
 * One ledger process's run of one shard under one shard count, as the shard registry records it: every
 * live process refreshes its run each second (`ledger_shard_runs`). Times are the registry's (Postgres's)
 * clock, ms.
 */
export interface ShardRun {
  count: number;
  shard: number;
  /**
   * The process that runs it, by its own index, whose subject its admissions' charges go to: `shard`,
   * but for a relief (another shard's process admitting this index while its own restarts).
   */
  subject: number;
  /** When this run began (again, after it had lapsed). */
  activeSince: number;
  lastSeen: number;
  /**
   * When it ended with a hand-over (a graceful stop: its subject recorded through then, the requests it
   * still held written down); null while it runs, or when it ended otherwise (killed, or lapsed).
   */
  endedAt: number | null;
  /** A shard's run of a newer count beside its own (`standInCount`): a run like any other to the map. */
  standIn: boolean;
  /** Its process admits (its consumer has caught up); a relief it ends lasts until then. */
  admitting: boolean;
}

/** What the registry said when last read: the runs of the last day and how far each subject is recorded. */
export interface RegistryView {
  /** The registry's clock when it was read. */
  now: number;
  runs: readonly ShardRun[];
  /** Per settlement subject (a shard index), the newest publish time its consumer has recorded through. */
  horizons: ReadonlyMap<number, number>;
}

/** A shard run that handed its accounts over: the requests it still held are in its hand-over. */
export interface HandedOver {
  count: number;
  shard: number;
  /** Where its admissions' charges are recorded (`ShardRun.subject`). */
  subject: number;
}

/** A run that handed over, and when (the registry's clock, ms). */
export interface HandedOverRun extends HandedOver {
  endedAt: number;
}

/** A run of another index, under one of its counts, that this shard's process runs as a relief. */
export interface Relief {
  count: number;
  shard: number;
}

const isRelief = (r: ShardRun) => r.subject !== r.shard;

export type Ownership =
  /**
   * Admit. `moved`: it came from another shard recently; its burst window is read from the log, and the
   * requests it had in flight from the hand-overs of `from`. `relief`: admitted as a relief, so never
   * leased (a relief ends while its process runs on, and hands over what it holds).
   */
  | { kind: 'owner'; moved: boolean; from?: readonly HandedOver[]; relief?: true }
  /** Not this shard's under its own map: the gateway that sent it routes by another map. */
  | { kind: 'not_owner' }
  /** This shard's under its map, but not yet: another shard still admits it, or its charges are not all recorded. */
  | { kind: 'handoff'; why: string };

export interface ShardMapSettings {
  /** A run not refreshed for this long has ended (its process is gone or runs another count). */
  liveMs: number;
  /** How long after admission a settlement may still be published (the ledger's hold TTL). */
  holdTtlMs: number;
  /** Allowance for the clocks of Postgres, JetStream and the ledgers. */
  skewMs: number;
}

/** How long after a move an account's burst window still holds admissions of its previous owner. */
const MOVED_RECENTLY_MS = 2 * 60_000;

/**
 * Which accounts this shard may admit while the shard count changes or a shard restarts, decided from the
 * registry: one writer per account at every moment, and a new owner only once it can read all its
 * previous owner's charges. Pure: the registry is read (and this shard's runs refreshed) elsewhere.
 *
 * - A run is live while refreshed within `liveMs`; it began at its `activeSince` (a run that lapsed or
 *   handed over begins again when its shard runs that count again).
 * - Of the runs that own an account under their counts, the one that began first keeps it while it is
 *   live (the incumbent): a run that began later waits. Normally that is the older count's run, as a
 *   rollout starts the new count's runs one by one beside the old. But an old count's shard that starts
 *   again after the new count's runs (a crash mid-rollout, a rollback) waits for them in turn: they may
 *   be admitting its accounts, and a later run never takes an account from a live one.
 * - An account another process's earlier run owned moves here only once that run has ended, every hold it
 *   could still have has expired (`holdTtlMs` after its last refresh), and its subject is recorded
 *   through then: the log then holds all it admitted, and this shard reads the account's counts and
 *   burst window from it. A run that began later never admitted what this one owns: it has waited for it
 *   from its first read. Runs of one process (one subject) are never rivals: they share one book.
 *
 * - A shard still running the older count may also run, under its own index, the newer count (a
 *   stand-in, `standInCount`): it then admits the accounts that count gives its index as that count's
 *   run would. Every other shard sees the stand-in as a run of the newer count, so the rules above keep
 *   one writer per account. An account whose new owner restarts last is then admitted as soon as its old
 *   owner hands it over. A stand-in ends when its count's own runs have gone (the change was rolled back:
 *   `standInGone`); what it admitted then moves back as after a kill.
 * - While a shard's process restarts, another (`reliefOf`) runs each of its runs as a relief: a run under
 *   that index and count with the relieving process's subject, begun once the stopped run has handed
 *   over, so it takes the accounts at once, and ended (with a hand-over of its own) as soon as a run
 *   other than a relief that began after it admits, the restarted shard's first of all (`nextReliefs`).
 *   The gateways send an account there while its own shard is unreachable. To every other run it is a run like any
 *   other, so the rules above keep one writer per account through it.
 *
 * With one shard count and nothing moving (the steady state) `simple` is true and ownership is one hash.
 */
export class ShardMap {
  /** No earlier run of another process is live, nor ended so lately that its accounts' moves still settle. */
  readonly simple: boolean;
  private readonly activation = new Map<number, number>();
  /** Runs of other processes (live or ended within the day) that began before this one and may share its accounts. */
  private readonly earlier: ShardRun[];
  private readonly mine: number;
  private readonly subject: number;
  /** When this run began (the registry's `now` before its first refresh is read). */
  private readonly began: number;
  private readonly liveSubjects: Set<number>;
  /** The map of this shard's stand-in run, when it has one in the registry. */
  private readonly standIn: ShardMap | null;
  /** The maps of the reliefs this process runs that are in the registry. */
  private readonly reliefs: ShardMap[];
  /**
   * The newer count this shard may stand in for under its own index: the one other count that other
   * shards' own runs (not stand-ins) are live under, when it became active after this shard's count and
   * has an index this shard's. Null with no other count, with two, or when this shard's is the newer.
   */
  readonly standInCount: number | null;
  /**
   * The stand-in count passed in has had no own run (not a stand-in) seen within `liveMs`, ended or not:
   * the change to it was rolled back, and the stand-in should end.
   */
  readonly standInGone: boolean;

  /**
   * `standIn`: the newer count this shard runs a stand-in of (a `standInCount` of an earlier map), if any;
   * `reliefs`: the runs of other indices it runs as reliefs (`nextReliefs`). `me.subject`: for a relief's
   * own map, the process that runs it (by default `me.shard`).
   */
  constructor(
    readonly me: { shard: number; count: number; subject?: number },
    private readonly view: RegistryView,
    private readonly settings: ShardMapSettings,
    standIn: number | null = null,
    reliefs: readonly Relief[] = [],
  ) {
    const subject = me.subject ?? me.shard;
    this.subject = subject;
    const live = view.runs.filter((r) => this.isLive(r));
    // A relief makes no count active: it runs a count its process already runs.
    for (const r of live) {
      if (isRelief(r)) continue;
      const at = this.activation.get(r.count);
      if (at === undefined || r.activeSince < at) this.activation.set(r.count, r.activeSince);
    }
    // This shard's own count is active from its own run at the latest (its first refresh may be unread).
    this.mine = Math.min(this.activation.get(me.count) ?? view.now, view.now);
    const own = live.find((r) => r.count === me.count && r.shard === me.shard && r.subject === subject);
    const began = own?.activeSince ?? view.now;
    this.began = began;
    // Ties (one clock, ms) go to the lower count, then the lower subject: every side orders them alike.
    const precedes = (r: ShardRun) =>
      r.activeSince < began ||
      (r.activeSince === began && (r.count < me.count || (r.count === me.count && r.subject < subject)));
    // Runs of one count under other indices never share an account.
    this.earlier = view.runs.filter(
      (r) => r.subject !== subject && (r.count !== me.count || r.shard === me.shard) && precedes(r),
    );
    this.liveSubjects = new Set(live.map((r) => r.subject));
    const others = new Set(
      live
        .filter((r) => !r.standIn && !isRelief(r) && r.shard !== me.shard && r.count !== me.count)
        .map((r) => r.count),
    );
    const [other] = others;
    this.standInCount =
      others.size === 1 && other !== undefined && me.shard < other && !this.isOlder(other) ? other : null;
    this.standInGone =
      standIn !== null &&
      !view.runs.some(
        (r) => r.count === standIn && !r.standIn && !isRelief(r) && r.lastSeen > view.now - settings.liveMs,
      );
    // Only once a stand-in or relief run is in the registry do the other shards know to wait for it.
    const registered = (count: number, shard: number) =>
      live.some((r) => r.count === count && r.shard === shard && r.subject === subject);
    this.standIn =
      standIn !== null && registered(standIn, me.shard) && me.shard < standIn && !this.isOlder(standIn)
        ? new ShardMap({ shard: me.shard, count: standIn }, view, settings)
        : null;
    this.reliefs = reliefs
      .filter((r) => registered(r.count, r.shard))
      .map((r) => new ShardMap({ shard: r.shard, count: r.count, subject }, view, settings));
    this.simple = this.earlier.every(
      (r) => !this.isLive(r) && r.lastSeen <= view.now - MOVED_RECENTLY_MS && this.settled(r),
    );
  }

  private isLive(r: ShardRun): boolean {
    return r.lastSeen > this.view.now - this.settings.liveMs && r.endedAt === null;
  }

  /** Whether count `c` became active before this shard's count (a lapsed count always did). */
  private isOlder(c: number): boolean {
    const at = this.activation.get(c);
    return at === undefined || at < this.mine || (at === this.mine && c < this.me.count);
  }

  /**
   * Whether everything `run` admitted is in the log, or in its hand-over: once its subject is recorded
   * through the end of a run that handed over; otherwise a hold TTL after its last refresh, when every
   * hold it could have had has expired.
   */
  private settled(run: ShardRun): boolean {
    const by =
      run.endedAt !== null ? run.endedAt : run.lastSeen + this.settings.holdTtlMs + this.settings.skewMs;
    return this.view.now >= by && (this.view.horizons.get(run.subject) ?? 0) >= by;
  }

  /**
   * The runs of other processes whose accounts this map admits in their place now: ended with a hand-over
   * within `MOVED_RECENTLY_MS` and settled (its stand-in's and reliefs' too). For the log of a move.
   */
  takenOver(): HandedOverRun[] {
    const own = this.earlier
      .filter((r) => r.endedAt !== null && r.endedAt > this.view.now - MOVED_RECENTLY_MS && this.settled(r))
      .map((r) => ({ count: r.count, shard: r.shard, subject: r.subject, endedAt: r.endedAt! }));
    return [...own, ...(this.standIn?.takenOver() ?? []), ...this.reliefs.flatMap((m) => m.takenOver())];
  }

  /**
   * The runs this process should begin to relieve: every run (its own count's, a stand-in's) of the
   * process it relieves (`reliefOf`) that has handed over within `liveMs`, while that process is away and
   * no run other than a relief has begun since (one would end the relief at once).
   */
  reliefsDue(): Relief[] {
    const { view, subject } = this;
    return view.runs
      .filter(
        (r) =>
          !isRelief(r) &&
          r.count > 1 &&
          reliefOf(r.subject) === subject &&
          r.endedAt !== null &&
          r.endedAt > view.now - this.settings.liveMs &&
          !this.liveSubjects.has(r.subject) &&
          !view.runs.some((b) => !isRelief(b) && this.isLive(b) && b.activeSince > r.endedAt!),
      )
      .map((r) => ({ count: r.count, shard: r.shard }));
  }

  /**
   * Whether the relief `r` (one this process runs) is over: a run other than a relief, of another
   * process, has begun after it (the relieved shard is back, or the shard count is changing) and admits.
   */
  reliefOver(r: Relief): boolean {
    const map = this.reliefs.find((m) => m.me.count === r.count && m.me.shard === r.shard);
    if (!map) return false;
    return this.view.runs.some(
      (b) =>
        !isRelief(b) &&
        b.subject !== this.subject &&
        b.admitting &&
        this.isLive(b) &&
        b.activeSince > map.began,
    );
  }

  /**
   * The subjects among `known` (shards that ever ran) this shard records besides its own: those of
   * shards past its count that no live run holds, whose index falls to it (index mod count). Their late
   * events are then recorded, and their horizons move, so the accounts they held can move on.
   */
  inherited(known: readonly number[]): number[] {
    const { shard, count } = this.me;
    return known
      .filter((s) => s >= count && s % count === shard && !this.liveSubjects.has(s))
      .sort((a, b) => a - b);
  }

  /** How far a subject is recorded, as the registry said (0 when it does not say). */
  recordedThrough(subject: number): number {
    return this.view.horizons.get(subject) ?? 0;
  }

  ownership(accountId: string): Ownership {
    const { shard, count } = this.me;
    if (shardOf(accountId, count) !== shard) {
      const standing = this.standIn?.ownership(accountId);
      if (standing && standing.kind !== 'not_owner') return standing;
      for (const relief of this.reliefs) {
        const o = relief.ownership(accountId);
        if (o.kind === 'owner') return { ...o, relief: true };
        if (o.kind !== 'not_owner') return o;
      }
      return { kind: 'not_owner' };
    }
    if (this.simple) return { kind: 'owner', moved: false };
    let moved = false;
    const handedOver: HandedOver[] = [];
    for (const r of this.earlier) {
      if (shardOf(accountId, r.count) !== r.shard) continue;
      if (this.isLive(r))
        return {
          kind: 'handoff',
          why: `shard ${r.shard} of ${r.count} (process ${r.subject}) still admits it`,
        };
      if (!this.settled(r))
        return {
          kind: 'handoff',
          why: `shard ${r.shard} of ${r.count} (process ${r.subject}) may still have charges of it to record`,
        };
      if (r.lastSeen <= this.view.now - MOVED_RECENTLY_MS) continue;
      moved = true;
      if (r.endedAt !== null) handedOver.push({ count: r.count, shard: r.shard, subject: r.subject });
    }
    return handedOver.length > 0 ? { kind: 'owner', moved, from: handedOver } : { kind: 'owner', moved };
  }
}

/** The stand-in a shard process runs (`standIn`), and whether it has ended one (never taken up again). */
export interface StandInState {
  standIn: number | null;
  ended: boolean;
}

/**
 * The process's stand-in after reading `map` (made with `state.standIn`): it ends one whose count is gone
 * (`standInGone`), and takes up `standInCount` once, for the life of the process: a stand-in that came and
 * went would leave accounts in the book whose counts another shard moved on meanwhile.
 */
export function nextStandIn(map: ShardMap, state: StandInState): StandInState {
  if (state.standIn !== null) return map.standInGone ? { standIn: null, ended: true } : state;
  if (state.ended || map.standInCount === null) return state;
  return { standIn: map.standInCount, ended: false };
}

/** What reading a map does to a process's reliefs (`nextReliefs`). */
export interface NextReliefs {
  /** The reliefs it runs from now: those kept, then those begun. */
  held: Relief[];
  /** Those over: each hands over what it holds. */
  ended: Relief[];
  /** Those due that it did not run: each is registered at once. */
  begun: Relief[];
  /** Whether any ended or began: the process has a relief to begin or end. */
  changed: boolean;
}

/** The process's reliefs after reading `map` (made with `held`): those over end, those due begin. */
export function nextReliefs(map: ShardMap, held: readonly Relief[]): NextReliefs {
  const ended = held.filter((r) => map.reliefOver(r));
  const kept = held.filter((r) => !ended.includes(r));
  const begun = map.reliefsDue().filter((r) => !kept.some((k) => k.count === r.count && k.shard === r.shard));
  return { held: [...kept, ...begun], ended, begun, changed: ended.length > 0 || begun.length > 0 };
}
