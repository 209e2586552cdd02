-- Up Migration

-- The burst cap is plan data like the other caps; SPEC 8 gives every plan 60 a minute.
ALTER TABLE plans ADD COLUMN burst_per_minute integer NOT NULL DEFAULT 60 CHECK (burst_per_minute > 0);

-- Down Migration
ALTER TABLE plans DROP COLUMN burst_per_minute;
