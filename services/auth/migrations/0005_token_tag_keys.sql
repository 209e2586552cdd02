-- Up Migration

-- Which tag key a token was issued under (issue 41). NULL: issued before tags (the legacy CRC32 format),
-- accepted on the gateway's bounded path until its owner rotates it. `token outdated` lists live tokens
-- not under the current key, so operators can ask their owners to rotate before a key or the legacy
-- format is retired.
ALTER TABLE tokens ADD COLUMN tag_key_id text;

-- Down Migration
ALTER TABLE tokens DROP COLUMN tag_key_id;
