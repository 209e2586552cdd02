-- Up Migration

-- The projection keyed as the log is: by the account's number (usage_accounts), the route's number
-- (usage_routes) and the interface's letter, not by the account's uuid as text, the route's name and
-- 'rest'/'mcp'. The batch statement moves one row per account, day and route in the batch, so over many
-- accounts it upserts nearly a row an event: with text keys that upsert, and the two dictionary look-ups
-- a row needed to name it, cost Postgres about 9 µs an event more than with numbers (500 events over
-- 1,000 accounts a batch: 43 against 34 µs an event; one account: no difference; 3 December 2026). A
-- row is 16 bytes of columns instead of about 60. The projection's readers use the numbers; the views
-- usage_route_daily and usage_daily keep the names for tools and checks. Every account of the old
-- projection came from the log (uuids), so each has, or is given, its number.
CREATE TABLE usage_cells (
  account   integer  NOT NULL,
  day       date     NOT NULL,
  route     smallint NOT NULL,
  -- r REST, m MCP (as in the log)
  interface "char"   NOT NULL CHECK (interface IN ('r', 'm')),
  charged   integer  NOT NULL CHECK (charged >= 0),
  PRIMARY KEY (account, day, route, interface)
);

INSERT INTO usage_accounts (account_id)
SELECT DISTINCT account_id::uuid FROM usage_route_daily ORDER BY 1 ON CONFLICT DO NOTHING;
INSERT INTO usage_routes (name) SELECT DISTINCT route FROM usage_route_daily ORDER BY 1 ON CONFLICT DO NOTHING;
INSERT INTO usage_cells (account, day, route, interface, charged)
SELECT a.id, d.day, r.id, CASE d.interface WHEN 'mcp' THEN 'm' ELSE 'r' END, d.charged
  FROM usage_route_daily d
  JOIN usage_accounts a ON a.account_id = d.account_id::uuid
  JOIN usage_routes r ON r.name = d.route;

DROP VIEW usage_daily;
DROP TABLE usage_route_daily;

CREATE VIEW usage_route_daily AS
SELECT a.account_id::text AS account_id, c.day, r.name AS route,
       CASE c.interface WHEN 'm' THEN 'mcp' ELSE 'rest' END AS interface, c.charged
  FROM usage_cells c
  JOIN usage_accounts a ON a.id = c.account
  JOIN usage_routes r ON r.id = c.route;

CREATE VIEW usage_daily AS
SELECT account_id, day, interface, sum(charged)::int AS charged
  FROM usage_route_daily
 GROUP BY account_id, day, interface;

-- Down Migration
CREATE TABLE usage_route_daily_0015 (
  account_id text NOT NULL,
  day        date NOT NULL,
  route      text NOT NULL,
  interface  text NOT NULL CHECK (interface IN ('rest', 'mcp')),
  charged    integer NOT NULL CHECK (charged >= 0),
  PRIMARY KEY (account_id, day, route, interface)
);
INSERT INTO usage_route_daily_0015 (account_id, day, route, interface, charged)
SELECT account_id, day, route, interface, charged FROM usage_route_daily;

DROP VIEW usage_daily;
DROP VIEW usage_route_daily;
DROP TABLE usage_cells;
ALTER TABLE usage_route_daily_0015 RENAME TO usage_route_daily;
ALTER INDEX usage_route_daily_0015_pkey RENAME TO usage_route_daily_pkey;

CREATE VIEW usage_daily AS
SELECT account_id, day, interface, sum(charged)::int AS charged
  FROM usage_route_daily
 GROUP BY account_id, day, interface;
