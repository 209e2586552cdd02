-- Up Migration

-- A plan may have no burst cap (NULL), like the daily and monthly caps. Only the shipped `load-test`
-- plan has none: load tests and benchmarks measure the platform, not SPEC 8's 60 a minute.
ALTER TABLE plans ALTER COLUMN burst_per_minute DROP NOT NULL;

INSERT INTO plans (id, daily_cap, monthly_cap, burst_per_minute) VALUES ('load-test', NULL, NULL, NULL)
  ON CONFLICT (id) DO NOTHING;

-- Down Migration
UPDATE plans SET burst_per_minute = 60 WHERE burst_per_minute IS NULL;
ALTER TABLE plans ALTER COLUMN burst_per_minute SET NOT NULL;
