import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { message, sealDifferences } from './errors.ts';
import { type DayManifest, type DaySeal, dayFileNames, normalizeSeal, parseManifest } from './format.ts';
import { type ArchiveTarget, ObjectNotFoundError } from './target.ts';

/** What `verifyArchivedDay` found. */
export interface VerifyReport {
  ok: boolean;
  day: string;
  /** The data object's URI. */
  uri: string;
  /** Count and sha256 of the lines the data file decompressed to; null when it could not be read whole. */
  events: number | null;
  sha256: string | null;
  /** Size and sha256 of the stored .gz bytes; null when they could not be read. */
  file: { bytes: number; sha256: string } | null;
  manifest: DayManifest | null;
  /** Everything found wrong, one sentence each; empty when ok. */
  reasons: string[];
}

/**
 * Reads a day's archive back from the target and checks it against the seal: the manifest (present,
 * well formed, of this day, its counts equal to the seal's), the data file (its stored size and sha256
 * equal to the manifest's, it decompresses whole, it ends at a line's end) and its lines (count and
 * sha256 equal to the seal's). Never throws for what it finds (a missing object, a read error included):
 * it reports.
 */
export async function verifyArchivedDay(
  target: ArchiveTarget,
  day: string,
  seal: DaySeal,
): Promise<VerifyReport> {
  const names = dayFileNames(day);
  const want = normalizeSeal(seal);
  const reasons: string[] = [];
  const report: VerifyReport = {
    ok: false,
    day,
    uri: target.uriOf(names.data),
    events: null,
    sha256: null,
    file: null,
    manifest: null,
    reasons,
  };

  try {
    const parsed = parseManifest((await readAll(await target.read(names.manifest))).toString('utf8'), day);
    reasons.push(...parsed.problems);
    report.manifest = parsed.manifest;
    if (parsed.manifest) reasons.push(...sealDifferences('the manifest', parsed.manifest, want));
  } catch (err) {
    reasons.push(
      err instanceof ObjectNotFoundError
        ? `the manifest is missing: ${err.uri}`
        : `the manifest could not be read: ${message(err)}`,
    );
  }

  try {
    const src = await target.read(names.data);
    const gz = createHash('sha256');
    let bytes = 0;
    const lines = createHash('sha256');
    let events = 0;
    let last = 10;
    await pipeline(
      src,
      async function* (source: AsyncIterable<Buffer>) {
        for await (const chunk of source) {
          gz.update(chunk);
          bytes += chunk.length;
          yield chunk;
        }
      },
      createGunzip(),
      async (source: AsyncIterable<Buffer>) => {
        for await (const chunk of source) {
          lines.update(chunk);
          for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, nl + 1)) events++;
          if (chunk.length > 0) last = chunk[chunk.length - 1]!;
        }
      },
    );
    report.file = { bytes, sha256: gz.digest('hex') };
    report.events = events;
    report.sha256 = lines.digest('hex');
    if (last !== 10) reasons.push('the data file ends inside a line');
    if (report.manifest) {
      const f = report.manifest.file;
      if (f.bytes !== bytes) reasons.push(`the data file has ${bytes} bytes, the manifest says ${f.bytes}`);
      if (f.sha256 !== report.file.sha256)
        reasons.push(`the data file has sha256 ${report.file.sha256}, the manifest says ${f.sha256}`);
    }
    reasons.push(...sealDifferences('the data file', { events, sha256: report.sha256 }, want));
  } catch (err) {
    reasons.push(
      err instanceof ObjectNotFoundError
        ? `the data file is missing: ${err.uri}`
        : /^Z_/.test((err as { code?: string }).code ?? '')
          ? `the data file does not decompress: ${message(err)}`
          : `the data file could not be read: ${message(err)}`,
    );
  }
  report.ok = reasons.length === 0;
  return report;
}

/** A manifest is a few KiB; one larger than this is not one (and is not read into memory whole). */
const MANIFEST_MAX_BYTES = 1024 * 1024;

async function readAll(stream: Readable, limit = MANIFEST_MAX_BYTES): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    bytes += chunk.length;
    if (bytes > limit) {
      stream.destroy();
      throw new Error(`larger than ${limit} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
