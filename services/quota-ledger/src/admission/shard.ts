import {
  BURST_WINDOW_MS,
  type Caps,
  type Decision,
  type LeasedAdmission,
  type LeaseExtensionTerms,
  type LeaseGrant,
} from '@mdp/admission';
import type { Clock } from '@mdp/nse-calendar';
import {
  CellCounter,
  Counter,
  type CounterCell,
  Gauge,
  inSpan,
  type Logger,
  type Registry,
  requestTraceContext,
  SpanKind,
  type Tracer,
} from '@mdp/telemetry';
import type { Interface } from '@mdp/usage';
import type { HistoryRows, HistoryWindow } from '../log/usage-history.ts';
import type { Mutex } from '../mutex.ts';
import { type ProjectionStore, settledKey } from '../settlement/projections.ts';
import type { StreamSeq } from '../settlement/shard-streams.ts';
import type { AccountBook } from './account-book.ts';
import type { LeaseMetrics } from './lease-metrics.ts';
import type { HandoverHold } from './registry-tables.ts';
import type { HandedOver, Ownership } from './shard-map.ts';

/** Every decision `ledger_admissions_total` counts. */
const DECISIONS = [
  'admitted',
  'rate_limited',
  'quota_exhausted',
  'duplicate',
  'unavailable',
  'not_owner',
  'handoff',
  'leased',
] as const;

/** One request to admit, as the shard reads it (app.ts maps the gRPC message onto it). */
export interface AdmissionRequest {
  requestId: string;
  accountId: string;
  caps: Caps;
  via: Interface;
  traceparent: string;
  /** Its gateway would take a lease on the account with the answer. */
  wantLease: boolean;
  /** Sent here as the relief of the account's own shard, which its gateway cannot reach. */
  relief?: boolean;
}

/**
 * A request the shard does not decide on: not caught up, another shard's account, one moving here, or one
 * its own gateway is to decide under the lease it holds on the account.
 */
type Refusal = 'unavailable' | 'not_owner' | 'handoff' | 'leased';

export interface Outcome {
  requestId: string;
  decision: Decision | 'duplicate' | Refusal;
  /** When it was decided (the admission time of an admitted request); 0 when refused. */
  at: number;
  /** A lease on the account, granted with this admission (`AdmissionRequest.wantLease`). */
  lease?: LeaseGrant;
}

/** A lease given back by its holder, with its admissions not reported before (numbered from `from`). */
interface ReturnedLease {
  leaseId: string;
  accountId: string;
  from: number;
  admitted: LeasedAdmission[];
}

/**
 * A lease its holder would keep longer, with how many admissions it has made under it so far and those
 * it reports (numbered from `reportedFrom`).
 */
interface ExtensionRequest {
  leaseId: string;
  accountId: string;
  used: number;
  reportedFrom: number;
  reported: LeasedAdmission[];
}

/** A request a gateway was told was admitted and has not settled, sent again on a new stream. */
export interface HeldRequest {
  requestId: string;
  accountId: string;
  admittedAt: number;
  via: Interface;
}

/** Whether an account has just moved here, and from which hand-overs (`Ownership`). */
type Moved = { moved: boolean; from?: readonly HandedOver[] };
const NOT_MOVED: Moved = { moved: false };

/** What the gateway holding a lease has charged under it: each stream's newest acknowledged charge. */
interface LeaseCharges {
  leaseId: string;
  charged: readonly StreamSeq[];
}

/** How long a usage read of a leased account waits for the stream to be recorded up to the read. */
const RECORDED_PAST_WAIT_MS = 2_000;

/** The most accounts one statement loads (`loadAll`). */
const LOAD_BATCH = 500;

