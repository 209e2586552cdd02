-- Up Migration

-- Reliefs (issue 49): while a shard's process restarts, the next index of its count admits its accounts,
-- so a rolling update or a shard-count change leaves no account without an admitter for a restart's
-- length. A relief is a run of the restarting index under one of its counts, by another process (its
-- subject: where the charges it admits are recorded), begun once that index's run has handed over and
-- ended, with a hand-over of its own, when the index runs again. Its own table, so a process of an
-- earlier release (whose refresh upserts on (shard_count, shard)) keeps working beside it.
CREATE TABLE ledger_shard_reliefs (
  shard_count  integer NOT NULL CHECK (shard_count BETWEEN 2 AND 1024),
  shard        integer NOT NULL CHECK (shard >= 0 AND shard < shard_count),
  subject      integer NOT NULL CHECK (subject >= 0 AND subject <> shard),
  holder       text NOT NULL,
  active_since timestamptz NOT NULL,
  last_seen    timestamptz NOT NULL,
  ended_at     timestamptz,
  PRIMARY KEY (shard_count, shard, subject)
);

-- Whether a run's process admits yet (its consumer has caught up): a relief lasts until the run that
-- ends it does, so its accounts are admitted throughout. A run of an earlier release counts as admitting.
ALTER TABLE ledger_shard_runs ADD COLUMN admitting boolean NOT NULL DEFAULT true;

-- The requests a relief still held when it ended (as ledger_handover_holds for a shard's own runs).
CREATE TABLE ledger_relief_holds (
  shard_count integer NOT NULL,
  shard       integer NOT NULL,
  subject     integer NOT NULL,
  account_id  text NOT NULL,
  request_id  text NOT NULL,
  admitted_at timestamptz NOT NULL,
  interface   text NOT NULL,
  PRIMARY KEY (shard_count, shard, subject, account_id, request_id)
);

-- Down Migration
ALTER TABLE ledger_shard_runs DROP COLUMN admitting;
DROP TABLE ledger_relief_holds;
DROP TABLE ledger_shard_reliefs;
