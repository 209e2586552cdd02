-- Up Migration

-- The source of truth: every settlement event received, once per (request, kind). Nothing updates or
-- deletes a row; projections below are derived from it and can be rebuilt from it.
CREATE TABLE usage_events (
  seq         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  request_id  text NOT NULL,
  kind        text NOT NULL CHECK (kind IN ('charged', 'refunded', 'voided')),
  account_id  text NOT NULL,
  admitted_at timestamptz NOT NULL,
  settled_at  timestamptz NOT NULL,
  -- The IST day and month of admission: the windows a charge counts in.
  day         date NOT NULL,
  month       text NOT NULL CHECK (month ~ '^\d{4}-\d{2}$'),
  route       text NOT NULL,
  status      smallint NOT NULL,
  recorded_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (request_id, kind)
);
CREATE INDEX usage_events_account_day_idx ON usage_events (account_id, day);

CREATE FUNCTION usage_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'usage_events is append-only';
END $$;
CREATE TRIGGER usage_events_no_update_or_delete
  BEFORE UPDATE OR DELETE OR TRUNCATE ON usage_events
  FOR EACH STATEMENT EXECUTE FUNCTION usage_events_append_only();

-- Projections: charged requests per account and IST day / month.
CREATE TABLE usage_daily (
  account_id text NOT NULL,
  day        date NOT NULL,
  charged    integer NOT NULL CHECK (charged >= 0),
  PRIMARY KEY (account_id, day)
);

CREATE TABLE usage_monthly (
  account_id text NOT NULL,
  month      text NOT NULL,
  charged    integer NOT NULL CHECK (charged >= 0),
  PRIMARY KEY (account_id, month)
);

-- Down Migration
DROP TABLE usage_monthly;
DROP TABLE usage_daily;
DROP TABLE usage_events;
DROP FUNCTION usage_events_append_only();
