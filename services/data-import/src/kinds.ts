import {
  IMPORT_KINDS,
  type ImportReport,
  importSources,
  recogniseEquitiesFile,
  sourceFromBytes,
} from '@mdp/equities-data/import';
import {
  FILING_NAME_PATTERN,
  ingestFolderFilings,
  looksLikeFiling,
  recogniseFiling,
} from '@mdp/filings-reader/import';
import { importFoTexts, importLotText, recogniseOptionsFile } from '@mdp/options-analytics/import';
import type { Pool } from 'pg';
import type { FolderFile } from './folder.ts';

export type DataService = 'equities-data' | 'options-analytics' | 'filings-reader';

/** What importing the files of one kind did. `changed` counts database rows (or documents) written. */
export interface KindOutcome {
  read: number;
  loaded: number;
  rejected: number;
  changed: number;
  /** Files whose exact content was imported before, so not read again. */
  skipped?: number;
  /** Each exact rejection reason → rows, with the first few places (file:line) as examples (grouped by kind in the report). */
  reasons: Record<string, { count: number; at: string[] }>;
}

export interface Targets {
  pools: Record<DataService, Pool>;
  riskFreeRate: number;
}

/** A kind of exchange file, the service that owns its data and how its files are imported. */
export interface FileKind {
  name: string;
  service: DataService;
  /** Imports the kind's files, all or nothing for a malformed file (it throws, naming file:line). */
  run(targets: Targets, files: readonly FolderFile[], onFile: () => void): Promise<KindOutcome>;
}

const emptyOutcome = (): KindOutcome => ({ read: 0, loaded: 0, rejected: 0, changed: 0, reasons: {} });

function fromEquitiesReport(report: ImportReport, into = emptyOutcome()): KindOutcome {
  into.read += report.read;
  into.loaded += report.loaded;
  into.rejected += report.rejected;
  into.changed += report.changed;
  for (const f of report.files)
    for (const [reason, { count, lines }] of Object.entries(f.reasons)) {
      into.reasons[reason] ??= { count: 0, at: [] };
      const entry = into.reasons[reason];
      entry.count += count;
      for (const line of lines) if (entry.at.length < 3) entry.at.push(`${f.file}:${line}`);
    }
  return into;
}

async function sources(files: readonly FolderFile[]) {
  return Promise.all(files.map(async (f) => sourceFromBytes(f.path, await f.bytes())));
}

const equitiesKind = (name: string): FileKind => ({
  name,
  service: 'equities-data',
  async run(t, files, onFile) {
    const pool = t.pools['equities-data'];
    // The built-in brand list comes with every import that has a brands step, before any brand file.
    if (name === 'brands') {
      const outcome = fromEquitiesReport(await importSources(pool, name, []));
      return files.length === 0
        ? outcome
        : fromEquitiesReport(await importSources(pool, name, await sources(files), onFile), outcome);
    }
    return fromEquitiesReport(await importSources(pool, name, await sources(files), onFile));
  },
});

const text = async (f: FolderFile) => ({ path: f.path, text: (await f.bytes()).toString('utf8') });

const foBhavcopy: FileKind = {
  name: 'fo-bhavcopy',
  service: 'options-analytics',
  async run(t, files, onFile) {
    const texts = await Promise.all(files.map(text));
    const done = await importFoTexts(t.pools['options-analytics'], texts, {
      r: t.riskFreeRate,
      skipLoaded: true,
    });
    for (const _ of done) onFile();
    const options = done.reduce((n, d) => n + d.options, 0);
    const skipped = done.filter((d) => d.unchanged).length;
    return { ...emptyOutcome(), read: options, loaded: options, changed: options, skipped };
  },
};

const foLots: FileKind = {
  name: 'fo-lots',
  service: 'options-analytics',
  async run(t, files, onFile) {
    const outcome = emptyOutcome();
    // Oldest name first, so the newest market-lot file decides when several are given.
    for (const f of [...files].sort((a, b) => a.path.localeCompare(b.path))) {
      const s = await importLotText(t.pools['options-analytics'], await text(f), { skipLoaded: true });
      if (s.unchanged) outcome.skipped = (outcome.skipped ?? 0) + 1;
      outcome.read += s.indices + s.stocks;
      outcome.loaded += s.indices + s.stocks;
      outcome.changed += s.indices + s.stocks;
      onFile();
    }
    return outcome;
  },
};

const filings: FileKind = {
  name: 'filings',
  service: 'filings-reader',
  async run(t, files, onFile) {
    const all = await Promise.all(
      files.map(async (f) => ({ path: f.path, name: f.name, bytes: await f.bytes() })),
    );
    const r = await ingestFolderFilings(t.pools['filings-reader'], all, onFile);
    return { ...emptyOutcome(), read: files.length, loaded: files.length, changed: r.created };
  },
};

/** Every kind, in the order an import runs them: the equities order (masters before prices), then options, filings. */
export const FILE_KINDS: readonly FileKind[] = [
  ...Object.keys(IMPORT_KINDS).map(equitiesKind),
  foLots,
  foBhavcopy,
  filings,
];

export type Recognised = { kind: FileKind } | { reason: string };

const firstLine = (head: string) => {
  const line = head.replace(/^\uFEFF/, '').split(/\r?\n/, 1)[0] ?? '';
  return line.length > 80 ? `${line.slice(0, 77)}...` : line;
};

const byName = new Map(FILE_KINDS.map((k) => [k.name, k]));

/** The kind of one file from its name and head, or why none can take it. */
export function recognise(file: { name: string; head: Buffer }): Recognised {
  if (file.head.length === 0) return { reason: 'the file is empty' };
  if (looksLikeFiling(file.name)) {
    return recogniseFiling(file.name)
      ? { kind: byName.get('filings')! }
      : { reason: `a document whose name is not ${FILING_NAME_PATTERN}` };
  }
  const head = sourceFromBytes(file.name, file.head).text;
  const options = recogniseOptionsFile({ name: file.name, head });
  if (options) return { kind: byName.get(options)! };
  const equities = recogniseEquitiesFile({ name: file.name, head });
  if (!equities) return { reason: `no kind matches its name and first line ("${firstLine(head)}")` };
  if ('kinds' in equities) return { reason: `it matches several kinds (${equities.kinds.join(', ')})` };
  return { kind: byName.get(equities.kind)! };
}
