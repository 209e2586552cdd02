-- Up Migration

-- Financial statements (SPEC 2.3), one row per company, section, basis and period. `items` maps row
-- names to amounts in rupees crore (EPS in rupees). Ratios are not stored: they are derived from these
-- when a document is built. `available_from` is the filing day: the period is not served before it.
CREATE TABLE financial_periods (
  stock_id       integer NOT NULL REFERENCES stocks (id) ON DELETE CASCADE,
  section        text NOT NULL CHECK (section IN ('quarterly', 'profit_loss', 'balance_sheet', 'cash_flow')),
  basis          text NOT NULL CHECK (basis IN ('consolidated', 'standalone')),
  period_end     date NOT NULL,
  available_from date NOT NULL,
  source         text NOT NULL,
  items          jsonb NOT NULL,
  PRIMARY KEY (stock_id, section, basis, period_end)
);

-- Down Migration

DROP TABLE financial_periods;
