-- Up Migration

-- The projection's second step (the first is 0015): from this release on, a ledger's batch statement
-- writes usage_cells only, not the same figures again by name in usage_route_daily. That second upsert is
-- what this saves: over 1,000 accounts about a fifth of Postgres's work a charge.
--
-- Only a ledger of a release before 0015 reads usage_route_daily (for admission's counts): it would miss
-- every charge this release records. So this migration refuses, and the upgrade stops with the old
-- release serving, while a run of one is live: not ended, and seen within the last minute (a run
-- refreshes every second; one killed without ending is not live a minute later). A run of 0015's
-- release reads the cells and writes both tables, so it may go on recording while pods roll, and after a
-- rollback to it.
DO $$
DECLARE
  older text;
BEGIN
  SELECT string_agg(format('shard %s of %s (%s, %s)', shard, shard_count, holder, coalesce('release of ' || code_level, 'a release before 0015')), '; ')
    INTO older
    FROM ledger_shard_runs
   WHERE ended_at IS NULL AND last_seen > now() - interval '1 minute'
     AND (code_level IS NULL OR code_level < '0015');
  IF older IS NOT NULL THEN
    RAISE EXCEPTION 'quota-ledger migration 0016 needs every ledger on migration 0015''s release or later; still running: %', older
      USING HINT = 'Upgrade to the release of migration 0015 first and let every quota-ledger pod roll (docs/operators.md, Migrations).';
  END IF;
END $$;

-- The daily figures for tools: the cells' sums, named (the view kept usage_route_daily's since 0013).
CREATE OR REPLACE VIEW usage_daily AS
SELECT a.account_id::text AS account_id, c.day, CASE c.interface WHEN 'm' THEN 'mcp' ELSE 'rest' END AS interface,
       sum(c.charged)::int AS charged
  FROM usage_cells c JOIN usage_accounts a ON a.id = c.account
 GROUP BY 1, 2, 3;

-- usage_route_daily is read by no release from 0015 on and written only by 0015's ledgers until they roll,
-- so from now on its figures are not the projection's. Emptied, so that it cannot pass for it; a release
-- later drops it, with 0015's triggers and their functions (which carry only a pre-0015 ledger's writes).
-- Contract: usage_route_daily's rows, unread since migration 0015
TRUNCATE usage_route_daily;
COMMENT ON TABLE usage_route_daily IS
  'Unused since migration 0016 (usage_cells is the projection); written only by ledgers of 0015''s release';

-- Down Migration
-- Back to 0015's schema: the table by name holds the cells' figures again, and the daily view sums it.
COMMENT ON TABLE usage_route_daily IS NULL;
TRUNCATE usage_route_daily;
-- The rows come from the cells: 0015's trigger must not add them to the cells again.
SELECT set_config('mdp.records_cells', 'on', true);
INSERT INTO usage_route_daily (account_id, day, route, interface, charged)
SELECT a.account_id::text, c.day, r.name, CASE c.interface WHEN 'm' THEN 'mcp' ELSE 'rest' END, c.charged
  FROM usage_cells c
  JOIN usage_accounts a ON a.id = c.account
  JOIN usage_routes r ON r.id = c.route
 WHERE c.charged > 0;
CREATE OR REPLACE VIEW usage_daily AS
SELECT account_id, day, interface, sum(charged)::int AS charged
  FROM usage_route_daily
 GROUP BY account_id, day, interface;
