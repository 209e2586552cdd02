import type { S3TargetOptions } from './s3-target.ts';
import { type ArchiveTarget, FolderTarget } from './target.ts';

/**
 * The usage log's archive: sealed IST days written to a folder or an S3-compatible bucket as gzipped
 * canonical lines plus a manifest (FORMAT.md), read back against their seals, and restored for audits.
 */
export { ArchiveError } from './errors.ts';
export { exportDay } from './export.ts';
export { assertDay, type DayFigure, figureDifferences } from './format.ts';
export { restoreArchivedDay } from './restore.ts';
export { type ArchiveTarget, FolderTarget, type ObjectBody } from './target.ts';
export { verifyArchivedDay } from './verify.ts';

/** Where the archive goes, as configuration says it. */
export type ArchiveTargetSpec = { kind: 'folder'; dir: string } | ({ kind: 's3' } & S3TargetOptions);

/**
 * The target a spec names. The AWS SDK is loaded only for an S3 target, so a ledger archiving to a folder
 * never loads it.
 */
export async function openArchiveTarget(spec: ArchiveTargetSpec): Promise<ArchiveTarget> {
  if (spec.kind === 'folder') return new FolderTarget(spec.dir);
  const { S3Target } = await import('./s3-target.ts');
  const { kind: _, ...options } = spec;
  return S3Target.open(options);
}