export interface ShardDeps {
  book: AccountBook;
  store: ProjectionStore;
  mutex: Mutex;
  clock: Clock;
  logger: Logger;
  tracer: Tracer;
  registry: Registry;
  /** False until the settlement consumer has caught up: nothing is decided or reported before. */
  caughtUp: () => boolean;
  /**
   * Whether this shard may admit the account now (`ShardMap.ownership`): not when another shard owns it
   * under this shard's map (a gateway with another map would otherwise have two shards admit one
   * account), nor while it moves here from another shard.
   */
  ownership: (accountId: string) => Ownership;
  /** How long a lease lasts; 0: no leases, every request is decided here. */
  leaseMs: number;
  leaseMetrics: LeaseMetrics;
  /** Resolves once everything the stream held for this shard when called is recorded (or rejects after `ms`). */
  recordedPast: (ms: number) => Promise<void>;
  /** Resolves once everything up to these stream positions is recorded (or rejects after `ms`). */
  recordedTo: (positions: readonly StreamSeq[], ms: number) => Promise<void>;
  /** What hand-overs of shards an account moved from recorded of it (`HandedOver`). */
  handoverHolds: (
    accountId: string,
    from: readonly HandedOver[],
  ) => Promise<(HandoverHold & { from: HandedOver })[]>;
}

/** One gateway's admission stream, as the shard sees it: where its recalls go. */
interface AdmissionStream {
  readonly id: number;
  recall(leaseIds: string[]): void;
}

export interface Shard {
  /**
   * Decides a batch: the requests whose account is in memory at once (one `answer`), the others when
   * their account has loaded (a second `answer`, and one of its own at once for each granted a lease).
   * After any restore in progress.
   */
  admit(requests: AdmissionRequest[], answer: (outcomes: Outcome[]) => void, stream: AdmissionStream): void;
  /** A gateway's admission stream opened: leases go out on it. */
  openStream(recall: (leaseIds: string[]) => void): AdmissionStream;
  closeStream(stream: AdmissionStream): void;
  /** Leases its holder gives back, applied before the admissions of the same message. */
  returnLeases(stream: AdmissionStream, returns: ReturnedLease[]): void;
  /**
   * Leases their holder would keep longer (`AccountBook.extendLease`), with the admissions it reports
   * (`AccountBook.takeReport`, taken in whether or not the lease is extended); `answer` with each one's
   * terms now, after any restore in progress.
   */
  extendLeases(
    stream: AdmissionStream,
    requests: ExtensionRequest[],
    answer: (extensions: LeaseExtensionTerms[]) => void,
  ): void;
  /** Asks every holder for its leases back and waits for them (at most `ms`): a stopping shard's first step. */
  recallAll(ms: number): Promise<void>;
  /** From now on nothing is admitted (a stopping shard hands its accounts over): gateways get 503. */
  stopAdmitting(): void;
  /** Holds again what gateways restore; admissions, releases and voids after it wait for it. */
  restore(holds: HeldRequest[]): void;
  /** Settled requests (whatever the outcome) no longer count as in flight; `done` once applied. */
  release(requests: { requestId: string; accountId: string }[], done: () => void): void;
  /** Charges gateways are voiding (`AccountBook.withdraw`); `done` once applied. */
  withdraw(voids: HeldRequest[], done: () => void): void;
  /** Whether this shard answers for the account's usage now: caught up, and the account its own. */
  answers(accountId: string): 'yes' | 'catching_up' | 'not_owner';
  /**
   * What the account has used in the IST day and month of the time it resolves with (`AccountBook.usage`);
   * null when it cannot be read now: the account is leased and the stream is not recorded up to the read
   * (or, read through the lease's holder, up to its charges: `charges`) within RECORDED_PAST_WAIT_MS, so
   * the count could leave out 200s already sent.
   */
  usage(
    accountId: string,
    charges?: LeaseCharges,
  ): Promise<({ now: number } & ReturnType<AccountBook['usage']>) | null>;
  /** The account's usage history over `w`, from the log and its projections. */
  history(accountId: string, w: HistoryWindow): Promise<HistoryRows>;
}

/**
 * One shard's admission, restore, release and void, over its pure account book and shard map: what
 * must be loaded (counts, a moved account's burst window) is loaded from the log under the consumer's
 * mutex, then decided synchronously. No gRPC here: app.ts maps messages onto it.
 */
