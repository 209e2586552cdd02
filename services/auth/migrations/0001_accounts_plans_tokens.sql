-- Up Migration

-- Plan limits are data: change them with the admin tool, no deploy. NULL means unlimited.
CREATE TABLE plans (
  id          text PRIMARY KEY CHECK (id ~ '^[a-z][a-z0-9_-]{0,31}$'),
  daily_cap   integer CHECK (daily_cap >= 0),
  monthly_cap integer CHECK (monthly_cap >= 0),
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now()
);

INSERT INTO plans (id, daily_cap, monthly_cap) VALUES
  ('free', 50, NULL),
  ('pro', 5000, 100000),
  ('business', 50000, 1000000),
  ('unlimited', NULL, NULL);

CREATE TABLE accounts (
  id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name       text NOT NULL DEFAULT '' CHECK (length(name) <= 200),
  plan_id    text NOT NULL REFERENCES plans (id),
  status     text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'suspended')),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Only a keyed hash of each token is kept; the token itself is shown once, at issue.
CREATE TABLE tokens (
  id             uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  account_id     uuid NOT NULL REFERENCES accounts (id),
  token_hash     bytea NOT NULL UNIQUE,
  display_prefix text NOT NULL,
  name           text NOT NULL DEFAULT '' CHECK (length(name) <= 200),
  created_at     timestamptz NOT NULL DEFAULT now(),
  expires_at     timestamptz,
  revoked_at     timestamptz
);
CREATE INDEX tokens_account_idx ON tokens (account_id);

-- Transactional outbox: a change and its event commit together; the service relays events to NATS
-- so no invalidation is lost when NATS is briefly unreachable.
CREATE TABLE outbox (
  id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  subject      text NOT NULL,
  payload      jsonb NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  published_at timestamptz
);
CREATE INDEX outbox_pending_idx ON outbox (id) WHERE published_at IS NULL;

-- Down Migration
DROP TABLE outbox;
DROP TABLE tokens;
DROP TABLE accounts;
DROP TABLE plans;
