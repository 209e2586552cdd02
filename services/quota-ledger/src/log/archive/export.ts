import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { Readable } from 'node:stream';
import { createGzip, type ZlibOptions } from 'node:zlib';
import type { PoolClient } from 'pg';
import { readCanonicalDay } from '../usage-day.ts';
import { ArchiveError, message, sealDifferences } from './errors.ts';
import {
  assertDay,
  buildManifest,
  type DayFigure,
  type DaySeal,
  dayFileNames,
  normalizeSeal,
  serializeManifest,
} from './format.ts';
import type { ArchiveTarget } from './target.ts';
import { verifyArchivedDay } from './verify.ts';

/**
 * Export of a sealed IST day of the usage log to an archive target (format: FORMAT.md). Nothing here
 * drops, deletes or changes the log: the caller drops a day's partition only after `exportDay` returned.
 */

/** Lines are handed to gzip in batches of about this many bytes (a zlib call per line would cost more than the line). */
const BATCH_BYTES = 64 * 1024;
/**
 * gzip at its default level, in 64 KiB output chunks, and taking up to 1 MiB of lines before the read
 * waits for it, so that reading the day and compressing it overlap (zlib works off the main thread).
 * The bytes it makes are not part of the format: only the lines they decompress to are.
 */
const GZIP: ZlibOptions & { writableHighWaterMark: number } = {
  chunkSize: 64 * 1024,
  writableHighWaterMark: 1024 * 1024,
};

export interface ExportOptions {
  /** When the manifest says it was written; now by default. */
  now?: () => Date;
  /** The day's sealed figures, to record their digest in the manifest (optional). */
  figures?: readonly DayFigure[];
}

/**
 * Writes one sealed day to the target and reads it back: the day's canonical lines are streamed from
 * Postgres through gzip into `usage-events-<day>.ndjson.gz` (the write waits on the target), and the
 * data object is committed only if what was read equals the seal (count and sha256); then the manifest
 * is written, last, and both are read back from the target (gunzip, count, sha256) and checked against
 * the seal. Resolves to the data object's URI, for the seal's `archive_uri`.
 *
 * Throws an `ArchiveError` of stage `export` (the day could not be read, differs from its seal, or the
 * target refused a write: no manifest is written) or `verify` (what the target holds does not read back
 * equal to the seal). Changes nothing in Postgres. A day whose data differs from its seal never replaces
 * an object already archived; a repeated export of a day equal to its seal rewrites the same lines.
 */
export async function exportDay(
  client: PoolClient,
  day: string,
  seal: DaySeal,
  target: ArchiveTarget,
  options: ExportOptions = {},
): Promise<string> {
  let want: { events: number; sha256: string };
  try {
    assertDay(day);
    want = normalizeSeal(seal);
  } catch (err) {
    throw new ArchiveError('export', day, message(err), [], { cause: err });
  }
  const names = dayFileNames(day);
  const dataUri = target.uriOf(names.data);

  const gzip = createGzip(GZIP);
  // Its errors reach the caller through the write (or are ours, from `abandon`); a target that failed
  // before reading leaves gzip with no other listener.
  gzip.on('error', () => {});
  const gz = createHash('sha256');
  let gzBytes = 0;
  async function* stored(): AsyncGenerator<Buffer> {
    for await (const chunk of gzip as AsyncIterable<Buffer>) {
      gz.update(chunk);
      gzBytes += chunk.length;
      yield chunk;
    }
  }
  let writeFailed: { err: unknown } | undefined;
  const writing = target.write(names.data, Readable.from(stored()), { contentType: 'application/gzip' });
  writing.catch((err) => {
    writeFailed = { err };
  });
  // Rejects when the write fails (or, impossibly, ends before the data): what a wait for gzip's 'drain'
  // races, since a target that stopped reading never drains it.
  const stopped = writing.then(() => {
    throw new Error('the target ended the write before the data ended');
  });
  stopped.catch(() => {});
  const abandon = async (reason: Error) => {
    gzip.destroy(reason);
    await writing.catch(() => {});
  };

  let batch: string[] = [];
  let batchBytes = 0;
  const flush = async () => {
    if (writeFailed) throw writeFailed.err;
    if (batch.length === 0) return;
    const chunk = Buffer.from(batch.join(''));
    batch = [];
    batchBytes = 0;
    if (!gzip.write(chunk)) {
      const drained = once(gzip, 'drain');
      drained.catch(() => {});
      await Promise.race([drained, stopped]);
    }
  };

  let read: { events: number; sha256: string };
  try {
    read = await readCanonicalDay(client, day, (line) => {
      batch.push(line);
      batchBytes += line.length;
      return batchBytes >= BATCH_BYTES ? flush() : undefined;
    });
    await flush();
  } catch (err) {
    await abandon(err instanceof Error ? err : new Error(message(err)));
    if (writeFailed)
      throw new ArchiveError('export', day, `writing ${dataUri} failed: ${message(writeFailed.err)}`, [], {
        cause: writeFailed.err,
      });
    throw new ArchiveError('export', day, `reading the day from Postgres failed: ${message(err)}`, [], {
      cause: err,
    });
  }
  const differences = sealDifferences('the day in Postgres', read, want);
  if (differences.length > 0) {
    const err = new ArchiveError(
      'export',
      day,
      'the day differs from its seal; nothing was archived',
      differences,
    );
    await abandon(err);
    throw err;
  }
  gzip.end();
  try {
    await writing;
  } catch (err) {
    throw new ArchiveError('export', day, `writing ${dataUri} failed: ${message(err)}`, [], { cause: err });
  }

  const manifest = buildManifest({
    day,
    events: read.events,
    sha256: read.sha256,
    file: { bytes: gzBytes, sha256: gz.digest('hex') },
    writtenAt: (options.now ?? (() => new Date()))(),
    ...(options.figures ? { figures: options.figures } : {}),
  });
  const manifestUri = target.uriOf(names.manifest);
  try {
    await target.write(names.manifest, serializeManifest(manifest), { contentType: 'application/json' });
  } catch (err) {
    throw new ArchiveError('export', day, `writing ${manifestUri} failed: ${message(err)}`, [], {
      cause: err,
    });
  }

  const report = await verifyArchivedDay(target, day, want);
  if (!report.ok)
    throw new ArchiveError('verify', day, `${dataUri} does not read back equal to the seal`, report.reasons);
  return dataUri;
}
