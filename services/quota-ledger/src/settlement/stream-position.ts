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
