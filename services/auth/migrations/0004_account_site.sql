-- Up Migration

-- How a subscriber signs in to the account web site: one e-mail address and password per account. The
-- address is stored trimmed, NFC-normalised and lower-cased; the unique index on lower(email) keeps two
-- spellings of one address apart even if a row were ever written another way. Only an argon2id hash of
-- the password is kept.
CREATE TABLE credentials (
  account_id    uuid PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
  email         text NOT NULL CHECK (length(email) BETWEEN 3 AND 254),
  password_hash text NOT NULL CHECK (password_hash LIKE '$argon2id$%'),
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX credentials_email_key ON credentials (lower(email));

-- Signed-in browsers. The cookie value is shown once; only its keyed hash is kept, so a copy of the
-- table signs nobody in. `id` is the stable, non-secret name of a session (it binds CSRF tokens).
CREATE TABLE sessions (
  id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  token_hash bytea NOT NULL UNIQUE,
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  revoked_at timestamptz,
  CHECK (expires_at > created_at)
);
CREATE INDEX sessions_account_idx ON sessions (account_id) WHERE revoked_at IS NULL;
CREATE INDEX sessions_expires_idx ON sessions (expires_at);

-- An operator's invitation to set the password of an account they created: single use, short-lived,
-- kept only as a keyed hash of the code in the link.
CREATE TABLE invites (
  id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  code_hash  bytea NOT NULL UNIQUE,
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  email      text NOT NULL CHECK (length(email) BETWEEN 3 AND 254),
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  used_at    timestamptz,
  CHECK (expires_at > created_at)
);
CREATE INDEX invites_account_idx ON invites (account_id) WHERE used_at IS NULL;

-- Rate limits of the site (failed sign-ins per client address and per e-mail address, sign-ups per
-- address): one counter per scope and key, in a window that opens at the first counted attempt. In
-- Postgres so that every auth replica counts the same attempts. The key is a keyed hash, so the table
-- holds neither addresses nor e-mail addresses.
CREATE TABLE attempt_counters (
  scope        text NOT NULL CHECK (scope IN ('sign_in_address', 'sign_in_email', 'sign_up_address')),
  key_hash     bytea NOT NULL,
  window_start timestamptz NOT NULL,
  attempts     integer NOT NULL CHECK (attempts >= 0),
  PRIMARY KEY (scope, key_hash)
);
CREATE INDEX attempt_counters_window_idx ON attempt_counters (window_start);

-- When a token was last presented, as the gateways report it in batches (never on the request path).
ALTER TABLE tokens ADD COLUMN last_used_at timestamptz;

-- Down Migration
ALTER TABLE tokens DROP COLUMN last_used_at;
DROP TABLE attempt_counters;
DROP TABLE invites;
DROP TABLE sessions;
DROP TABLE credentials;
