import {
  type CalendarImportReport,
  IMPORT_KINDS,
  type ImportReport,
  importHolidayFiles,
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
import { putCalendarInForce, recogniseHolidayFile } from '@mdp/nse-calendar';
import {
  type ExpiryMove,
  importFoTexts,
  importLotText,
  moveExpiriesOffClosedDays,
  recogniseOptionsFile,
} from '@mdp/options-analytics/import';
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
  /** Lines the report prints under the kind: what changed that a count does not say. */
  notes?: string[];
  /** The holiday lists' rows one by one, and the expiries they moved (--json). */
  calendar?: Pick<CalendarImportReport, 'rows' | 'removed' | 'years'> & {
    lastYear: number;
    moved: ExpiryMove[];
  };
}

export interface Targets {
  pools: Record<DataService, Pool>;
  riskFreeRate: number;
  /** The clock: which calendar years are over. */
  now: () => number;
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
    for (const [reason, { count, lines }] of Object.entries(f.reasons))
      addReason(
        into,
        reason,
        count,
        lines.map((line) => `${f.file}:${line}`),
      );
  return into;
}

/** Counts `count` rows under `reason`, keeping the first three places (file:line) as examples. */
function addReason(into: KindOutcome, reason: string, count: number, places: readonly string[]): void {
  into.reasons[reason] ??= { count: 0, at: [] };
  const entry = into.reasons[reason];
  entry.count += count;
  for (const place of places) if (entry.at.length < 3) entry.at.push(place);
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

const SHOWN = 12;
const list = (items: string[]) =>
  items.length <= SHOWN
    ? items.join(', ')
    : `${items.slice(0, SHOWN).join(', ')}, … (${items.length - SHOWN} more; --json lists each)`;

/**
 * What a holiday import did, for the report: per year imported, its counts; the days added, changed and
 * removed; the expiries moved off days now closed.
 */
function calendarNotes(r: CalendarImportReport, moved: readonly ExpiryMove[]): string[] {
  const notes: string[] = [];
  // One line a list and source: its years (a range when they run on) and what they hold.
  const groups = new Map<string, { list: string; source: string; years: number[] }>();
  for (const y of r.years) {
    const k = `${y.list}|${y.source}`;
    const g = groups.get(k) ?? { list: y.list, source: y.source, years: [] };
    g.years.push(y.year);
    groups.set(k, g);
  }
  for (const g of groups.values()) {
    const years = new Set(g.years);
    const rows = r.rows.filter(
      (row) =>
        years.has(Number(row.date.slice(0, 4))) && (row.kind === 'clearing') === (g.list === 'clearing'),
    );
    const count = (k: string) => rows.filter((row) => row.kind === k).length;
    const sorted = [...years].sort((a, b) => a - b);
    const span =
      sorted.length > 2 && sorted.at(-1)! - sorted[0]! === sorted.length - 1
        ? `${sorted[0]}-${sorted.at(-1)}`
        : sorted.join(', ');
    notes.push(
      `${span} ${g.list} list from ${g.source}: ${count('holiday')} holidays, ${count('special')} special sessions${g.list === 'clearing' ? `, ${count('clearing')} clearing holidays` : ''}`,
    );
  }
  const entry = (d: { date: string; kind: string; description: string }) =>
    `${d.date} ${d.kind}${d.description ? ` (${d.description})` : ''}`;
  const added = r.rows.filter((row) => row.outcome === 'added');
  const changed = r.rows.filter((row) => row.outcome === 'changed');
  if (added.length > 0) notes.push(`added: ${list(added.map(entry))}`);
  if (changed.length > 0) notes.push(`changed: ${list(changed.map(entry))}`);
  if (r.removed.length > 0) notes.push(`removed (no longer listed): ${list(r.removed.map(entry))}`);
  for (const m of moved)
    notes.push(
      `expiry ${m.from} moved to ${m.to} (the calendar closes ${m.from}): ${Object.entries(m.contracts)
        .map(([u, n]) => `${u} ${n}`)
        .join(', ')} contracts`,
    );
  notes.push(`the calendar now runs to ${r.calendar.lastYear}-12-31`);
  return notes;
}

/**
 * Exchange holiday lists: into the calendar equities-data owns (and serves to every service), put in
 * force for the rest of this import, and the held expiries that now fall on a closed day moved (the
 * running options service would move them too; the report says what moved).
 */
const holidays: FileKind = {
  name: 'holidays',
  service: 'equities-data',
  async run(t, files, onFile) {
    const texts = await Promise.all(files.map(text));
    const r = await importHolidayFiles(t.pools['equities-data'], texts, t.now());
    for (const _ of files) onFile();
    putCalendarInForce(r.calendar);
    const moved = await moveExpiriesOffClosedDays(t.pools['options-analytics'], r.calendar);
    const outcome = emptyOutcome();
    for (const x of r.rejected) addReason(outcome, x.reason, 1, [`${x.file}:${x.line}`]);
    const written = r.rows.filter((row) => row.outcome !== 'unchanged').length + r.removed.length;
    return {
      read: r.rows.length,
      loaded: r.rows.length - r.rejected.length,
      rejected: r.rejected.length,
      changed: written + moved.reduce((n, m) => n + Object.values(m.contracts).reduce((a, b) => a + b, 0), 0),
      reasons: outcome.reasons,
      notes: calendarNotes(r, moved),
      calendar: { rows: r.rows, removed: r.removed, years: r.years, lastYear: r.calendar.lastYear, moved },
    };
  },
};

/**
 * Every kind, in the order an import runs them: holiday lists first (the rest of the import counts
 * sessions by them), the equities order (masters before prices), then options, filings.
 */
export const FILE_KINDS: readonly FileKind[] = [
  holidays,
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
  if (recogniseHolidayFile({ name: file.name, head })) return { kind: byName.get('holidays')! };
  const options = recogniseOptionsFile({ name: file.name, head });
  if (options) return { kind: byName.get(options)! };
  const equities = recogniseEquitiesFile({ name: file.name, head });
  if (!equities) return { reason: `no kind matches its name and first line ("${firstLine(head)}")` };
  if ('kinds' in equities) return { reason: `it matches several kinds (${equities.kinds.join(', ')})` };
  return { kind: byName.get(equities.kind)! };
}
