import type { LeasedAdmission } from './lease.ts';

const OPEN = 0;
const CHARGED = 1;
const REFUNDED = 2;

/**
 * The admissions a lease holder made and the shard has not taken in, oldest first, kept column by
 * column: a request id, a time, a front door and a state a position. A lease on a plan with a burst cap
 * keeps every admission until it goes back (seconds), long enough to be moved out of V8's young
 * generation. Kept as an object each, with its time boxed, an admission held 72 bytes besides its
 * request id (a heap snapshot of a gateway serving 1,000 accounts, 6 December: 59,002 such objects);
 * in columns, about 32. The records the shard reads are made when it is sent them (`records`).
 */
export class LeaseAdmissions {
  private readonly ids: string[] = [];
  /** Unboxed: an array of doubles only. */
  private readonly times: number[] = [];
  private readonly vias: string[] = [];
  private readonly states: number[] = [];

  get length(): number {
    return this.ids.length;
  }

  push(requestId: string, at: number, via: string): void {
    this.ids.push(requestId);
    this.times.push(at);
    this.vias.push(via);
    this.states.push(OPEN);
  }

  /** The request id at position `i`. */
  id(i: number): string {
    return this.ids[i]!;
  }

  /** Whether the admission at `i` is in flight (not settled). */
  open(i: number): boolean {
    return this.states[i] === OPEN;
  }

  /** The admission at `i` settled: charged, or refunded (it ended without a 200, or its charge was voided). */
  settle(i: number, refunded: boolean): void {
    this.states[i] = refunded ? REFUNDED : CHARGED;
  }

  /** The admissions from `from` up to `to` (only those in flight: `inFlight`), as the shard reads them. */
  records(from = 0, to = this.ids.length, inFlight = false): LeasedAdmission[] {
    const out: LeasedAdmission[] = [];
    for (let i = from; i < to; i++)
      if (!inFlight || this.states[i] === OPEN)
        out.push({
          requestId: this.ids[i]!,
          at: this.times[i]!,
          via: this.vias[i]!,
          refunded: this.states[i] === REFUNDED,
        });
    return out;
  }

  /** Forgets the oldest `n`: the shard has taken them in. */
  dropOldest(n: number): void {
    this.ids.splice(0, n);
    this.times.splice(0, n);
    this.vias.splice(0, n);
    this.states.splice(0, n);
  }
}