export function createShard(deps: ShardDeps): Shard {
  const { book, store, mutex, clock, logger } = deps;
  // One update an admission: through cells, as the gateway's metrics (prom-client's labelled `inc` sorts,
  // joins and validates the labels on every call).
  const admissions = new CellCounter({
    name: 'ledger_admissions_total',
    help: 'Admission decisions: admitted, rate_limited, quota_exhausted, duplicate, unavailable, not_owner (an account of another shard: the gateway has another shard map), handoff (an account moving here while the shard count changes), leased (left to the gateway holding a lease on the account)',
    labelNames: ['decision'] as const,
    registers: [deps.registry],
  });
  // Every decision is a series from the start, so a rate over a rare one reads 0, not nothing.
  const decided = Object.fromEntries(DECISIONS.map((d) => [d, admissions.cell(d)])) as Record<
    (typeof DECISIONS)[number],
    CounterCell
  >;
  new Gauge({
    name: 'ledger_holds_in_flight',
    help: 'Admitted requests not yet settled',
    registers: [deps.registry],
    collect() {
      this.set(book.inFlight);
    },
  });
  const restoredHolds = new Counter({
    name: 'ledger_holds_restored_total',
    help: 'Holds gateways sent again on a new stream: restored, settled (already recorded), skipped (held or expired)',
    labelNames: ['outcome'] as const,
    registers: [deps.registry],
  });
  const usageReads = new Counter({
    name: 'ledger_reads_of_usage_total',
    help: 'Usage documents read, by what the read waited for: none (no lease out on the account), lease (the charges its holder named), stream (everything the stream held: a lease out, read through another gateway); and outcome: answered, lagging (not recorded that far in time: 503)',
    labelNames: ['wait', 'outcome'] as const,
    registers: [deps.registry],
  });
  for (const wait of ['none', 'lease', 'stream']) usageReads.inc({ wait, outcome: 'answered' }, 0);
  const withdrawals = new Counter({
    name: 'ledger_voids_withdrawn_total',
    help: 'Charges gateways are voiding (not acknowledged in time), as the shard found them: held (not recorded yet), recorded (taken off usage until the void), none (not held, nothing recorded), failed (the log could not be read)',
    labelNames: ['found'] as const,
    registers: [deps.registry],
  });

  /**
   * Loads the missing periods of these accounts (of the IST day and month of `now`) from the projections,
   * `LOAD_BATCH` accounts a statement; under the mutex. Those loaded already are left as they are.
   */
  const loadAll = async (accountIds: readonly string[], now: number): Promise<void> => {
    const missing = accountIds.filter((a) => book.missingPeriods(a, now) !== null);
    if (missing.length === 0) return;
    // Every account's missing periods are those of `now`.
    const { day, month } = book.missingPeriods(missing[0]!, now)!;
    for (let i = 0; i < missing.length; i += LOAD_BATCH) {
      const part = missing.slice(i, i + LOAD_BATCH);
      const charged = await store.charged(part, day, month);
      for (const accountId of part) {
        const c = charged.get(accountId)!;
        book.loaded(accountId, { day, dayCharged: c.day, month, monthCharged: c.month }, now);
      }
    }
  };

  /**
   * Loads of accounts that have not just moved here, gathered: every account asked for while the mutex
   * is busy (a batch being recorded, the loads before) is loaded with the others in one statement when
   * it frees, so a burst of accounts not in memory (callers back after a quiet spell, a restarted shard)
   * costs a statement a `LOAD_BATCH`, not one each in turn, every first request of theirs waiting for
   * all the loads before its own.
   */
  const loadGathered = mutex.gathering<string>((accountIds) => loadAll(accountIds, clock()));

  /**
   * Loads the account's missing periods, under the mutex. An account that has just moved here (`moved`)
   * also brings its burst window (its previous owner's admissions of the last minute, from the log) and
   * the requests its previous owners still held when they handed over: in its burst window (they are not
   * in the log yet) and held here. Whatever loads an account first (an admission, a usage read, a restore)
   * adopts them: later loads find the periods there and adopt nothing.
   */
  const loadNow = async (accountId: string, moved: Moved, now: number): Promise<void> => {
    const missing = book.missingPeriods(accountId, now);
    if (!missing) return;
    const adopting = moved.moved && !book.seeded(accountId);
    const handed = adopting ? await deps.handoverHolds(accountId, moved.from ?? []) : [];
    if (adopting) {
      const logged = await store.accountAdmittedSince(accountId, now - BURST_WINDOW_MS);
      book.seedBurst(
        accountId,
        [...logged, ...handed.map((h) => ({ requestId: h.requestId, at: h.admittedAt }))],
        now,
      );
    }
    await loadAll([accountId], now);
    for (const f of moved.from ?? [])
      book.adopt(
        accountId,
        handed.filter(
          (h) => h.from.count === f.count && h.from.shard === f.shard && h.from.subject === f.subject,
        ),
        f.subject,
        now,
      );
  };

  /** The account as this shard owns it now: moved here, and from where (nothing to adopt otherwise). */
  const movedNow = (accountId: string): Moved => {
    const own = deps.ownership(accountId);
    return own.kind === 'owner' ? own : NOT_MOVED;
  };

  /** Makes sure the account's counts for the current IST day and month are in memory (`loadNow`). */
  const loaded = async (accountId: string, moved: Moved = movedNow(accountId)): Promise<number> => {
    for (;;) {
      const now = clock();
      if (!book.missingPeriods(accountId, now)) return now;
      if (moved.moved) await mutex.run(() => loadNow(accountId, moved, now));
      else await loadGathered(accountId);
    }
  };

  const refuse = (req: AdmissionRequest, why: Refusal): Outcome => {
    decided[why].inc();
    return { requestId: req.requestId, decision: why, at: 0 };
  };

  const { leaseMs, leaseMetrics } = deps;
  const streams = new Map<number, AdmissionStream>();
  let streamIds = 0;
  /** Refusals waiting for a lease on their account to come back, by account. */
  const parked = new Map<string, (() => void)[]>();

  const recall = (accountId: string, stream: AdmissionStream, now: number) => {
    const r = book.askedOn(accountId, stream.id, now, leaseMs);
    if (!r) return;
    leaseMetrics.recalled.inc();
    streams.get(r.holder)?.recall([r.leaseId]);
  };

  /** Decided synchronously on `now`: nothing can interleave between reading and updating. */
  const decideNow = (req: AdmissionRequest, now: number): Outcome => {
    const decision = book.admit(req.requestId, req.accountId, req.caps, now, req.via);
    decided[decision === 'duplicate' ? 'duplicate' : decision.kind].inc();
    return { requestId: req.requestId, decision, at: now };
  };

  /**
   * A lease for the stream with this admitted outcome, if its request wanted one and the book grants it.
   * Given with the last admission of the account in a message, answered at once: the requests before it
   * are in the grant's counts, none after it in the same message is left to the lease, and every LEASED
   * answer decided later reaches the gateway after it.
   */
  const maybeGrant = (req: AdmissionRequest, outcome: Outcome, stream: AdmissionStream) => {
    const d = outcome.decision;
    if (leaseMs === 0 || !req.wantLease || typeof d !== 'object' || d.kind !== 'admitted') return;
    const lease = book.grant(req.accountId, req.caps, stream.id, outcome.at, leaseMs);
    if (!lease) return;
    outcome.lease = lease;
    leaseMetrics.granted(lease.allotment);
  };

  const afterLease = (accountId: string): Promise<void> =>
    new Promise((resolve) => {
      const list = parked.get(accountId) ?? [];
      parked.set(accountId, list);
      const wake = () => {
        clearTimeout(timer);
        const i = list.indexOf(wake);
        if (i >= 0) list.splice(i, 1);
        if (list.length === 0 && parked.get(accountId) === list) parked.delete(accountId);
        resolve();
      };
      const timer = setTimeout(wake, leaseMs + 50);
      list.push(wake);
    });

  /**
   * One admitter per account at a time: while a live lease on it is out, its holder's requests are the
   * holder's to decide, and any other stream's wait for the lease to come back (recalled) or to expire.
   */
  const decideLoaded = async (
    req: AdmissionRequest,
    moved: Moved,
    stream: AdmissionStream,
    answer: (outcomes: Outcome[]) => void,
    waited = false,
  ): Promise<Outcome | null> => {
    await loaded(req.accountId, moved);
    const now = clock();
    if (book.missingPeriods(req.accountId, now)) return decideLoaded(req, moved, stream, answer, waited);
    const holder = book.liveLeaseHolder(req.accountId, now);
    if (holder === stream.id && req.wantLease) return refuse(req, 'leased');
    if (holder !== null && holder !== stream.id && !waited) {
      await afterLease(req.accountId);
      return decideLoaded(req, moved, stream, answer, true);
    }
    // The map may have changed while the account loaded (a relief that ended hands over what it held).
    const own = deps.ownership(req.accountId);
    if (own.kind !== 'owner') return refuse(req, own.kind);
    const outcome = decideNow(req, now);
    // A stopping shard (`stopAdmitting`) has recalled its leases or is recalling them: none goes out now.
    if (!req.wantLease || stopped) return outcome;
    // A grant is answered at once, alone (null: answered), not with its group of loads when the last of
    // them ends: a LEASED answer decided after the grant, in this group or on a batch since, must never
    // reach the gateway before it. Left to the group, an account's first request went without a lease and
    // its second waited for the shard too (6.5% of `make bench`'s pool of fresh accounts; 7 December 2026).
    maybeGrant(req, outcome, stream);
    if (outcome.lease === undefined) return outcome;
    answer([outcome]);
    return null;
  };

  const decideBatch = (
    requests: AdmissionRequest[],
    answer: (outcomes: Outcome[]) => void,
    stream: AdmissionStream,
  ) => {
    const now = clock();
    const ready: Outcome[] = [];
    const later: Promise<Outcome | null>[] = [];
    const lastWanting = new Map<string, { req: AdmissionRequest; outcome: Outcome }>();
    for (let req of requests) {
      if (!req.requestId || !req.accountId) {
        ready.push(refuse(req, 'unavailable'));
        continue;
      }
      const own = deps.ownership(req.accountId);
      if (own.kind !== 'owner') {
        // Sent here for its restarting shard, which this shard does not relieve (it did not hand over):
        // nobody admits it now, and no gateway is astray.
        ready.push(refuse(req, own.kind === 'not_owner' && req.relief ? 'unavailable' : own.kind));
        continue;
      }
      // A relief ends while its process runs on: nothing of it is out on a lease then.
      if (own.relief && req.wantLease) req = { ...req, wantLease: false };
      if (leaseMs > 0) recall(req.accountId, stream, now);
      const holder = book.liveLeaseHolder(req.accountId, now);
      // Sent before its gateway knew of the lease it now holds: the gateway decides it under the lease.
      // (A request sent again after that gateway gave its lease back does not want one: decided here.)
      if (holder === stream.id && req.wantLease) {
        ready.push(refuse(req, 'leased'));
        continue;
      }
      if ((holder === null || holder === stream.id) && !book.missingPeriods(req.accountId, now)) {
        const outcome = decideNow(req, now);
        ready.push(outcome);
        if (req.wantLease) lastWanting.set(req.accountId, { req, outcome });
        continue;
      }
      later.push(
        inSpan(
          deps.tracer,
          'ledger.admit',
          {
            kind: SpanKind.SERVER,
            parent: requestTraceContext(req.traceparent, req.requestId),
          },
          () => decideLoaded(req, own, stream, answer),
        ).catch((err) => {
          logger.warn({ err: (err as Error).message }, 'admission failed');
          return refuse(req, 'unavailable');
        }),
      );
    }
    for (const { req, outcome } of lastWanting.values()) maybeGrant(req, outcome, stream);
    if (ready.length > 0) answer(ready);
    if (later.length > 0)
      void Promise.all(later).then((outcomes) => {
        const rest = outcomes.filter((o) => o !== null);
        if (rest.length > 0) answer(rest);
      });
  };

  /**
   * Holds again the requests a gateway was told were admitted and has not settled (this shard may have
   * restarted and lost them). Under the consumer's mutex, so that a settlement is either recorded before
   * (and the request is dropped here) or applied after (and releases the restored hold).
   */
  const restoreNow = (holds: HeldRequest[]): Promise<void> =>
    mutex.run(async () => {
      const valid = holds.filter((h) => deps.ownership(h.accountId).kind === 'owner');
      const now = clock();
      const accounts = [...new Set(valid.map((h) => h.accountId))];
      for (const accountId of accounts) {
        const moved = movedNow(accountId);
        if (moved.moved) await loadNow(accountId, moved, now);
      }
      await loadAll(accounts, now);
      const settled = await store.settled(
        valid.map((h) => ({ requestId: h.requestId, accountId: h.accountId, admittedAtMs: h.admittedAt })),
      );
      const at = clock();
      for (const h of valid) {
        if (settled.has(settledKey(h.requestId, h.accountId))) {
          // Settled, yet still an admission of the last minute for the burst window.
          book.admittedEarlier(h.requestId, h.accountId, h.admittedAt, at);
          restoredHolds.inc({ outcome: 'settled' });
        } else if (book.restore(h.requestId, h.accountId, h.admittedAt, at, h.via))
          restoredHolds.inc({ outcome: 'restored' });
        else restoredHolds.inc({ outcome: 'skipped' });
      }
    });

  /**
   * A request no longer held may have its charge recorded already: the log says, read under the
   * consumer's mutex so that no batch records its charge or void meanwhile. Rare: only charges JetStream
   * did not acknowledge in time.
   */
  const withdrawNow = async (voids: HeldRequest[]): Promise<void> => {
    const now = clock();
    const unheld = voids.filter((v) => !book.withdraw(v.requestId, v.accountId, v.admittedAt, now, v.via));
    withdrawals.inc({ found: 'held' }, voids.length - unheld.length);
    if (unheld.length === 0) return;
    try {
      await mutex.run(async () => {
        const recorded = await store.chargedNotVoided(
          unheld.map((v) => ({ requestId: v.requestId, accountId: v.accountId, admittedAtMs: v.admittedAt })),
        );
        const at = clock();
        for (const v of unheld) {
          const found = recorded.has(settledKey(v.requestId, v.accountId));
          if (found) book.withholdCharge(v.requestId, v.accountId, v.admittedAt, at, v.via);
          withdrawals.inc({ found: found ? 'recorded' : 'none' });
        }
      });
    } catch (err) {
      // The charge counts until its void is recorded, as it did before gateways said anything.
      withdrawals.inc({ found: 'failed' }, unheld.length);
      logger.warn({ err: (err as Error).message }, 'could not read the log for voided requests');
    }
  };

  /** Restores not finished yet: what follows waits for them, so none is decided without the holds. */
  let restoresPending = 0;
  let restoring: Promise<void> = Promise.resolve();
  const afterRestores = (work: () => void) => {
    if (restoresPending > 0) void restoring.then(work);
    else work();
  };

  let stopped = false;
  const wakeParked = (accountId: string) => {
    for (const wake of [...(parked.get(accountId) ?? [])]) wake();
  };

  return {
    admit: (requests, answer, stream) => {
      if (requests.length === 0) return;
      if (!deps.caughtUp() || stopped) return answer(requests.map((r) => refuse(r, 'unavailable')));
      afterRestores(() => decideBatch(requests, answer, stream));
    },
    openStream: (recallOn) => {
      const stream = { id: ++streamIds, recall: recallOn };
      streams.set(stream.id, stream);
      return stream;
    },
    closeStream: (stream) => {
      // Its leases are not taken back: their holder may still be admitting on them (the stream may have
      // broken on this side only). They are written off once their expiry is recorded (`AccountBook.sweep`).
      streams.delete(stream.id);
    },
    returnLeases: (stream, returns) =>
      afterRestores(() => {
        const now = clock();
        for (const r of returns) {
          const back = book.returnLease(r.accountId, stream.id, r.leaseId, r.admitted, now, r.from);
          if (back) leaseMetrics.returned(back.used, back.allotment);
          wakeParked(r.accountId);
        }
      }),
    extendLeases: (stream, requests, answer) =>
      afterRestores(() => {
        const now = clock();
        answer(
          requests.map((r) => {
            const report = book.takeReport(r.accountId, stream.id, r.leaseId, r.reportedFrom, r.reported);
            if (report) leaseMetrics.reported(report.taken);
            const terms = stopped
              ? null
              : book.extendLease(r.accountId, stream.id, r.leaseId, r.used, now, leaseMs);
            if (terms) leaseMetrics.extended(terms.added);
            return {
              leaseId: r.leaseId,
              allotment: terms?.allotment ?? 0,
              extendedAt: now,
              expiresAt: terms?.expiresAt ?? 0,
              reportedThrough: report?.through ?? 0,
            };
          }),
        );
      }),
    stopAdmitting: () => {
      stopped = true;
    },
    recallAll: async (ms) => {
      const until = clock() + ms;
      for (const [holder, leaseIds] of book.leasesByHolder()) {
        for (const _ of leaseIds) leaseMetrics.recalled.inc();
        streams.get(holder)?.recall(leaseIds);
      }
      // A lease that expired may still come back (its holder's return crossed the recall, or waits behind
      // a restore): only one whose stream is gone cannot, and the hand-over needs every lease back.
      const outstanding = () =>
        book.leasesOutLive(clock()) > 0 || [...book.leasesByHolder().keys()].some((h) => streams.has(h));
      while (outstanding() && clock() < until) await new Promise((r) => setTimeout(r, 10));
    },
    restore: (holds) => {
      if (holds.length === 0) return;
      restoresPending++;
      const done = restoreNow(holds)
        .catch((err) => logger.warn({ err: (err as Error).message }, 'could not restore holds'))
        .finally(() => restoresPending--);
      restoring = restoring.then(() => done);
    },
    release: (requests, done) =>
      afterRestores(() => {
        for (const r of requests) book.release(r.requestId, r.accountId);
        done();
      }),
    withdraw: (voids, done) => afterRestores(() => void withdrawNow(voids).finally(done)),
    answers: (accountId) =>
      !deps.caughtUp() ? 'catching_up' : deps.ownership(accountId).kind === 'owner' ? 'yes' : 'not_owner',
    usage: async (accountId, charges) => {
      // Charges of 200s admitted under a lease are held by nobody here: read-your-writes waits until
      // what the stream held at the read is recorded. The lease's holder says where its own charges are:
      // every other admission of the account is held here (those of a lease returned before, too).
      const leaseId = book.leaseOut(accountId);
      const named = leaseId !== null && charges?.leaseId === leaseId ? charges.charged : null;
      const wait = leaseId === null ? 'none' : named ? 'lease' : 'stream';
      try {
        if (named) await deps.recordedTo(named, RECORDED_PAST_WAIT_MS);
        else if (leaseId !== null) await deps.recordedPast(RECORDED_PAST_WAIT_MS);
      } catch (err) {
        usageReads.inc({ wait, outcome: 'lagging' });
        logger.warn({ err: (err as Error).message, wait }, 'usage read of a leased account: recording lags');
        return null;
      }
      usageReads.inc({ wait, outcome: 'answered' });
      const now = await loaded(accountId);
      return { now, ...book.usage(accountId, now) };
    },
    history: (accountId, w) => store.history(accountId, w),
  };
}
