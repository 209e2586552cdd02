-- Up Migration

-- The NSE trading calendar in force for every service: equities-data serves it (TradingCalendarService)
-- and announces its changes; options analytics and the import schedule read it from there. A new
-- database starts from the seed compiled into @mdp/nse-calendar (inserted by the first process that
-- finds no year here); from then on each year of a list is an imported exchange file, replaced whole.
-- Two lists: `trading` (holidays, and special sessions on days otherwise closed) and `clearing`
-- (settlement holidays, kept for the record; they close no session).
CREATE TABLE trading_calendar (
  list        text NOT NULL CHECK (list IN ('trading', 'clearing')),
  day         date NOT NULL,
  kind        text NOT NULL CHECK (kind IN ('holiday', 'special', 'clearing')),
  description text NOT NULL DEFAULT '',
  source      text NOT NULL,
  PRIMARY KEY (list, day),
  CHECK ((list = 'clearing') = (kind = 'clearing'))
);

-- The years of each list that are loaded, and from where: the trading list's last year is when the
-- calendar runs out.
CREATE TABLE trading_calendar_years (
  list      text NOT NULL CHECK (list IN ('trading', 'clearing')),
  year      integer NOT NULL CHECK (year BETWEEN 1950 AND 2200),
  source    text NOT NULL,
  loaded_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (list, year)
);

-- Down Migration
DROP TABLE trading_calendar_years;
DROP TABLE trading_calendar;
