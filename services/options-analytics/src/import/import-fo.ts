import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Pool } from 'pg';
import { dailyRowFromSnapshot } from '../domain/daily-row.ts';
import { OptionsStore } from '../store/options-store.ts';
import { FileFormatError } from './format-error.ts';
import { parseUdiff } from './udiff.ts';

export interface FoImportSummary {
  file: string;
  tradeDates: string[];
  underlyings: number;
  options: number;
}

/** The files named, with each directory replaced by the .csv files directly in it (sorted). */
export async function expandPaths(paths: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const p of paths) {
    if ((await stat(p)).isDirectory()) {
      const names = (await readdir(p)).filter((n) => n.toLowerCase().endsWith('.csv')).sort();
      out.push(...names.map((n) => join(p, n)));
    } else out.push(p);
  }
  return out;
}

/** A file's text and the name messages give it (a zip member is `archive.zip/inner.csv`). */
export interface TextFile {
  path: string;
  text: string;
}

/** A file that is not what its kind expects: nothing of the import it belongs to is written. */
export class OptionsFileError extends Error {
  constructor(
    readonly file: string,
    readonly line: number,
    detail: string,
  ) {
    super(`${file}:${line}: ${detail}`);
    this.name = 'OptionsFileError';
  }
}

/** A parser's format error, naming the file too. */
export const located = (file: string, err: FileFormatError) =>
  new OptionsFileError(file, err.line, err.detail);

export const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** Which of these content hashes an earlier load of `kind` recorded. */
export async function loadedBefore(
  pool: Pool,
  kind: string,
  hashes: readonly string[],
): Promise<Set<string>> {
  const { rows } = await pool.query<{ sha: string }>(
    `SELECT detail->>'sha256' AS sha FROM loads WHERE kind = $1 AND detail->>'sha256' = ANY($2::text[])`,
    [kind, hashes],
  );
  return new Set(rows.map((r) => r.sha));
}

/**
 * Imports UDiFF F&O bhavcopies in one transaction, every file parsed before anything is written (a
 * malformed one throws OptionsFileError naming file and line): each underlying's snapshot for the
 * day (replacing an earlier import of the same day), its daily analytics row, and the underlying.
 * With `skipLoaded`, a file whose exact content was imported before is left out (reported unchanged).
 */
export async function importFoTexts(
  pool: Pool,
  files: readonly TextFile[],
  opts: { r: number; symbols?: ReadonlySet<string>; skipLoaded?: boolean },
): Promise<(FoImportSummary & { unchanged: boolean })[]> {
  const hashes = files.map((f) => sha256(f.text));
  const known = opts.skipLoaded ? await loadedBefore(pool, 'nse_udiff', hashes) : new Set<string>();
  const parsed = files.map((f, i) => {
    const sha = hashes[i]!;
    const unchanged = known.has(sha);
    if (unchanged) return { f, sha, unchanged, snapshots: [] };
    try {
      return { f, sha, unchanged, snapshots: parseUdiff(f.text, opts.symbols) };
    } catch (err) {
      if (err instanceof FileFormatError) throw located(f.path, err);
      throw err;
    }
  });
  await OptionsStore.transaction(pool, async (store) => {
    for (const { f, sha, unchanged, snapshots } of parsed) {
      if (unchanged) continue;
      const rows = snapshots.map((s) => dailyRowFromSnapshot(s, opts.r, 'nse_udiff'));
      await store.upsertUnderlyings(
        [...new Map(snapshots.map((s) => [s.underlying, s])).values()].map((s) => ({
          symbol: s.underlying,
          name: null,
          kind: s.kind,
          derivativesUntil: null,
          source: 'nse_udiff',
        })),
      );
      await store.saveSnapshots(snapshots, 'nse_udiff');
      await store.saveDailyRows(rows);
      await store.recordLoad('nse_udiff', {
        file: f.path,
        sha256: sha,
        tradeDates: [...new Set(snapshots.map((s) => s.tradeDate))],
        underlyings: snapshots.length,
      });
    }
  });
  return parsed.map(({ f, unchanged, snapshots }) => ({
    file: f.path,
    unchanged,
    tradeDates: [...new Set(snapshots.map((s) => s.tradeDate))].sort(),
    underlyings: new Set(snapshots.map((s) => s.underlying)).size,
    options: snapshots.reduce((n, s) => n + s.options.length, 0),
  }));
}

/** Imports one UDiFF F&O bhavcopy file (again, even when its content was imported before). */
export async function importFoFile(
  pool: Pool,
  file: string,
  opts: { r: number; symbols?: ReadonlySet<string> },
): Promise<FoImportSummary> {
  const [summary] = await importFoTexts(pool, [{ path: file, text: await readFile(file, 'utf8') }], opts);
  const { unchanged: _, ...rest } = summary!;
  return rest;
}
