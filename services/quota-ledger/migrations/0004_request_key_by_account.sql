-- Up Migration

-- A request's key is its id within its account. Request ids are made by the gateway (UUIDv7), never
-- taken from a client; the log scopes them by account all the same, so that no event of one account can
-- ever be taken for a duplicate of another account's. Request id first: a time-ordered id makes the
-- index grow at its right edge. Every (request_id, kind) was unique before, so every row passes.
ALTER TABLE usage_events
  ADD CONSTRAINT usage_events_request_account_kind_key UNIQUE (request_id, account_id, kind);
ALTER TABLE usage_events DROP CONSTRAINT usage_events_request_id_kind_key;

-- Down Migration
ALTER TABLE usage_events ADD CONSTRAINT usage_events_request_id_kind_key UNIQUE (request_id, kind);
ALTER TABLE usage_events DROP CONSTRAINT usage_events_request_account_kind_key;
