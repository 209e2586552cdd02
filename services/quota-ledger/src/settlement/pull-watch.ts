/** What JetStream says of a durable consumer at one look, and what this process received since the last. */
export interface PullLook {
  /** Messages of the stream for the consumer not delivered yet. */
  pending: number;
  /** Delivered and not acknowledged. */
  ackPending: number;
  /** Messages this process received since the previous look. */
  received: number;
}

/**
 * Whether a consumer's pull is lost: JetStream held undelivered messages for it at the last look and
 * still does, it was free to deliver them (under its max_ack_pending), and none came in between. A pull
 * that is there is answered within milliseconds, so a whole interval of nothing is not load; nats.js's
 * `consume()` can be left waiting for a pull the servers dropped (a stream leader lost while its own
 * recovery was backing off: recording stopped for good in a three-server chaos run, 30 November 2026).
 * Pure: the consumer feeds it a look every interval and pulls again when it says so.
 */
export class PullWatch {
  private pendingBefore = 0;

  constructor(private readonly maxAckPending: number) {}

  lost(look: PullLook): boolean {
    const lost =
      this.pendingBefore > 0 &&
      look.pending > 0 &&
      look.received === 0 &&
      look.ackPending < this.maxAckPending;
    // After a new pull, the interval starts again.
    this.pendingBefore = lost ? 0 : look.pending;
    return lost;
  }
}

/**
 * When, after a pull made again for a consumer's new leader, the consumer looks whether that leader holds
 * it (ms after the pull, or after the pull made again at the previous look). The pull can reach the
 * servers before the new leader takes pulls (its interest not yet known where the pull arrived, which
 * drops it or answers "no responders"): nats.js's `consume()` says nothing of that and waits for two
 * missed heartbeats, a whole pull's life, while the shard records nothing. Seen once in a loaded
 * clean-clone CI run (3 December 2026): a stepdown's pull made again was never held.
 */
export const HELD_LOOKS_MS: readonly number[] = [250, 500, 1_000, 2_000, 4_000];

/** Whether the consumer's leader holds this process's pull: it has one waiting, or delivered since the pull. */
export function pullHeld(look: { waiting: number; received: number }): boolean {
  return look.waiting > 0 || look.received > 0;
}

/** What the looks after a leader move need of the consumer, its process and the clock. */
export interface HeldLooks {
  /** Resolves after `ms`. */
  sleep(ms: number): Promise<void>;
  /** The consumer's pulls waiting at its leader, and who leads it; null when JetStream does not say (an election). */
  look(): Promise<{ waiting: number; leader: string | undefined } | null>;
  /** Messages this process has received so far: a running total. */
  received(): number;
  /** False once this move's looks are over: a newer move's replace them, or the consumer is being made again or stopped. */
  current(): boolean;
  /** Makes the pull again (the leader named, for the log) and resolves once it is made. */
  pullAgain(leader: string | undefined): Promise<void>;
}

/**
 * The looks after a leader move (`HELD_LOOKS_MS` apart): at each, the pull is made again while the leader
 * holds none of this process's pulls and nothing has come since the look before. 'held' once one is held,
 * 'replaced' when the move's looks are over first, 'unconfirmed' when every look found none (the lost-pull
 * watch, `PullWatch`, still looks every interval).
 */
export async function lookUntilHeld(
  looks: HeldLooks,
  waits: readonly number[] = HELD_LOOKS_MS,
): Promise<'held' | 'replaced' | 'unconfirmed'> {
  for (const wait of waits) {
    const since = looks.received();
    await looks.sleep(wait);
    // None during an election: looked at again next time.
    const seen = await looks.look();
    if (!looks.current()) return 'replaced';
    if (!seen) continue;
    if (pullHeld({ waiting: seen.waiting, received: looks.received() - since })) return 'held';
    await looks.pullAgain(seen.leader);
  }
  return 'unconfirmed';
}
