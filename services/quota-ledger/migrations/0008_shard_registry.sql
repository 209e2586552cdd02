-- Up Migration

-- The shard registry: every ledger process refreshes its run (its shard index under its shard count)
-- each second, and how far the settlement subjects it consumes are recorded. While the shard count
-- changes, a shard reads it to decide which accounts it may admit (domain/shard-map.ts): one writer per
-- account, and a new owner only once the log holds all its previous owner admitted. Rows are kept a day
-- after their last refresh; older ones are removed by the runs themselves.
CREATE TABLE ledger_shard_runs (
  shard_count  integer NOT NULL CHECK (shard_count BETWEEN 1 AND 1024),
  shard        integer NOT NULL CHECK (shard >= 0 AND shard < shard_count),
  holder       text NOT NULL,
  -- When this run began, or began again after it had lapsed.
  active_since timestamptz NOT NULL,
  last_seen    timestamptz NOT NULL,
  PRIMARY KEY (shard_count, shard)
);

CREATE TABLE ledger_subject_horizons (
  subject          integer PRIMARY KEY CHECK (subject >= 0),
  -- The newest publish time its consumer has recorded through (everything published before is recorded).
  recorded_through timestamptz NOT NULL
);

-- Down Migration
DROP TABLE ledger_subject_horizons;
DROP TABLE ledger_shard_runs;
