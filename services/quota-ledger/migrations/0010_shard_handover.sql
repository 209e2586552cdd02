-- Up Migration

-- A graceful hand-over (issue 49): a shard that stops (SIGTERM) stops admitting, takes its leases back,
-- waits until its consumer has recorded all its subject held, then records when it ended and the
-- requests it still held then. An account moving to another shard may then move as soon as the log
-- holds everything up to that end (`ended_at`), instead of a hold TTL after the run's last refresh: its
-- new owner reads the account's counts and burst window from the log and holds these requests again
-- until their settlements are recorded. A run that refreshes again is no longer ended.
ALTER TABLE ledger_shard_runs ADD COLUMN ended_at timestamptz;

CREATE TABLE ledger_handover_holds (
  shard_count integer NOT NULL,
  shard       integer NOT NULL,
  account_id  text NOT NULL,
  request_id  text NOT NULL,
  admitted_at timestamptz NOT NULL,
  interface   text NOT NULL,
  PRIMARY KEY (shard_count, shard, account_id, request_id)
);

-- Down Migration
DROP TABLE ledger_handover_holds;
ALTER TABLE ledger_shard_runs DROP COLUMN ended_at;
