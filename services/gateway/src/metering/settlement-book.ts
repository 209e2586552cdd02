import { MAX_BATCH_EVENTS, type SettlementEvent } from '@mdp/usage';

/**
 * The charges of one turn for one shard, MAX_BATCH_EVENTS at most: one message, one acknowledgement,
 * and one answer for all of them (`waiter`, the transport's: true, charged).
 */
export interface ChargeBatch<W> {
  readonly shard: number;
  readonly events: SettlementEvent[];
  /** When its 200s stop waiting for the acknowledgement (the first charge's: the earliest). */
  readonly deadline: number;
  readonly waiter: W;
}

/** How long a failed publish waits before the same message is sent again. */
export const RETRY_PAUSE_MS = 50;

/**
 * What the gateway knows of its charges on their way to JetStream, as events in and decisions out: no
 * socket, timer or promise, the time passed in. Charges of one turn for one shard share a batch; a
 * batch is answered once, acknowledged or failed (every charge of a failed one is then voided); a lost
 * connection fails at once every batch not answered, and nothing is charged until it is back.
 */
export class SettlementBook<W> {
  private connected = true;
  /** This turn's batches, published when the turn ends. */
  private turn: ChargeBatch<W>[] = [];
  /** The batch of this turn each shard's charges go into (until it is full). */
  private readonly filling = new Map<number, ChargeBatch<W>>();
  /** Batches not answered yet (this turn's, and those published and not acknowledged). */
  private readonly open = new Set<ChargeBatch<W>>();

  constructor(
    private readonly ackTimeoutMs: number,
    private readonly waiter: () => W,
  ) {}

  /** False while the connection is down: nothing can be charged, so nothing should be admitted. */
  get available(): boolean {
    return this.connected;
  }

  /**
   * A 200 to charge: the batch it joins, and whether it is this turn's first (the turn's end is then to
   * be scheduled). Null while the connection is down: answer 503 and void it.
   */
  charge(event: SettlementEvent, shard: number): { batch: ChargeBatch<W>; first: boolean } | null {
    if (!this.connected) return null;
    let batch = this.filling.get(shard);
    if (batch === undefined) {
      batch = { shard, events: [], deadline: event.settled_at_ms + this.ackTimeoutMs, waiter: this.waiter() };
      this.filling.set(shard, batch);
      this.turn.push(batch);
      this.open.add(batch);
    }
    batch.events.push(event);
    if (batch.events.length === MAX_BATCH_EVENTS) this.filling.delete(shard);
    return { batch, first: this.turn.length === 1 && batch.events.length === 1 };
  }

  /** The turn ends: its batches still to publish. */
  flush(): ChargeBatch<W>[] {
    const turn = this.turn.filter((b) => this.open.has(b));
    this.turn = [];
    this.filling.clear();
    return turn;
  }

  /**
   * A publish of `batch` failed at `now`: 'retry' (the same message, after RETRY_PAUSE_MS) while its
   * deadline allows and `retry` (false: the breaker is open, waiting is pointless), or its answer: the
   * charges to void. Null if it is answered already.
   */
  failed(batch: ChargeBatch<W>, now: number, retry = true): 'retry' | SettlementEvent[] | null {
    if (!this.open.has(batch)) return null;
    if (retry && this.connected && now + RETRY_PAUSE_MS < batch.deadline) return 'retry';
    this.open.delete(batch);
    return batch.events;
  }

  /** JetStream acknowledged the batch: true if that answers it (a lost connection may have already). */
  acknowledged(batch: ChargeBatch<W>): boolean {
    return this.open.delete(batch);
  }

  /** The connection dropped: every batch not answered fails now (their charges are voided). */
  connectionLost(): ChargeBatch<W>[] {
    this.connected = false;
    this.filling.clear();
    this.turn = [];
    const failed = [...this.open];
    this.open.clear();
    return failed;
  }

  connectionRestored(): void {
    this.connected = true;
  }
}
