/**
 * How far a shard's own settlement stream is recorded: every message at or below `through` of the
 * stream `stream` made at `created` (JetStream's timestamp of it) is in the log. Written with the batch
 * that got it there (`ProjectionStore.record`), so it never runs ahead of the log; a stream made again
 * has another `created`, and its messages are none of the old position's.
 */
export interface StreamPosition {
  stream: string;
  created: string;
  through: number;
}

/** Where positions are kept: the ledger's Postgres (`ProjectionStore`), written with the batches. */
export interface StreamPositions {
  /** How far `stream` is recorded, as the last batch recorded from it left it; null if never. */
  streamPosition(stream: string): Promise<StreamPosition | null>;
  /** Drops a position found not to be its stream's, unless it has moved since it was read. */
  forgetStreamPosition(position: StreamPosition): Promise<void>;
}
