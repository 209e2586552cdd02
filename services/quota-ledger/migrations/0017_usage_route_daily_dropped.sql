-- Up Migration

-- The projection's last step (0015 added usage_cells beside usage_route_daily, 0016 stopped writing the
-- table by name): usage_route_daily goes, with the trigger and functions of 0015 that carried a pre-0015
-- ledger's writes over to the cells. A view by the old name keeps its columns for tools and checks by hand.
--
-- A ledger of 0015's release still writes usage_route_daily in its batch statement: against the view, every
-- batch would fail and its charges would wait in JetStream, unrecorded, until it rolled. So this migration
-- refuses, and the upgrade stops with the old release serving, while a run of a release before 0016 is
-- live (not ended, seen within the last minute), as 0016 refuses for one before 0015.
DO $$
DECLARE
  older text;
BEGIN
  SELECT string_agg(format('shard %s of %s (%s, %s)', shard, shard_count, holder, coalesce('release of ' || code_level, 'a release before 0015')), '; ')
    INTO older
    FROM ledger_shard_runs
   WHERE ended_at IS NULL AND last_seen > now() - interval '1 minute'
     AND (code_level IS NULL OR code_level < '0016');
  IF older IS NOT NULL THEN
    RAISE EXCEPTION 'quota-ledger migration 0017 needs every ledger on migration 0016''s release or later; still running: %', older
      USING HINT = 'Upgrade to the release of migration 0016 first and let every quota-ledger pod roll (docs/operators.md, Migrations).';
  END IF;
END $$;

-- Contract: 0015's triggers on usage_route_daily and their functions, which carried only the writes of a ledger before 0015 (none may run since 0016)
DROP TRIGGER usage_route_daily_updated_to_cells ON usage_route_daily;
DROP TRIGGER usage_route_daily_inserted_to_cells ON usage_route_daily;
DROP FUNCTION usage_route_daily_to_cells();
DROP FUNCTION usage_cells_add(text[], date[], text[], text[], integer[]);
-- Contract: usage_route_daily, unread since 0015, emptied and written by no ledger of 0016's release
DROP TABLE usage_route_daily;

CREATE VIEW usage_route_daily AS
SELECT a.account_id::text AS account_id, c.day, r.name AS route,
       CASE c.interface WHEN 'm' THEN 'mcp' ELSE 'rest' END AS interface, c.charged
  FROM usage_cells c
  JOIN usage_accounts a ON a.id = c.account
  JOIN usage_routes r ON r.id = c.route;
COMMENT ON VIEW usage_route_daily IS 'usage_cells by name, for tools (the table of this name was dropped by migration 0017)';

-- Down Migration
-- Back to 0016's schema: the table as 0016 left it (empty, unread; 0015's ledgers may write it) and
-- 0015's trigger and functions on it, as 0015 created them.
DROP VIEW usage_route_daily;
CREATE TABLE usage_route_daily (
  account_id text NOT NULL,
  day        date NOT NULL,
  route      text NOT NULL,
  interface  text NOT NULL CHECK (interface IN ('rest', 'mcp')),
  charged    integer NOT NULL CHECK (charged >= 0),
  PRIMARY KEY (account_id, day, route, interface)
);
COMMENT ON TABLE usage_route_daily IS
  'Unused since migration 0016 (usage_cells is the projection); written only by ledgers of 0015''s release';

CREATE FUNCTION usage_cells_add(accounts text[], days date[], routes text[], interfaces text[], deltas integer[])
RETURNS void LANGUAGE sql AS $$
  WITH d AS (
    SELECT usage_account(n.account_id::uuid) AS account, n.day,
           (SELECT r.id FROM usage_routes r WHERE r.name = n.route) AS route,
           CASE n.interface WHEN 'mcp' THEN 'm' ELSE 'r' END::"char" AS interface, n.delta
      FROM unnest(accounts, days, routes, interfaces, deltas) AS n(account_id, day, route, interface, delta)
  ),
  up AS (
    INSERT INTO usage_cells (account, day, route, interface, charged)
    SELECT account, day, route, interface, delta FROM d WHERE delta > 0
    ON CONFLICT (account, day, route, interface) DO UPDATE SET charged = usage_cells.charged + EXCLUDED.charged
  )
  UPDATE usage_cells t SET charged = t.charged + d.delta FROM d
   WHERE d.delta < 0 AND t.account = d.account AND t.day = d.day AND t.route = d.route AND t.interface = d.interface
$$;

CREATE FUNCTION usage_route_daily_to_cells() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('mdp.records_cells', true) = 'on' THEN RETURN NULL; END IF;
  IF TG_OP = 'INSERT' THEN
    PERFORM usage_cells_add(array_agg(account_id), array_agg(day), array_agg(route), array_agg(interface),
                            array_agg(charged))
       FROM new_rows;
  ELSE
    PERFORM usage_cells_add(array_agg(account_id), array_agg(day), array_agg(route), array_agg(interface),
                            array_agg(delta))
       FROM (SELECT account_id, day, route, interface, sum(charged)::int AS delta
               FROM (SELECT account_id, day, route, interface, charged FROM new_rows
                     UNION ALL
                     SELECT account_id, day, route, interface, -charged FROM old_rows) AS n
              GROUP BY 1, 2, 3, 4 HAVING sum(charged) <> 0) AS c;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER usage_route_daily_inserted_to_cells AFTER INSERT ON usage_route_daily
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION usage_route_daily_to_cells();
CREATE TRIGGER usage_route_daily_updated_to_cells AFTER UPDATE ON usage_route_daily
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION usage_route_daily_to_cells();
