/** What an import did: rows read, loaded and rejected (with reasons), per file and in total. */

/** A file that cannot be read as its kind: nothing of the import is loaded. */
export class ImportFileError extends Error {
  constructor(
    readonly file: string,
    readonly line: number,
    detail: string,
  ) {
    super(`${file}:${line}: ${detail}`);
    this.name = 'ImportFileError';
  }
}

export interface Rejection {
  file: string;
  line: number;
  reason: string;
}

interface FileReport {
  file: string;
  read: number;
  loaded: number;
  rejected: number;
  /** Reason → count, with the first few line numbers as examples. */
  reasons: Record<string, { count: number; lines: number[] }>;
}

export interface ImportReport {
  kind: string;
  files: FileReport[];
  read: number;
  loaded: number;
  /** Rows that changed the database (inserted, or updated to a different value); 0 on a re-run. */
  changed: number;
  rejected: number;
}

/** Where a parsed row came from, carried through to the database phase for its report. */
export interface Sourced<T> {
  file: string;
  line: number;
  value: T;
}

export function buildReport(
  kind: string,
  files: { file: string; read: number }[],
  loaded: Sourced<unknown>[],
  rejections: Rejection[],
  changed: number,
): ImportReport {
  const byFile = new Map<string, FileReport>(
    files.map((f) => [f.file, { file: f.file, read: f.read, loaded: 0, rejected: 0, reasons: {} }]),
  );
  for (const l of loaded) byFile.get(l.file)!.loaded++;
  for (const r of rejections) {
    const f = byFile.get(r.file)!;
    f.rejected++;
    f.reasons[r.reason] ??= { count: 0, lines: [] };
    const entry = f.reasons[r.reason]!;
    entry.count++;
    if (entry.lines.length < 5) entry.lines.push(r.line);
  }
  const list = [...byFile.values()];
  return {
    kind,
    files: list,
    read: list.reduce((a, f) => a + f.read, 0),
    loaded: list.reduce((a, f) => a + f.loaded, 0),
    changed,
    rejected: list.reduce((a, f) => a + f.rejected, 0),
  };
}

export function formatReport(r: ImportReport): string {
  const lines = [`import ${r.kind}: ${r.files.length} file(s)`];
  for (const f of r.files) {
    lines.push(`  ${f.file}: read ${f.read}, loaded ${f.loaded}, rejected ${f.rejected}`);
    for (const [reason, { count, lines: at }] of Object.entries(f.reasons).sort(
      (a, b) => b[1].count - a[1].count,
    ))
      lines.push(`    ${count} × ${reason} (e.g. line ${at.join(', ')})`);
  }
  lines.push(
    `  total: read ${r.read}, loaded ${r.loaded} (${r.changed} changed the database), rejected ${r.rejected}`,
  );
  return lines.join('\n');
}
