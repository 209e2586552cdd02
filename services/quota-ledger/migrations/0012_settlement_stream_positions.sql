-- Up Migration

-- How far each shard's own settlement stream is recorded (issue 50), written by the statement that
-- records the batch that got it there (RECORD_BATCH), so the two never disagree: every message at or
-- below `recorded_through` of the stream made at `stream_created` (JetStream's own timestamp of it, text
-- because it has nanoseconds) is in the log. A consumer JetStream has lost starts after it instead of
-- replaying the stream, and a message delivered again at or below it is acknowledged, not recorded
-- again. A stream made again (a new `stream_created`) starts from nothing.
CREATE TABLE settlement_stream_positions (
  stream           text PRIMARY KEY CHECK (stream ~ '^[A-Za-z0-9_-]{1,200}$'),
  stream_created   text NOT NULL CHECK (length(stream_created) <= 64),
  recorded_through bigint NOT NULL CHECK (recorded_through >= 0),
  updated_at       timestamptz NOT NULL DEFAULT now()
);

-- Down Migration
DROP TABLE settlement_stream_positions;
