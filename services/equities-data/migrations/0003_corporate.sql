-- Up Migration

-- Credit ratings become a history of actions per instrument (the profile shows them too).
ALTER TABLE credit_ratings ADD COLUMN instrument text NOT NULL DEFAULT 'Long-term bank facilities';
ALTER TABLE credit_ratings DROP CONSTRAINT credit_ratings_pkey;
ALTER TABLE credit_ratings ADD PRIMARY KEY (stock_id, agency, instrument, rated_on);

-- Quarterly shareholding pattern in percent; each row sums to 100. pledged_of_promoter is the percent
-- of the promoter holding pledged.
CREATE TABLE shareholding (
  stock_id            integer NOT NULL REFERENCES stocks (id) ON DELETE CASCADE,
  quarter_end         date NOT NULL,
  promoter            numeric(5, 2) NOT NULL,
  fii                 numeric(5, 2) NOT NULL,
  dii                 numeric(5, 2) NOT NULL,
  government          numeric(5, 2) NOT NULL,
  public              numeric(5, 2) NOT NULL,
  pledged_of_promoter numeric(5, 2) NOT NULL DEFAULT 0,
  PRIMARY KEY (stock_id, quarter_end),
  CHECK (promoter + fii + dii + government + public = 100),
  CHECK (pledged_of_promoter BETWEEN 0 AND 100)
);

CREATE TABLE pledge_events (
  stock_id integer NOT NULL REFERENCES stocks (id) ON DELETE CASCADE,
  d        date NOT NULL,
  kind     text NOT NULL CHECK (kind IN ('creation', 'release')),
  shares   bigint NOT NULL CHECK (shares > 0),
  pledgee  text NOT NULL
);
CREATE INDEX pledge_events_stock ON pledge_events (stock_id, d);

CREATE TABLE forecasts (
  stock_id       integer NOT NULL REFERENCES stocks (id) ON DELETE CASCADE,
  period_type    text NOT NULL CHECK (period_type IN ('annual', 'quarterly')),
  period         text NOT NULL,
  period_end     date NOT NULL,
  analysts       integer NOT NULL,
  revenue_est    float8 NOT NULL,
  revenue_act    float8,
  ebitda_est     float8 NOT NULL,
  ebitda_act     float8,
  net_income_est float8 NOT NULL,
  net_income_act float8,
  eps_est        float8 NOT NULL,
  eps_act        float8,
  roa_est        float8 NOT NULL,
  roa_act        float8,
  roe_est        float8 NOT NULL,
  roe_act        float8,
  PRIMARY KEY (stock_id, period_type, period_end)
);

CREATE TABLE price_targets (
  stock_id integer PRIMARY KEY REFERENCES stocks (id) ON DELETE CASCADE,
  d        date NOT NULL,
  analysts integer NOT NULL,
  mean     float8 NOT NULL,
  high     float8 NOT NULL,
  low      float8 NOT NULL,
  buy      integer NOT NULL,
  hold     integer NOT NULL,
  sell     integer NOT NULL
);

-- Bulk, block, insider and SAST deals; price in paise and quantity as traded that day.
CREATE TABLE deals (
  stock_id integer NOT NULL REFERENCES stocks (id) ON DELETE CASCADE,
  d        date NOT NULL,
  kind     text NOT NULL CHECK (kind IN ('bulk', 'block', 'insider', 'sast')),
  client   text NOT NULL,
  side     text NOT NULL CHECK (side IN ('buy', 'sell')),
  quantity bigint NOT NULL CHECK (quantity > 0),
  price    bigint NOT NULL CHECK (price > 0),
  remarks  text,
  UNIQUE (stock_id, d, kind, client, side, quantity, price)
);
CREATE INDEX deals_stock ON deals (stock_id, d DESC);

-- Corporate actions other than the splits and bonuses of corporate_actions.
CREATE TABLE corporate_events (
  stock_id    integer NOT NULL REFERENCES stocks (id) ON DELETE CASCADE,
  kind        text NOT NULL CHECK (kind IN ('dividend', 'agm', 'rights', 'demerger', 'buyback', 'capital_reduction', 'other')),
  ex_date     date,
  record_date date,
  event_date  date,
  amount      numeric,
  description text NOT NULL,
  UNIQUE NULLS NOT DISTINCT (stock_id, kind, ex_date, event_date, description)
);
CREATE INDEX corporate_events_stock ON corporate_events (stock_id);

CREATE TABLE news (
  id           integer PRIMARY KEY,
  published_at timestamptz NOT NULL,
  category     text NOT NULL,
  sentiment    text NOT NULL CHECK (sentiment IN ('positive', 'negative', 'neutral')),
  headline     text NOT NULL,
  summary      text NOT NULL,
  source       text NOT NULL,
  stock_ids    integer[] NOT NULL
);

-- Down Migration

DROP TABLE news;
DROP TABLE corporate_events;
DROP TABLE deals;
DROP TABLE price_targets;
DROP TABLE forecasts;
DROP TABLE pledge_events;
DROP TABLE shareholding;
-- Back to one (the newest) rating per agency.
DELETE FROM credit_ratings c
 WHERE EXISTS (SELECT 1 FROM credit_ratings n
                WHERE n.stock_id = c.stock_id AND n.agency = c.agency
                  AND (n.rated_on, n.instrument) > (c.rated_on, c.instrument));
ALTER TABLE credit_ratings DROP CONSTRAINT credit_ratings_pkey;
ALTER TABLE credit_ratings DROP COLUMN instrument;
ALTER TABLE credit_ratings ADD PRIMARY KEY (stock_id, agency);
