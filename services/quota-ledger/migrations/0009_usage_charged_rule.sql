-- Up Migration

-- The ledger's one rule for what a request costs: it counts as charged when among its events (their
-- kinds: c charged, r refunded, v voided) there is a charge and no void. Every statement that counts
-- usage (the batch recorder's deltas, the usage history, the rebuild check, the seals, an archive's
-- restore, the log lookups of voided requests) asks this function, so the rule is written once. Plain
-- SQL, immutable and not strict, so the planner inlines it into each statement; no events (NULL) is NULL.
CREATE FUNCTION usage_charged(kinds "char"[]) RETURNS boolean
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT 'c' = ANY (kinds) AND NOT 'v' = ANY (kinds) $$;

-- Down Migration
DROP FUNCTION usage_charged("char"[]);
