import { ApiError } from '@mdp/errors';
import type { Interface } from '@mdp/usage';
import type { Admission, AdmissionClient } from './admission.ts';
import type { Principal } from './authenticator.ts';
import type { Settler } from './settlement.ts';

/** Retry-After of a 503 for settlement being unreachable: a NATS client reconnects within a second or two. */
export const SETTLEMENT_RETRY_S = 2;

/**
 * Metering as the request pipeline sees it: admit before the work, then settle exactly once. Kept apart
 * from HTTP so another front door (the companion tool server) can meter the same way.
 */
export class Metering {
  constructor(
    private readonly admission: AdmissionClient,
    private readonly settler: Settler,
  ) {
    // A settled request no longer needs restoring on a restarted ledger shard.
    settler.onSettled((a) => admission.settled(a));
  }

  /**
   * Admits or throws the 429/503 to answer with; nothing is held on a throw. While the settlement
   * stream is unreachable nothing could be charged, so the 503 comes at once, before any admission.
   */
  admit(requestId: string, caller: Principal, via: Interface): Promise<Admission> {
    if (!this.settler.available) return Promise.reject(ApiError.serviceUnavailable(SETTLEMENT_RETRY_S));
    return this.admission.admit(requestId, caller, via);
  }

  /** Runs the admitted work and settles it: charged only if it produced a 200 whose charge JetStream acknowledged. */
  async settle<T>(
    admission: Admission,
    route: string,
    work: () => Promise<T>,
    statusOf: (err: unknown) => number,
  ): Promise<T> {
    let result: T;
    try {
      result = await work();
    } catch (err) {
      this.settler.refund(admission, route, statusOf(err));
      // Before the error goes out: usage read after it must not count it.
      await this.admission.release(admission);
      throw err;
    }
    if (!(await this.settler.charge(admission, route))) {
      // Its charge may still land before the void the settler has queued: the shard counts neither.
      await this.admission.voidCharge(admission);
      throw new ChargeNotConfirmed();
    }
    return result;
  }

  close(): void {
    this.admission.close();
  }

  drain(ms: number): Promise<void> {
    return this.settler.drain(ms);
  }
}

/** The 200 could not be charged durably, so it must not be sent (the charge is being voided). */
export class ChargeNotConfirmed extends Error {
  override name = 'ChargeNotConfirmed';
}
