-- Up Migration

-- The log's events by admission time: a shard that starts (or takes over accounts) reads the last
-- minute's admissions to rebuild the burst windows. Events arrive in admission order, so a BRIN index
-- (a few pages a day, next to nothing per event written) finds that minute without reading the day's
-- partition; autosummarize keeps the ranges current as the partition fills.
CREATE INDEX usage_events_admitted_brin ON usage_events USING brin (admitted_at) WITH (autosummarize = on);

-- Down Migration
DROP INDEX usage_events_admitted_brin;
