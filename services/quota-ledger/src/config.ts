import { usageStreamConfig } from '@mdp/config';
import { Type } from '@sinclair/typebox';

/** Variables of the ledger service besides the common and database ones. */
export const ledgerConfig = {
  ...usageStreamConfig,
  SHARD_INDEX: Type.Integer({
    default: 0,
    minimum: 0,
    maximum: 1023,
    description: 'Which shard this replica is',
  }),
  SHARD_COUNT: Type.Integer({
    default: 1,
    minimum: 1,
    maximum: 1024,
    description: 'How many shards own accounts',
  }),
  LEASE_MS: Type.Integer({
    default: 2_000,
    minimum: 0,
    maximum: 30_000,
    description:
      'How long an admission lease lasts: a gateway asking for an account alone may admit it locally that long, up to four times as long for an account calling less often (0: no leases, every request is decided by the shard)',
  }),
  SHARD_CLAIM_WAIT_MS: Type.Integer({
    default: 30_000,
    minimum: 0,
    maximum: 600_000,
    description:
      'How long a replica waits at start-up for its shard index while another process holds it, before exiting with the holder named',
  }),
  LEDGER_STATS_INTERVAL_MS: Type.Integer({
    default: 10_000,
    minimum: 200,
    maximum: 600_000,
    description: 'How often the consumer-lag and top-account gauges are refreshed',
  }),
  REBUILD_CHECK_INTERVAL_MS: Type.Integer({
    default: 3_600_000,
    minimum: 0,
    maximum: 86_400_000,
    description:
      'How often shard 0 compares the projections of today and yesterday with a replay of their events (0: never)',
  }),
  USAGE_LOG_RETENTION_DAYS: Type.Integer({
    default: 62,
    minimum: 3,
    maximum: 3650,
    description:
      'IST days of events kept in Postgres; older sealed days are archived, checked against their seal, then dropped (62 keeps the current and the previous month rebuildable from events)',
  }),
  USAGE_PARTITIONS_AHEAD_DAYS: Type.Integer({
    default: 7,
    minimum: 2,
    maximum: 60,
    description: 'IST days of event-log partitions made ahead of today',
  }),
  USAGE_SEAL_GRACE_MINUTES: Type.Integer({
    default: 20,
    minimum: 11,
    maximum: 1440,
    description:
      'Minutes after an IST day ends before it may be sealed: longer than a gateway retries a refund or void (10 minutes) plus a hold',
  }),
  USAGE_UPKEEP_INTERVAL_MS: Type.Integer({
    default: 300_000,
    minimum: 1_000,
    maximum: 3_600_000,
    description:
      'How often shard 0 makes partitions ahead, seals closed days, and archives and drops old ones',
  }),
  USAGE_ARCHIVE_DIR: Type.String({
    default: '.local/usage-archive',
    minLength: 1,
    maxLength: 1024,
    description:
      'The folder archive target (when no S3 bucket is set): one gzip NDJSON file and a manifest per day',
  }),
  USAGE_ARCHIVE_S3_BUCKET: Type.String({
    default: '',
    maxLength: 63,
    pattern: '^([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])?$',
    description: 'An S3(-compatible) bucket to archive to instead of the folder',
  }),
  USAGE_ARCHIVE_S3_PREFIX: Type.String({
    default: 'usage-events/',
    maxLength: 512,
    description: 'Key prefix of archived days in the bucket',
  }),
  USAGE_ARCHIVE_S3_ENDPOINT: Type.String({
    default: '',
    maxLength: 1024,
    description: 'Endpoint URL of an S3-compatible store (empty: AWS)',
  }),
  USAGE_ARCHIVE_S3_REGION: Type.String({ default: 'us-east-1', maxLength: 64 }),
  USAGE_ARCHIVE_S3_FORCE_PATH_STYLE: Type.Boolean({
    default: false,
    description: 'Path-style bucket URLs (most S3-compatible stores)',
  }),
};
