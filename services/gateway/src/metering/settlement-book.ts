import { MAX_BATCH_EVENTS, type SettlementEvent } from '@mdp/usage';

/**
 * Charges for one shard, MAX_BATCH_EVENTS at most: one message, one acknowledgement, and one answer for
 * all of them (`waiter`, the transport's: true, charged).
 */
export interface ChargeBatch<W> {
  readonly shard: number;
  readonly events: SettlementEvent[];
  /** When its first charge joined it (that charge's settlement time). */
  readonly since: number;
  /** When its 200s stop waiting for the acknowledgement (the first charge's: the earliest). */
  readonly deadline: number;
  readonly waiter: W;
}

/** How long a failed publish waits before the same message is sent again. */
export const RETRY_PAUSE_MS = 50;

/**
 * What the gateway knows of its charges on their way to JetStream, as events in and decisions out: no
 * socket, timer or promise, the time passed in. A shard's charges gather in one batch until the turn
 * ends; with a linger, a batch whose shard already has one published and not yet acknowledged keeps
 * gathering until that acknowledgement or until it is `lingerMs` old, whichever comes first, so a busy
 * gateway sends fewer, larger messages and an idle one sends at once. A batch is answered once,
 * acknowledged or failed (every charge of a failed one is then voided); a lost connection fails at
 * once every batch not answered, and nothing is charged until it is back.
 */
export class SettlementBook<W> {
  private connected = true;
  /** Batches not published yet, oldest first. */
  private gathering: ChargeBatch<W>[] = [];
  /** The batch each shard's charges join (until it is full or published). */
  private readonly filling = new Map<number, ChargeBatch<W>>();
  /** Batches not answered yet (gathering, or published and not acknowledged). */
  private readonly open = new Set<ChargeBatch<W>>();
  /** Per shard, batches published and not answered. */
  private readonly inFlight = new Map<number, number>();
  private flushAsked = false;

  constructor(
    private readonly ackTimeoutMs: number,
    private readonly waiter: () => W,
    private readonly lingerMs = 0,
  ) {}

  /** False while the connection is down: nothing can be charged, so nothing should be admitted. */
  get available(): boolean {
    return this.connected;
  }

  /**
   * A 200 to charge: the batch it joins, and whether the transport is to ask for a flush at the end of
   * this turn (the first charge since the last flush). Null while the connection is down: answer 503
   * and void it.
   */
  charge(event: SettlementEvent, shard: number): { batch: ChargeBatch<W>; first: boolean } | null {
    if (!this.connected) return null;
    let batch = this.filling.get(shard);
    if (batch === undefined) {
      const since = event.settled_at_ms;
      batch = { shard, events: [], since, deadline: since + this.ackTimeoutMs, waiter: this.waiter() };
      this.filling.set(shard, batch);
      this.gathering.push(batch);
      this.open.add(batch);
    }
    batch.events.push(event);
    if (batch.events.length === MAX_BATCH_EVENTS) this.filling.delete(shard);
    const first = !this.flushAsked;
    this.flushAsked = true;
    return { batch, first };
  }

  /**
   * A turn ended, an acknowledgement came or a linger ran out, at `now`: the batches to publish now.
   * The rest keep gathering; `nextFlushAt` says until when at most.
   */
  flush(now: number): ChargeBatch<W>[] {
    this.flushAsked = false;
    const out: ChargeBatch<W>[] = [];
    const kept: ChargeBatch<W>[] = [];
    for (const batch of this.gathering) {
      if (!this.open.has(batch)) continue;
      const { shard } = batch;
      const busy = (this.inFlight.get(shard) ?? 0) > 0;
      if (busy && batch.events.length < MAX_BATCH_EVENTS && now < batch.since + this.lingerMs) {
        kept.push(batch);
        continue;
      }
      if (this.filling.get(shard) === batch) this.filling.delete(shard);
      this.inFlight.set(shard, (this.inFlight.get(shard) ?? 0) + 1);
      out.push(batch);
    }
    this.gathering = kept;
    return out;
  }

  /** When the oldest batch left gathering is to be published at the latest; null when none is. */
  nextFlushAt(): number | null {
    const oldest = this.gathering[0];
    return oldest === undefined ? null : oldest.since + this.lingerMs;
  }

  /**
   * A publish of `batch` failed at `now`: 'retry' (the same message, after RETRY_PAUSE_MS) while its
   * deadline allows and `retry` (false: the breaker is open, waiting is pointless), or its answer: the
   * charges to void. Null if it is answered already.
   */
  failed(batch: ChargeBatch<W>, now: number, retry = true): 'retry' | SettlementEvent[] | null {
    if (!this.open.has(batch)) return null;
    if (retry && this.connected && now + RETRY_PAUSE_MS < batch.deadline) return 'retry';
    this.answered(batch);
    return batch.events;
  }

  /** JetStream acknowledged the batch: true if that answers it (a lost connection may have already). */
  acknowledged(batch: ChargeBatch<W>): boolean {
    if (!this.open.has(batch)) return false;
    this.answered(batch);
    return true;
  }

  /** Whether a batch is gathering behind one in flight (an acknowledgement should flush). */
  get lingering(): boolean {
    return this.gathering.length > 0;
  }

  /** The connection dropped: every batch not answered fails now (their charges are voided). */
  connectionLost(): ChargeBatch<W>[] {
    this.connected = false;
    return this.failAll();
  }

  /** Every batch not answered fails now (their charges are voided). */
  private failAll(): ChargeBatch<W>[] {
    this.filling.clear();
    this.gathering = [];
    this.inFlight.clear();
    const failed = [...this.open];
    this.open.clear();
    return failed;
  }

  /**
   * `shard`'s charges stopped being acknowledged (its settlement breaker opened): each of its batches not
   * answered fails now rather than at its deadline, so no 200 waits longer than the attempts that opened
   * the breaker. Other shards' batches go on.
   */
  failShard(shard: number): ChargeBatch<W>[] {
    this.filling.delete(shard);
    this.gathering = this.gathering.filter((b) => b.shard !== shard);
    this.inFlight.delete(shard);
    const failed = [...this.open].filter((b) => b.shard === shard);
    for (const batch of failed) this.open.delete(batch);
    return failed;
  }

  connectionRestored(): void {
    this.connected = true;
  }

  private answered(batch: ChargeBatch<W>): void {
    this.open.delete(batch);
    const n = this.inFlight.get(batch.shard) ?? 0;
    if (n > 1) this.inFlight.set(batch.shard, n - 1);
    else this.inFlight.delete(batch.shard);
  }
}
