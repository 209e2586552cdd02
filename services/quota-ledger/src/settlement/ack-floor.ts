/**
 * Where one acknowledgement may go for a whole recorded batch, on a stream whose every message is this
 * consumer's (a shard's own stream). Under JetStream's AckAll policy an acknowledgement of sequence n
 * acknowledges everything up to n, including messages delivered to another process (a killed
 * predecessor, or a second consumer for a moment) and not recorded yet; so the floor moves only over
 * sequences this process has recorded itself, one after the other from JetStream's ack floor when it
 * started (below which everything is recorded). Pure: the consumer feeds it what it recorded.
 */
export class AckFloor {
  /** Recorded sequences above the floor, waiting for the ones below them. */
  private readonly above = new Set<number>();

  /** `floor`: JetStream's ack floor when the consumer started (a new consumer's is its start less one). */
  constructor(private floor: number) {}

  /**
   * Takes the sequences of a batch just recorded; returns the new floor when it moved (acknowledge
   * that sequence), else null.
   */
  recorded(seqs: Iterable<number>): number | null {
    const before = this.floor;
    for (const s of seqs) if (s > this.floor) this.above.add(s);
    while (this.above.delete(this.floor + 1)) this.floor++;
    return this.floor > before ? this.floor : null;
  }

  /**
   * Where the floor would be once these sequences are recorded, without moving it: the position to store
   * with their batch, before the batch is known to be recorded.
   */
  after(seqs: Iterable<number>): number {
    const next = new Set(seqs);
    let f = this.floor;
    while (next.has(f + 1) || this.above.has(f + 1)) f++;
    return f;
  }

  /** Everything at or below it is recorded. */
  get through(): number {
    return this.floor;
  }

  /** Recorded sequences waiting above a hole: a predecessor's deliveries not delivered here yet. */
  get waiting(): number {
    return this.above.size;
  }

  /**
   * Moves the floor past the holes below the recorded sequences, once JetStream says nothing is
   * delivered and unacknowledged but those: the holes are then no delivery's (messages that left the
   * stream before any consumer took them), never a message some process is recording. Returns the new
   * floor, or null when nothing waits.
   */
  skipHoles(): number | null {
    if (this.above.size === 0) return null;
    this.floor = Math.min(...this.above) - 1;
    return this.recorded([]);
  }
}
