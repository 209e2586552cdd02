-- Up Migration

-- One row per ingested filing, keyed by symbol (the equities service owns the stock universe; filings
-- only carry the symbol they were filed under). doc_id is the public id; content_sha256 makes ingest
-- idempotent. page_offsets[i] (1-based) is where page i starts in `markdown`, counted in characters, and
-- page_offsets[page_count + 1] is its length, so a page range is one substr() and never a re-split.
CREATE TABLE documents (
  doc_id          integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  symbol          text NOT NULL CHECK (symbol ~ '^[A-Z0-9][A-Z0-9&._-]{0,63}$'),
  doc_type        text NOT NULL CHECK (doc_type IN ('concall', 'annual_report', 'presentation', 'drhp', 'rhp')),
  period          text NOT NULL CHECK (length(period) BETWEEN 1 AND 32),
  doc_date        date NOT NULL,
  title           text NOT NULL DEFAULT '',
  page_count      integer NOT NULL CHECK (page_count >= 1),
  source_format   text NOT NULL CHECK (source_format IN ('pdf', 'markdown')),
  content_sha256  bytea NOT NULL UNIQUE,
  page_offsets    integer[] NOT NULL CHECK (cardinality(page_offsets) = page_count + 1),
  markdown        text NOT NULL,
  pdf             bytea,
  digest          jsonb NOT NULL,
  ingested_at     timestamptz NOT NULL DEFAULT now(),
  CHECK ((source_format = 'pdf') = (pdf IS NOT NULL))
);

-- Uncompressed out-of-line storage lets substr() fetch only the slices a page range needs.
ALTER TABLE documents ALTER COLUMN markdown SET STORAGE EXTERNAL;
ALTER TABLE documents ALTER COLUMN pdf SET STORAGE EXTERNAL;

CREATE INDEX documents_symbol_newest ON documents (symbol, doc_date DESC, doc_id DESC);
CREATE INDEX documents_symbol_type_newest ON documents (symbol, doc_type, doc_date DESC, doc_id DESC);

-- A completed default-dataset load, so `load-default --if-empty` resumes an interrupted load (ingest is
-- idempotent by hash) instead of mistaking a partial dataset for a loaded one.
CREATE TABLE dataset_loads (
  seed        text NOT NULL,
  companies   integer NOT NULL,
  documents   integer NOT NULL,
  pages       integer NOT NULL,
  loaded_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (seed, companies)
);

-- Down Migration
DROP TABLE dataset_loads;
DROP TABLE documents;
