-- Up Migration

-- A number every committed import or load moves on, in the transaction that changes the data (the same
-- one that notifies `equities_dataset_changed`). A service that lost its LISTEN connection, and so may
-- have missed a notification, compares it with the number it loaded before reloading everything.
CREATE TABLE dataset_version (
  only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
  version  bigint NOT NULL
);
INSERT INTO dataset_version (version) VALUES (0);

-- Down Migration
DROP TABLE dataset_version;
