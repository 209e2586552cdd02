-- Up Migration

-- FII/DII cash-market flows, rupees crore: one row per session (`day`) or per calendar month (`month`,
-- dated the last day the figure covers, e.g. a month still in progress). An import replaces what was
-- held for the months it covers, so every month is held at one granularity.
CREATE TABLE fii_dii_cash (
  period   text NOT NULL CHECK (period IN ('day', 'month')),
  d        date NOT NULL,
  fii_buy  numeric(14, 2) NOT NULL CHECK (fii_buy >= 0),
  fii_sell numeric(14, 2) NOT NULL CHECK (fii_sell >= 0),
  fii_net  numeric(14, 2) GENERATED ALWAYS AS (fii_buy - fii_sell) STORED,
  dii_buy  numeric(14, 2) NOT NULL CHECK (dii_buy >= 0),
  dii_sell numeric(14, 2) NOT NULL CHECK (dii_sell >= 0),
  dii_net  numeric(14, 2) GENERATED ALWAYS AS (dii_buy - dii_sell) STORED,
  PRIMARY KEY (period, d)
);

-- NSE participant-wise F&O open interest (`oi`) and traded volume (`volume`), in contracts, per
-- participant and the market total NSE prints (its rows can differ from the participants' sum by a
-- contract of rounding in index options).
CREATE TABLE fo_participants (
  d                   date NOT NULL,
  kind                text NOT NULL CHECK (kind IN ('oi', 'volume')),
  participant         text NOT NULL CHECK (participant IN ('client', 'dii', 'fii', 'pro', 'total')),
  fut_idx_long        bigint NOT NULL CHECK (fut_idx_long >= 0),
  fut_idx_short       bigint NOT NULL CHECK (fut_idx_short >= 0),
  fut_stk_long        bigint NOT NULL CHECK (fut_stk_long >= 0),
  fut_stk_short       bigint NOT NULL CHECK (fut_stk_short >= 0),
  opt_idx_call_long   bigint NOT NULL CHECK (opt_idx_call_long >= 0),
  opt_idx_put_long    bigint NOT NULL CHECK (opt_idx_put_long >= 0),
  opt_idx_call_short  bigint NOT NULL CHECK (opt_idx_call_short >= 0),
  opt_idx_put_short   bigint NOT NULL CHECK (opt_idx_put_short >= 0),
  opt_stk_call_long   bigint NOT NULL CHECK (opt_stk_call_long >= 0),
  opt_stk_put_long    bigint NOT NULL CHECK (opt_stk_put_long >= 0),
  opt_stk_call_short  bigint NOT NULL CHECK (opt_stk_call_short >= 0),
  opt_stk_put_short   bigint NOT NULL CHECK (opt_stk_put_short >= 0),
  PRIMARY KEY (d, kind, participant)
);

-- NSE's FII derivatives statistics: contracts and rupees crore bought, sold and open at the close.
CREATE TABLE fii_derivatives (
  d              date NOT NULL,
  instrument     text NOT NULL CHECK (instrument IN ('index_futures', 'index_options', 'stock_futures', 'stock_options')),
  buy_contracts  bigint NOT NULL CHECK (buy_contracts >= 0),
  buy_amount     numeric(14, 2) NOT NULL,
  sell_contracts bigint NOT NULL CHECK (sell_contracts >= 0),
  sell_amount    numeric(14, 2) NOT NULL,
  oi_contracts   bigint NOT NULL CHECK (oi_contracts >= 0),
  oi_amount      numeric(14, 2) NOT NULL,
  PRIMARY KEY (d, instrument)
);

-- FPI assets under custody by sector at each fortnight's end (15th and month end) and the
-- fortnight's net investment, rupees crore.
CREATE TABLE fpi_sectors (
  period_end date NOT NULL,
  sector     text NOT NULL CHECK (sector <> ''),
  aum        numeric(16, 2) NOT NULL CHECK (aum >= 0),
  flow       numeric(14, 2) NOT NULL,
  PRIMARY KEY (period_end, sector)
);

-- Down Migration

DROP TABLE fpi_sectors;
DROP TABLE fii_derivatives;
DROP TABLE fo_participants;
DROP TABLE fii_dii_cash;
