import { type Pool, withTransaction } from '@mdp/db';
import { AREAS } from '../areas/index.ts';
import { brands, builtInBrandRows } from '../areas/stocks/importers/aliases.ts';
import { stockImportKinds } from '../areas/stocks/index.ts';
import { announceDatasetChange } from '../store/dataset-change.ts';
import { LOAD_LOCK_SQL } from '../store/load-generated.ts';
import { readSource, type SourceFile } from './csv.ts';
import type { ImportKind } from './kind.ts';
import { buildReport, type ImportReport, type Rejection, type Sourced } from './report.ts';

export { ImportFileError } from './report.ts';

/** Every import kind, in the order a full import runs them: the stocks' first, then each area's. */
export const IMPORT_KINDS: Record<string, ImportKind> = {
  ...stockImportKinds,
  ...Object.assign({}, ...AREAS.map((a) => a.importKinds)),
};

/**
 * Imports files of one kind, all or nothing: every file is parsed before anything is written (a
 * malformed one throws ImportFileError naming the file and line), then all rows are applied in one
 * transaction.
 */
export async function runImport(pool: Pool, kindName: string, paths: string[]): Promise<ImportReport> {
  return importSources(pool, kindName, paths.map(readSource));
}

/** runImport over files already read (the platform's folder import hands over zip members this way). */
export async function importSources(
  pool: Pool,
  kindName: string,
  sources: readonly SourceFile[],
  onParsed: (file: string) => void = () => {},
): Promise<ImportReport> {
  const kind = IMPORT_KINDS[kindName];
  if (!kind) throw new Error(`unknown import kind "${kindName}"`);
  const files: { file: string; read: number }[] = [];
  const rows: Sourced<unknown>[] = [];
  const rejections: Rejection[] = [];
  if (sources.length === 0 && kind === brands) {
    const builtIn = builtInBrandRows();
    files.push({ file: '(built-in brands)', read: builtIn.length });
    rows.push(...builtIn);
  }
  for (const source of sources) {
    const parsed = kind.parse(source);
    files.push({ file: source.path, read: parsed.read });
    rows.push(...parsed.rows);
    rejections.push(...parsed.rejections);
    onParsed(source.path);
  }
  const applied = await withTransaction(pool, async (client) => {
    await client.query(LOAD_LOCK_SQL);
    const applied = await kind.apply(client, rows);
    if (applied.changed > 0) await announceDatasetChange(client);
    return applied;
  });
  return buildReport(
    kindName,
    files,
    applied.loaded,
    [...rejections, ...applied.rejections],
    applied.changed,
  );
}
