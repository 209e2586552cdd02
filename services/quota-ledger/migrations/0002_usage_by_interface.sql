-- Up Migration

-- Which front door a request came through (REST or the MCP tool server). Every cap counts all of them
-- together; the usage document also reports units per interface. Events recorded before this column
-- existed came through REST.
ALTER TABLE usage_events
  ADD COLUMN interface text NOT NULL DEFAULT 'rest' CHECK (interface IN ('rest', 'mcp'));

ALTER TABLE usage_daily
  ADD COLUMN interface text NOT NULL DEFAULT 'rest' CHECK (interface IN ('rest', 'mcp'));
ALTER TABLE usage_daily DROP CONSTRAINT usage_daily_pkey, ADD PRIMARY KEY (account_id, day, interface);

ALTER TABLE usage_monthly
  ADD COLUMN interface text NOT NULL DEFAULT 'rest' CHECK (interface IN ('rest', 'mcp'));
ALTER TABLE usage_monthly DROP CONSTRAINT usage_monthly_pkey, ADD PRIMARY KEY (account_id, month, interface);

-- Down Migration
WITH gone AS (DELETE FROM usage_daily WHERE interface <> 'rest' RETURNING account_id, day, charged)
INSERT INTO usage_daily (account_id, day, interface, charged)
SELECT account_id, day, 'rest', sum(charged) FROM gone GROUP BY account_id, day
ON CONFLICT (account_id, day, interface) DO UPDATE SET charged = usage_daily.charged + EXCLUDED.charged;
WITH gone AS (DELETE FROM usage_monthly WHERE interface <> 'rest' RETURNING account_id, month, charged)
INSERT INTO usage_monthly (account_id, month, interface, charged)
SELECT account_id, month, 'rest', sum(charged) FROM gone GROUP BY account_id, month
ON CONFLICT (account_id, month, interface) DO UPDATE SET charged = usage_monthly.charged + EXCLUDED.charged;
ALTER TABLE usage_daily DROP CONSTRAINT usage_daily_pkey, ADD PRIMARY KEY (account_id, day);
ALTER TABLE usage_daily DROP COLUMN interface;
ALTER TABLE usage_monthly DROP CONSTRAINT usage_monthly_pkey, ADD PRIMARY KEY (account_id, month);
ALTER TABLE usage_monthly DROP COLUMN interface;
ALTER TABLE usage_events DROP COLUMN interface;
