import type { ServerDuplexStream } from '@grpc/grpc-js';
import { GrpcServer, type GrpcServerOptions, jsonDocument, RpcError, status } from '@mdp/grpc';
import { type Clock, istDay, istMonth, istNextDayStart, istNextMonthStart } from '@mdp/ist-time';
import { ledger } from '@mdp/proto';
import { Counter, extractTraceContext, Gauge, inSpan, SpanKind } from '@mdp/telemetry';
import { type AccountBook, type ByInterface, interfaceOf } from './domain/account-book.ts';
import { BURST_WINDOW_MS, type Caps, type Decision } from './domain/admission.ts';
import type { Ownership } from './domain/shard-map.ts';
import type { Mutex } from './mutex.ts';
import { type ProjectionStore, settledKey } from './projections.ts';
import { historyWindow, usageHistoryDocument } from './usage-history.ts';

export interface LedgerDeps extends GrpcServerOptions {
  book: AccountBook;
  store: ProjectionStore;
  mutex: Mutex;
  clock: Clock;
  /** False until the settlement consumer has caught up: nothing is decided or reported before. */
  caughtUp: () => boolean;
  /**
   * Whether this shard may admit the account now (`ShardMap.ownership`): not when another shard owns it
   * under this shard's map (a gateway with another map would otherwise have two shards admit one
   * account), nor while it moves here from another shard.
   */
  ownership: (accountId: string) => Ownership;
}

const D = ledger.AdmitDecision;

function capsOf(account: ledger.Account): Caps {
  return {
    daily: account.daily_cap ?? null,
    monthly: account.monthly_cap ?? null,
    burst: account.burst_per_minute ?? null,
  };
}

/** As settlement events bound it: an account id longer than this has no events. */
const MAX_ACCOUNT_ID_LENGTH = 128;

/** Asked about an account this shard may not answer for now: another's, or one moving here. */
const notOwner = () =>
  new RpcError(status.UNAVAILABLE, 'this ledger shard does not answer for the account now');

const isoSeconds = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

/**
 * The event-sourced usage ledger of one shard: admission over a stream, the usage document, and the
 * usage history.
 */
