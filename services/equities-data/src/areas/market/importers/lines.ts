import type { SourceFile } from '../../../importers/csv.ts';

/**
 * The lines of an NSE derivatives report as cells: a title line (whose stray doubled quotes CSV
 * readers reject), then plain comma-separated rows without quoting. Blank rows are dropped.
 */
export function reportLines(file: SourceFile): { line: number; cells: string[] }[] {
  return file.text
    .split(/\r?\n/)
    .map((text, i) => ({ line: i + 1, cells: text.split(',').map((c) => c.replace(/"/g, '').trim()) }))
    .filter((l) => l.cells.some((c) => c !== ''));
}
