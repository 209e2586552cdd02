import { type ArchiveTarget, openArchiveTarget } from './archive/index.ts';
import type { UpkeepSettings } from './usage-upkeep-plan.ts';

/** The usage log's settings as the ledger's configuration gives them (see config.ts). */
export interface UsageLogConfig {
  USAGE_LOG_RETENTION_DAYS: number;
  USAGE_PARTITIONS_AHEAD_DAYS: number;
  USAGE_SEAL_GRACE_MINUTES: number;
  USAGE_ARCHIVE_DIR: string;
  USAGE_ARCHIVE_S3_BUCKET: string;
  USAGE_ARCHIVE_S3_PREFIX: string;
  USAGE_ARCHIVE_S3_ENDPOINT: string;
  USAGE_ARCHIVE_S3_REGION: string;
  USAGE_ARCHIVE_S3_FORCE_PATH_STYLE: boolean;
}

export const upkeepSettings = (c: UsageLogConfig): UpkeepSettings => ({
  retentionDays: c.USAGE_LOG_RETENTION_DAYS,
  aheadDays: c.USAGE_PARTITIONS_AHEAD_DAYS,
  sealGraceMs: c.USAGE_SEAL_GRACE_MINUTES * 60_000,
});

/** The bucket when one is set, else the folder. */
export function archiveTarget(c: UsageLogConfig): Promise<ArchiveTarget> {
  if (!c.USAGE_ARCHIVE_S3_BUCKET) return openArchiveTarget({ kind: 'folder', dir: c.USAGE_ARCHIVE_DIR });
  return openArchiveTarget({
    kind: 's3',
    bucket: c.USAGE_ARCHIVE_S3_BUCKET,
    prefix: c.USAGE_ARCHIVE_S3_PREFIX,
    region: c.USAGE_ARCHIVE_S3_REGION,
    forcePathStyle: c.USAGE_ARCHIVE_S3_FORCE_PATH_STYLE,
    ...(c.USAGE_ARCHIVE_S3_ENDPOINT ? { endpoint: c.USAGE_ARCHIVE_S3_ENDPOINT } : {}),
  });
}
