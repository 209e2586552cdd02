import type { ledger } from '@mdp/proto';
import type { Span } from '@mdp/telemetry';
import type { Interface } from '@mdp/usage';
import type { Principal } from '../authenticator.ts';
import type { Admission, AdmissionClient } from './admission.ts';
import type { Settler } from './settlement.ts';

/**
 * Metering as every front door sees it: admit before the work, then say once how it ended, a 200 to
 * charge or a status to refund. Kept apart from HTTP so another front door (the companion tool server)
 * meters the same way. It tells the admission side itself what settled.
 */
export class Metering {
  constructor(
    private readonly admission: AdmissionClient,
    private readonly settler: Settler,
  ) {}

  /** `caller`'s usage can be read now (`Settler.readable`): while it cannot, reads say 503 as admission does. */
  readable(caller: Principal): Promise<boolean> {
    return this.settler.readable(this.admission.shardFor(caller));
  }

  /**
   * Admits or rejects with the 429/503 to answer; nothing is held on a rejection. While the caller's
   * settlement stream is unreachable nothing could be charged, so the 503 comes at once, before any
   * admission (the admission client is built with `Settler.available` as its `chargeable`).
   */
  admit(requestId: string, caller: Principal, via: Interface, span: Span | undefined): Promise<Admission> {
    return this.admission.admit(requestId, caller, via, span);
  }

  /**
   * The work produced a 200: resolves true once JetStream acknowledged its charge. False: the 200 must
   * not be sent (answer 503); its charge is voided, and its shard no longer counts it.
   */
  async charge(admission: Admission, route: string): Promise<boolean> {
    const ack = await this.settler.charge(admission, route);
    if (ack !== null) {
      // Before the 200 leaves: a usage read through here after it knows where its charge is.
      this.admission.settled(admission, ack);
      return true;
    }
    // Its charge may still land before the void the settler has queued: the shard counts neither.
    await this.admission.voidCharge(admission);
    return false;
  }

  /** The work ended in `status`, not a 200: resolves once its shard no longer counts it (bounded). */
  refund(admission: Admission, route: string, status: number): Promise<void> {
    this.settler.refund(admission, route, status);
    return this.admission.release(admission);
  }

  /** What this gateway's lease on the account has charged, for its usage read (`AdmissionClient`). */
  leaseCharges(accountId: string): ledger.LeaseCharges | undefined {
    return this.admission.leaseCharges(accountId);
  }

  close(): void {
    this.admission.close();
  }

  drain(ms: number): Promise<void> {
    return this.settler.drain(ms);
  }
}
