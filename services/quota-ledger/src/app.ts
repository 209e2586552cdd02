import type { ServerDuplexStream } from '@grpc/grpc-js';
import {
  admissionResult,
  type Caps,
  leasedAdmissionsOf,
  leaseExtensionMessage,
  leaseGrantMessage,
} from '@mdp/admission';
import { GrpcServer, type GrpcServerOptions, jsonDocument, Metadata, RpcError, status } from '@mdp/grpc';
import { type Clock, istDay, istMonth, istNextDayStart, istNextMonthStart } from '@mdp/nse-calendar';
import { ledger } from '@mdp/proto';
import { BATCH_VERSIONS_KEY, BATCH_VERSIONS_READ } from '@mdp/usage';
import { type ByInterface, interfaceOf } from './admission/account-book.ts';
import type { AdmissionRequest, HeldRequest, Outcome, Shard } from './admission/shard.ts';
import { historyWindow, usageHistoryDocument } from './log/usage-history.ts';

export interface LedgerDeps extends GrpcServerOptions {
  shard: Shard;
  clock: Clock;
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
/**
 * A lease's charges name one position per stream its charges went to: a shard's own, and the legacy
 * stream while one exists. Lease ids are the shard's own (`AccountBook.grant`), well under this.
 */
const MAX_LEASE_CHARGES = 8;
const MAX_LEASE_ID_LENGTH = 128;

const isoSeconds = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

const admissionOf = (a: ledger.Admission): AdmissionRequest => ({
  requestId: a.request_id,
  accountId: a.account?.account_id ?? '',
  caps: a.account ? capsOf(a.account) : { daily: 0, monthly: 0, burst: 0 },
  via: interfaceOf(a.interface),
  traceparent: a.traceparent,
  wantLease: a.want_lease,
  relief: a.relief,
});

const heldOf = (h: {
  request_id: string;
  account_id: string;
  admitted_at_ms: number;
  interface: string;
}): HeldRequest => ({
  requestId: h.request_id,
  accountId: h.account_id,
  admittedAt: h.admitted_at_ms,
  via: interfaceOf(h.interface),
});

/** An outcome as the gateway reads it; a refusal is no decision (the gateway answers 503, charges nothing). */
function resultOf({ requestId, decision, at, lease }: Outcome): ledger.AdmissionResult {
  const none = {
    request_id: requestId,
    rate_limit: undefined,
    retry_after_seconds: 0,
    burst: undefined,
    lease: undefined,
  };
  if (decision === 'leased') return { ...none, decision: D.ADMIT_DECISION_LEASED, admitted_at_ms: 0 };
  if (decision === 'unavailable' || decision === 'not_owner' || decision === 'handoff')
    return { ...none, decision: D.ADMIT_DECISION_UNSPECIFIED, admitted_at_ms: 0 };
  if (decision === 'duplicate') return { ...none, decision: D.ADMIT_DECISION_DUPLICATE, admitted_at_ms: at };
  const result = admissionResult(requestId, decision, at);
  if (lease) result.lease = leaseGrantMessage(lease);
  return result;
}

/** Why this shard does not answer for an account now, as a gRPC error; null when it does. */
function notAnswering(shard: Shard, accountId: string): RpcError | null {
  switch (shard.answers(accountId)) {
    case 'catching_up':
      return new RpcError(status.UNAVAILABLE, 'the ledger shard is catching up with its stream');
    case 'not_owner':
      return new RpcError(status.UNAVAILABLE, 'this ledger shard does not answer for the account now');
    default:
      return null;
  }
}

/**
 * The usage ledger of one shard over gRPC: the admission stream, the usage document and the usage
 * history, each message mapped onto the shard (shard.ts) and its answers back.
 */
export function buildApp(deps: LedgerDeps): GrpcServer {
  const { shard, clock } = deps;

  /**
   * One batch in, answers out: the restores first, then lease returns and extensions (with their
   * reports), then releases and voids (each acknowledged by request id), then the admissions: those whose account is in memory answered in one message, the rest when
   * their account has loaded.
   */
  const admit = (call: ServerDuplexStream<ledger.AdmitRequest, ledger.AdmitResponse>) => {
    // Said first: this process reads compact settlement batches, so the gateway may write them to the
    // stream of the shard it runs (an older ledger says nothing, and gets version 1).
    const versions = new Metadata();
    versions.set(BATCH_VERSIONS_KEY, BATCH_VERSIONS_READ);
    call.sendMetadata(versions);
    const stream = shard.openStream((recalls) =>
      call.write({ results: [], released: [], recalls, extensions: [] }),
    );
    call.on('data', (batch: ledger.AdmitRequest) => {
      shard.restore(
        batch.restored
          .filter((h) => !!h.request_id && !!h.account)
          .map((h) => heldOf({ ...h, account_id: h.account!.account_id })),
      );
      // Leases and their reports first: a release or void in the same message may be of an admission
      // they carry (refunded after the gateway queued them), which the shard then holds to release.
      if (batch.lease_returns.length > 0)
        shard.returnLeases(
          stream,
          batch.lease_returns.map((r) => ({
            leaseId: r.lease_id,
            accountId: r.account_id,
            from: r.admitted_from,
            admitted: leasedAdmissionsOf(r.admitted),
          })),
        );
      if (batch.lease_extensions.length > 0)
        shard.extendLeases(
          stream,
          batch.lease_extensions.map((e) => ({
            leaseId: e.lease_id,
            accountId: e.account_id,
            used: e.used,
            reportedFrom: e.reported_from,
            reported: leasedAdmissionsOf(e.reported),
          })),
          (extended) =>
            call.write({
              results: [],
              released: [],
              recalls: [],
              extensions: extended.map(leaseExtensionMessage),
            }),
        );
      if (batch.releases.length > 0)
        shard.release(
          batch.releases.map((r) => ({ requestId: r.request_id, accountId: r.account_id })),
          () =>
            call.write({
              results: [],
              released: batch.releases.map((r) => r.request_id),
              recalls: [],
              extensions: [],
            }),
        );
      if (batch.voids.length > 0)
        shard.withdraw(batch.voids.filter((v) => !!v.request_id).map(heldOf), () =>
          call.write({
            results: [],
            released: batch.voids.map((v) => v.request_id),
            recalls: [],
            extensions: [],
          }),
        );
      shard.admit(
        batch.admissions.map(admissionOf),
        (outcomes) =>
          call.write({ results: outcomes.map(resultOf), released: [], recalls: [], extensions: [] }),
        stream,
      );
    });
    call.on('end', () => {
      shard.closeStream(stream);
      call.end();
    });
    call.on('error', () => shard.closeStream(stream));
  };

  return new GrpcServer(deps).add(ledger.QuotaLedgerServiceService, {
    admit,
    getUsage: async ({ account, lease_charges: charges }) => {
      if (!account) throw RpcError.invalidArgument('account', 'usage needs an account');
      if (
        charges &&
        (charges.lease_id.length > MAX_LEASE_ID_LENGTH || charges.charged.length > MAX_LEASE_CHARGES)
      )
        throw RpcError.invalidArgument(
          'lease_charges',
          `lease charges name a lease id of at most ${MAX_LEASE_ID_LENGTH} characters and at most ${MAX_LEASE_CHARGES} streams`,
        );
      const refused = notAnswering(shard, account.account_id);
      if (refused) throw refused;
      const usage = await shard.usage(
        account.account_id,
        charges && { leaseId: charges.lease_id, charged: charges.charged },
      );
      if (!usage) throw new RpcError(status.UNAVAILABLE, 'usage is not recorded up to the read yet');
      const { now, used, byInterface } = usage;
      const caps = capsOf(account);
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
     * by the consumer's lag. The page takes its headline figures from getUsage. Before catching up the
     * log lacks what is still in the stream, and only the owner's consumer records the account's events,
     * so only the owner answers, caught up.
     */
    getUsageHistory: async ({ account_id }) => {
      if (!account_id || account_id.length > MAX_ACCOUNT_ID_LENGTH)
        throw RpcError.invalidArgument(
          'account_id',
          `usage history needs an account id of 1 to ${MAX_ACCOUNT_ID_LENGTH} characters`,
        );
      const refused = notAnswering(shard, account_id);
      if (refused) throw refused;
      const w = historyWindow(clock);
      return jsonDocument(usageHistoryDocument(w, await shard.history(account_id, w)));
    },
  });
}
