-- Up Migration

-- Underlyings with derivatives data, from NSE's lot-size file, the bhavcopies or the generator.
CREATE TABLE underlyings (
  symbol            text PRIMARY KEY CHECK (symbol ~ '^[A-Z0-9&._-]{1,64}$'),
  name              text,
  kind              text NOT NULL CHECK (kind IN ('index', 'stock')),
  -- The last day its derivatives traded, once they have been discontinued; NULL while they trade.
  derivatives_until date,
  source            text NOT NULL,
  updated_at        timestamptz NOT NULL DEFAULT now()
);

-- Contract lot sizes by expiry month, from NSE's fo_mktlots file.
CREATE TABLE lot_sizes (
  symbol   text NOT NULL,
  month    text NOT NULL CHECK (month ~ '^[0-9]{4}-[0-9]{2}$'),
  lot_size integer NOT NULL CHECK (lot_size > 0),
  PRIMARY KEY (symbol, month)
);

-- One underlying's derivatives at one close. Immutable once written: a re-import of the same day
-- replaces the row (and so gets a new id), which is what the service's caches are keyed by.
CREATE TABLE snapshots (
  id               bigserial PRIMARY KEY,
  underlying       text NOT NULL,
  trade_date       date NOT NULL,
  snapshot_ts      timestamptz NOT NULL,
  underlying_price double precision NOT NULL CHECK (underlying_price > 0),
  source           text NOT NULL,
  loaded_at        timestamptz NOT NULL DEFAULT now(),
  UNIQUE (underlying, trade_date)
);

-- Prices in rupees; close and last are NULL for a contract that did not trade that day. OI and its
-- change are in units of the underlying (as NSE reports them), volume in contracts.
CREATE TABLE option_quotes (
  snapshot_id bigint NOT NULL REFERENCES snapshots (id) ON DELETE CASCADE,
  expiry      date NOT NULL,
  strike      double precision NOT NULL CHECK (strike > 0),
  option_type text NOT NULL CHECK (option_type IN ('call', 'put')),
  close       double precision,
  last        double precision,
  bid         double precision,
  ask         double precision,
  oi          bigint NOT NULL,
  oi_change   bigint NOT NULL,
  volume      bigint NOT NULL,
  lot_size    integer NOT NULL CHECK (lot_size > 0),
  PRIMARY KEY (snapshot_id, expiry, strike, option_type)
);

CREATE TABLE future_quotes (
  snapshot_id bigint NOT NULL REFERENCES snapshots (id) ON DELETE CASCADE,
  expiry      date NOT NULL,
  close       double precision,
  oi          bigint NOT NULL,
  oi_change   bigint NOT NULL,
  volume      bigint NOT NULL,
  lot_size    integer NOT NULL CHECK (lot_size > 0),
  PRIMARY KEY (snapshot_id, expiry)
);

-- One row per underlying and trading day: the series the IV history is served from. IV rank and
-- percentile and realised volatility are derived from it when read. Volatilities are fractions.
CREATE TABLE daily_analytics (
  underlying      text NOT NULL,
  trade_date      date NOT NULL,
  close           double precision NOT NULL CHECK (close > 0),
  atm_iv          double precision,
  skew_25d        double precision,
  pcr_oi          double precision,
  pcr_volume      double precision,
  max_pain        double precision,
  max_pain_expiry date,
  source          text NOT NULL,
  PRIMARY KEY (underlying, trade_date)
);

-- What has been loaded: generator runs and imported files, for operators.
CREATE TABLE loads (
  id        bigserial PRIMARY KEY,
  kind      text NOT NULL,
  detail    jsonb NOT NULL,
  loaded_at timestamptz NOT NULL DEFAULT now()
);

-- Down Migration
DROP TABLE loads;
DROP TABLE daily_analytics;
DROP TABLE future_quotes;
DROP TABLE option_quotes;
DROP TABLE snapshots;
DROP TABLE lot_sizes;
DROP TABLE underlyings;