export function buildApp(deps: LedgerDeps): GrpcServer {
  const { book, store, mutex, clock, logger } = deps;
  const admissions = new Counter({
    name: 'ledger_admissions_total',
    help: 'Admission decisions: admitted, rate_limited, quota_exhausted, duplicate, unavailable, not_owner (an account of another shard: the gateway has another shard map), handoff (an account moving here while the shard count changes)',
    labelNames: ['decision'] as const,
    registers: [deps.registry],
  });
  // Every decision is a series from the start, so a rate over a rare one reads 0, not nothing.
  for (const decision of [
    'admitted',
    'rate_limited',
    'quota_exhausted',
    'duplicate',
    'unavailable',
    'not_owner',
    'handoff',
  ])
    admissions.inc({ decision }, 0);
  new Gauge({
    name: 'ledger_holds_in_flight',
    help: 'Admitted requests not yet settled',
    registers: [deps.registry],
    collect() {
      this.set(book.inFlight);
    },
  });

  /**
   * Makes sure the account's counts for the current IST day and month are in memory. An account that has
   * just moved here (`moved`) also brings its burst window: its previous owner's admissions of the last
   * minute, from the log.
   */
  const ensureLoaded = async (accountId: string, moved = false): Promise<number> => {
    for (;;) {
      const now = clock();
      const missing = book.missingPeriods(accountId, now);
      if (!missing) return now;
      await mutex.run(async () => {
        if (!book.missingPeriods(accountId, now)) return;
        if (moved && !book.seeded(accountId))
          book.seedBurst(accountId, await store.accountAdmittedSince(accountId, now - BURST_WINDOW_MS), now);
        const charged = await store.charged(accountId, missing.day, missing.month);
        book.loaded(
          accountId,
          { day: missing.day, dayCharged: charged.day, month: missing.month, monthCharged: charged.month },
          now,
        );
      });
    }
  };

  const respond = (
    requestId: string,
    decision: Decision | 'duplicate',
    admittedAt: number,
  ): ledger.AdmissionResult => {
    if (decision === 'duplicate') {
      return {
        request_id: requestId,
        decision: D.ADMIT_DECISION_DUPLICATE,
        rate_limit: undefined,
        retry_after_seconds: 0,
        admitted_at_ms: admittedAt,
        burst: undefined,
      };
    }
    const { limit, remaining, resetUnix, policy } = decision.rateLimit;
    return {
      request_id: requestId,
      decision:
        decision.kind === 'admitted'
          ? D.ADMIT_DECISION_ADMITTED
          : decision.kind === 'rate_limited'
            ? D.ADMIT_DECISION_RATE_LIMITED
            : D.ADMIT_DECISION_QUOTA_EXHAUSTED,
      rate_limit: {
        limit: limit ?? undefined,
        remaining: remaining ?? undefined,
        reset_unix: resetUnix,
        policy: policy ?? '',
      },
      retry_after_seconds: decision.kind === 'admitted' ? 0 : decision.retryAfterSeconds,
      admitted_at_ms: admittedAt,
      burst: decision.burst
        ? {
            limit: decision.burst.limit,
            remaining: decision.burst.remaining,
            reset_seconds: decision.burst.resetSeconds,
          }
        : undefined,
    };
  };

  const admitOne = (req: ledger.Admission, moved: boolean): Promise<ledger.AdmissionResult> =>
    inSpan(
      deps.tracer,
      'ledger.admit',
      { kind: SpanKind.SERVER, parent: extractTraceContext({ traceparent: req.traceparent }) },
      () => decideOne(req, moved),
    );

  const decideOne = async (req: ledger.Admission, moved: boolean): Promise<ledger.AdmissionResult> => {
    const account = req.account;
    if (!account || !req.request_id)
      throw RpcError.invalidArgument('account', 'admission needs a request id and an account');
    await ensureLoaded(account.account_id, moved);
    // Decided synchronously on the current time: nothing can interleave between reading and updating.
    const now = clock();
    if (book.missingPeriods(account.account_id, now)) return decideOne(req, moved);
    return decideNow(req, account, now);
  };

  function decideNow(req: ledger.Admission, account: ledger.Account, now: number): ledger.AdmissionResult {
    const decision = book.admit(
      req.request_id,
      account.account_id,
      capsOf(account),
      now,
      interfaceOf(req.interface),
    );
    admissions.inc({ decision: decision === 'duplicate' ? 'duplicate' : decision.kind });
    return respond(req.request_id, decision, now);
  }

  const unavailable = (
    req: ledger.Admission,
    why: 'unavailable' | 'not_owner' | 'handoff' = 'unavailable',
  ): ledger.AdmissionResult => {
    admissions.inc({ decision: why });
    return {
      request_id: req.request_id,
      decision: D.ADMIT_DECISION_UNSPECIFIED,
      rate_limit: undefined,
      retry_after_seconds: 0,
      admitted_at_ms: 0,
      burst: undefined,
    };
  };

  const restoredHolds = new Counter({
    name: 'ledger_holds_restored_total',
    help: 'Holds gateways sent again on a new stream: restored, settled (already recorded), skipped (held or expired)',
    labelNames: ['outcome'] as const,
    registers: [deps.registry],
  });

  /**
   * Holds again the requests a gateway was told were admitted and has not settled (this shard may have
   * restarted and lost them). Under the consumer's mutex, so that a settlement is either recorded before
   * (and the request is dropped here) or applied after (and releases the restored hold).
   */
  const restore = (holds: ledger.RestoredHold[]): Promise<void> =>
    mutex.run(async () => {
      const valid = holds.filter(
        (h): h is ledger.RestoredHold & { account: ledger.Account } =>
          !!h.request_id && !!h.account && deps.ownership(h.account.account_id).kind === 'owner',
      );
      const now = clock();
      for (const accountId of new Set(valid.map((h) => h.account.account_id))) {
        const missing = book.missingPeriods(accountId, now);
        if (!missing) continue;
        const charged = await store.charged(accountId, missing.day, missing.month);
        book.loaded(
          accountId,
          { day: missing.day, dayCharged: charged.day, month: missing.month, monthCharged: charged.month },
          now,
        );
      }
      const settled = await store.settled(
        valid.map((h) => ({
          requestId: h.request_id,
          accountId: h.account.account_id,
          admittedAtMs: h.admitted_at_ms,
        })),
      );
      const at = clock();
      for (const h of valid) {
        if (settled.has(settledKey(h.request_id, h.account.account_id))) {
          // Settled, yet still an admission of the last minute for the burst window.
          book.admittedEarlier(h.request_id, h.account.account_id, h.admitted_at_ms, at);
          restoredHolds.inc({ outcome: 'settled' });
        } else if (
          book.restore(h.request_id, h.account.account_id, h.admitted_at_ms, at, interfaceOf(h.interface))
        )
          restoredHolds.inc({ outcome: 'restored' });
        else restoredHolds.inc({ outcome: 'skipped' });
      }
    });
  const withdrawals = new Counter({
    name: 'ledger_voids_withdrawn_total',
    help: 'Charges gateways are voiding (not acknowledged in time), as the shard found them: held (not recorded yet), recorded (taken off usage until the void), none (not held, nothing recorded), failed (the log could not be read)',
    labelNames: ['found'] as const,
    registers: [deps.registry],
  });

  /**
   * Withdraws requests whose charge a gateway is voiding (see `AccountBook.withdraw`). A request no longer
   * held may have its charge recorded already: the log says, read under the consumer's mutex so that no
   * batch records its charge or void meanwhile. Rare: only charges JetStream did not acknowledge in time.
   */
  const withdraw = async (voids: ledger.VoidedRequest[]): Promise<void> => {
    const now = clock();
    const unheld = voids.filter(
      (v) =>
        !!v.request_id &&
        !book.withdraw(v.request_id, v.account_id, v.admitted_at_ms, now, interfaceOf(v.interface)),
    );
    withdrawals.inc({ found: 'held' }, voids.length - unheld.length);
    if (unheld.length === 0) return;
    try {
      await mutex.run(async () => {
        const recorded = await store.chargedNotVoided(
          unheld.map((v) => ({
            requestId: v.request_id,
            accountId: v.account_id,
            admittedAtMs: v.admitted_at_ms,
          })),
        );
        const at = clock();
        for (const v of unheld) {
          const found = recorded.has(settledKey(v.request_id, v.account_id));
          if (found)
            book.withholdCharge(v.request_id, v.account_id, v.admitted_at_ms, at, interfaceOf(v.interface));
          withdrawals.inc({ found: found ? 'recorded' : 'none' });
        }
      });
    } catch (err) {
      // The charge counts until its void is recorded, as it did before gateways said anything.
      withdrawals.inc({ found: 'failed' }, unheld.length);
      logger.warn({ err: (err as Error).message }, 'could not read the log for voided requests');
    }
  };

  /** Restores not finished yet: admissions wait for them, so that none is decided without the holds. */
  let restoresPending = 0;
  let restoring: Promise<void> = Promise.resolve();

  /**
   * One batch in, answers out: every request whose account is in memory is decided at once and
   * answered in one message; the rest answer when their account has loaded.
   */
  const admit = (call: ServerDuplexStream<ledger.AdmitRequest, ledger.AdmitResponse>) => {
    call.on('data', (batch: ledger.AdmitRequest) => {
      if (batch.restored.length > 0) {
        restoresPending++;
        const done = restore(batch.restored)
          .catch((err) => logger.warn({ err: (err as Error).message }, 'could not restore holds'))
          .finally(() => restoresPending--);
        restoring = restoring.then(() => done);
      }
      if (batch.releases.length > 0) {
        // After any restore in progress, so that a hold restored late cannot outlive its release.
        const release = () => {
          for (const r of batch.releases) book.release(r.request_id, r.account_id);
          call.write({ results: [], released: batch.releases.map((r) => r.request_id) });
        };
        if (restoresPending > 0) void restoring.then(release);
        else release();
      }
      if (batch.voids.length > 0) {
        // After any restore in progress, as a release.
        const apply = () =>
          withdraw(batch.voids).finally(() =>
            call.write({ results: [], released: batch.voids.map((v) => v.request_id) }),
          );
        if (restoresPending > 0) void restoring.then(apply);
        else void apply();
      }
      if (batch.admissions.length === 0) return;
      if (!deps.caughtUp())
        return void call.write({ results: batch.admissions.map((a) => unavailable(a)), released: [] });
      if (restoresPending > 0) void restoring.then(() => decideBatch(call, batch.admissions));
      else decideBatch(call, batch.admissions);
    });
    call.on('end', () => call.end());
    call.on('error', () => {});
  };

  function decideBatch(
    call: ServerDuplexStream<ledger.AdmitRequest, ledger.AdmitResponse>,
    admissions: ledger.Admission[],
  ): void {
    const now = clock();
    const ready: ledger.AdmissionResult[] = [];
    const later: Promise<ledger.AdmissionResult>[] = [];
    for (const req of admissions) {
      const own = req.account ? deps.ownership(req.account.account_id) : null;
      if (own && own.kind !== 'owner') {
        ready.push(unavailable(req, own.kind));
      } else if (req.account && !book.missingPeriods(req.account.account_id, now)) {
        ready.push(decideNow(req, req.account, now));
      } else {
        later.push(
          admitOne(req, own?.moved ?? false).catch((err) => {
            logger.warn({ err: (err as Error).message }, 'admission failed');
            return unavailable(req);
          }),
        );
      }
    }
    if (ready.length > 0) call.write({ results: ready, released: [] });
    if (later.length > 0) void Promise.all(later).then((results) => call.write({ results, released: [] }));
  }

  return new GrpcServer(deps).add(ledger.QuotaLedgerServiceService, {
    admit,
    getUsage: async ({ account }) => {
      if (!account) throw RpcError.invalidArgument('account', 'usage needs an account');
      if (!deps.caughtUp())
        throw new RpcError(status.UNAVAILABLE, 'the ledger shard is catching up with its stream');
      if (deps.ownership(account.account_id).kind !== 'owner') throw notOwner();
      const now = await ensureLoaded(account.account_id);
      const caps = capsOf(account);
      const { used, byInterface } = book.usage(account.account_id, now);
      const window = (
        period: string,
        used: number,
        by: ByInterface,
        limit: number | null,
        resetsAt: number,
      ) => ({
        period,
        used,
        limit,
        remaining: limit === null ? null : Math.max(0, limit - used),
        resets_at: isoSeconds(resetsAt),
        by_interface: by,
      });
      return jsonDocument({
        plan: account.plan,
        day: window(istDay(now), used.day, byInterface.day, caps.daily, istNextDayStart(now)),
        month: window(istMonth(now), used.month, byInterface.month, caps.monthly, istNextMonthStart(now)),
      });
    },
    /**
     * The account site's charts, read from the recorded events and their projections, not from the
     * book. Once the consumer has caught up, today's `days` entry equals getUsage's `day.used` minus the
     * requests still in flight (held, not settled yet); otherwise the history trails the in-memory book
     * by the consumer's lag. The page takes its headline figures from getUsage.
     */
    getUsageHistory: async ({ account_id }) => {
      if (!account_id || account_id.length > MAX_ACCOUNT_ID_LENGTH)
        throw RpcError.invalidArgument(
          'account_id',
          `usage history needs an account id of 1 to ${MAX_ACCOUNT_ID_LENGTH} characters`,
        );
      // Before catching up, the log lacks what is still in the stream: the history would under-count.
      // The log is shared by every shard, but only the owner's consumer records this account's events;
      // the gateway routes by account, so the owner answers and its catching up is the one that counts.
      if (!deps.caughtUp())
        throw new RpcError(status.UNAVAILABLE, 'the ledger shard is catching up with its stream');
      if (deps.ownership(account_id).kind !== 'owner') throw notOwner();
      const w = historyWindow(clock);
      return jsonDocument(usageHistoryDocument(w, await store.history(account_id, w)));
    },
  });
}
