import { ledger } from '@mdp/proto';
import type { Decision } from './decide.ts';
import type { LeasedAdmission, LeaseGrant, LeaseReport, LeaseReturn } from './lease.ts';

/**
 * Decisions and leases as the admission stream carries them (proto/mdp/ledger/v1/ledger.proto), one
 * mapping for the shard that sends them and the gateway that reads them.
 */

const D = ledger.AdmitDecision;

/** A decision as an `AdmissionResult`: what the gateway turns into a 200's or a 429's headers. */
export function admissionResult(requestId: string, decision: Decision, at: number): ledger.AdmissionResult {
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
    admitted_at_ms: at,
    burst: decision.burst
      ? {
          limit: decision.burst.limit,
          remaining: decision.burst.remaining,
          reset_seconds: decision.burst.resetSeconds,
        }
      : undefined,
    lease: undefined,
  };
}

export const leaseGrantMessage = (g: LeaseGrant): ledger.LeaseGrant => ({
  lease_id: g.leaseId,
  day: g.day,
  month: g.month,
  burst_ms: [...g.burst],
  in_flight: g.inFlight.map((h) => ({ request_id: h.requestId, in_day: h.inDay, in_month: h.inMonth })),
  allotment: g.allotment,
  granted_at_ms: g.grantedAt,
  expires_at_ms: g.expiresAt,
});

/**
 * A grant as its holder keeps it, on the holder's clock: the lease lasts as long from `receivedAt` as it
 * was granted for, and the burst window's times move by the same offset, so clocks that differ between
 * machines neither lengthen a lease nor age its window.
 */
export function leaseGrantOf(m: ledger.LeaseGrant, caps: LeaseGrant['caps'], receivedAt: number): LeaseGrant {
  const shift = receivedAt - m.granted_at_ms;
  return {
    leaseId: m.lease_id,
    caps,
    day: m.day,
    month: m.month,
    burst: m.burst_ms.map((t) => t + shift),
    inFlight: m.in_flight.map((h) => ({ requestId: h.request_id, inDay: h.in_day, inMonth: h.in_month })),
    allotment: m.allotment,
    grantedAt: receivedAt,
    expiresAt: m.expires_at_ms + shift,
  };
}

const leasedAdmissionMessage = (a: LeasedAdmission): ledger.LeasedAdmission => ({
  request_id: a.requestId,
  at_ms: a.at,
  refunded: a.refunded,
  interface: a.via,
});

/** Admissions made under a lease as the shard takes them in, from a return or a report. */
export const leasedAdmissionsOf = (admitted: readonly ledger.LeasedAdmission[]): LeasedAdmission[] =>
  admitted.map((a) => ({ requestId: a.request_id, at: a.at_ms, refunded: a.refunded, via: a.interface }));

export const leaseReturnMessage = (accountId: string, r: LeaseReturn): ledger.LeaseReturn => ({
  lease_id: r.leaseId,
  account_id: accountId,
  admitted: r.admitted.map(leasedAdmissionMessage),
  admitted_from: r.from,
});

/** A request to extend a lease, with the admissions it reports (`LeaseHolder.report`), if any. */
export const leaseExtensionRequest = (
  accountId: string,
  leaseId: string,
  used: number,
  report: LeaseReport | undefined,
): ledger.LeaseExtensionRequest => ({
  lease_id: leaseId,
  account_id: accountId,
  used,
  reported_from: report?.from ?? 0,
  reported: report?.admissions.map(leasedAdmissionMessage) ?? [],
});

/**
 * A lease's terms after its holder asked for an extension (allotment 0: not extended), on the shard's
 * clock, and how many of its admissions the shard has taken in from reports.
 */
export interface LeaseExtensionTerms {
  leaseId: string;
  allotment: number;
  extendedAt: number;
  expiresAt: number;
  reportedThrough: number;
}

/** An extension's terms as the shard sends them. */
export const leaseExtensionMessage = (e: LeaseExtensionTerms): ledger.LeaseExtension => ({
  lease_id: e.leaseId,
  allotment: e.allotment,
  extended_at_ms: e.extendedAt,
  expires_at_ms: e.expiresAt,
  reported_through: e.reportedThrough,
});

/** A shard's extension of a lease, as its holder applies it: the new expiry on the holder's clock (see `leaseGrantOf`). */
export function leaseExtensionOf(
  m: ledger.LeaseExtension,
  receivedAt: number,
): { leaseId: string; allotment: number; expiresAt: number; reportedThrough: number } {
  return {
    leaseId: m.lease_id,
    allotment: m.allotment,
    expiresAt: m.expires_at_ms + (receivedAt - m.extended_at_ms),
    reportedThrough: m.reported_through,
  };
}
