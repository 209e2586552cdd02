-- Up Migration

-- A stand-in run (issue 49): while the shard count changes, a shard still running the older count also
-- runs, under its own index, the newer count, so an account whose new owner has that index is admitted
-- as soon as its old owner hands it over, instead of when that shard restarts last. The stand-in is a
-- run like any other to every other shard (one writer per account holds as for two processes); the flag
-- only keeps stand-ins from counting when a shard looks for a newer count to stand in for.
ALTER TABLE ledger_shard_runs ADD COLUMN stand_in boolean NOT NULL DEFAULT false;

-- Down Migration
ALTER TABLE ledger_shard_runs DROP COLUMN stand_in;
