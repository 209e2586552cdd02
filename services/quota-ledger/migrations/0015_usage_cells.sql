-- Up Migration

-- The projection keyed as the log is (usage_cells): by the account's number (usage_accounts), the
-- route's number (usage_routes) and the interface's letter, not by the account's uuid as text, the
-- route's name and 'rest'/'mcp'. A batch moves about one row an event over many accounts; with text keys
-- that upsert and the two dictionary look-ups naming each row cost Postgres about 9 µs an event more
-- than with numbers (500 events over 1,000 accounts a batch: 43 against 34; one account: no difference;
-- 3 December 2026). A row is 16 bytes of columns instead of about 60.
--
-- Expand now, contract a release later: a ledger of the release before (still running while pods roll,
-- or again after a rollback) writes and reads usage_route_daily; this release's reads usage_cells and
-- its batch statement writes both; a trigger carries the earlier release's writes to the cells. So both
-- tables always hold the same figures. The next release stops writing usage_route_daily and drops it
-- with the trigger (a view then keeps its name): that is where the cost above is saved.
CREATE TABLE usage_cells (
  account   integer  NOT NULL,
  day       date     NOT NULL,
  route     smallint NOT NULL,
  -- r REST, m MCP (as in the log)
  interface "char"   NOT NULL CHECK (interface IN ('r', 'm')),
  charged   integer  NOT NULL CHECK (charged >= 0),
  PRIMARY KEY (account, day, route, interface)
);

-- Every row of usage_route_daily came from the log, whose accounts and routes have numbers already.
INSERT INTO usage_cells (account, day, route, interface, charged)
SELECT a.id, d.day, r.id, CASE d.interface WHEN 'mcp' THEN 'm' ELSE 'r' END, d.charged
  FROM usage_route_daily d
  JOIN usage_accounts a ON a.account_id = d.account_id::uuid
  JOIN usage_routes r ON r.name = d.route;

-- A ledger of the release before writes usage_route_daily: what its statement changed (new rows less
-- old ones) is added to the cells, increases upserted, decreases applied to rows that exist (a row
-- proposed for insertion is checked against charged >= 0 before ON CONFLICT could make it an update).
-- This release's batch statement writes both tables itself and says so for its transaction
-- (mdp.records_cells), which the trigger then leaves alone. Numbers are looked up a row at a time by
-- key: a join could be planned as a merge over a dictionary's whole index, whose cost would grow with
-- the accounts the ledger has ever seen.
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
  -- An insert's trigger has no old rows.
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

-- Each ledger run says which release it is, as the newest migration its code knows: its refreshes set
-- mdp.ledger_code_level for their transaction, and a refresh (it moves last_seen) stamps the row with
-- it. A release before this one sets nothing, so its runs read NULL, also when it refreshes a row a newer
-- run wrote; other updates (a run's end) keep the stamp. The contract step after this one refuses while
-- a run of a release before 0015 is live, instead of dropping usage_route_daily under it.
ALTER TABLE ledger_shard_runs ADD COLUMN code_level text;
CREATE FUNCTION ledger_shard_runs_code_level() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' OR NEW.last_seen IS DISTINCT FROM OLD.last_seen THEN
    NEW.code_level := nullif(current_setting('mdp.ledger_code_level', true), '');
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER ledger_shard_runs_code_level BEFORE INSERT OR UPDATE ON ledger_shard_runs
  FOR EACH ROW EXECUTE FUNCTION ledger_shard_runs_code_level();

-- Down Migration
-- usage_route_daily has been written with every batch throughout: nothing to copy back.
DROP TRIGGER ledger_shard_runs_code_level ON ledger_shard_runs;
DROP FUNCTION ledger_shard_runs_code_level();
ALTER TABLE ledger_shard_runs DROP COLUMN code_level;
DROP TRIGGER usage_route_daily_updated_to_cells ON usage_route_daily;
DROP TRIGGER usage_route_daily_inserted_to_cells ON usage_route_daily;
DROP FUNCTION usage_route_daily_to_cells();
DROP FUNCTION usage_cells_add(text[], date[], text[], text[], integer[]);
DROP TABLE usage_cells;
