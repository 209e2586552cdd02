import { type FolderFile, listFolder } from './folder.ts';
import { FILE_KINDS, type FileKind, type KindOutcome, recognise, type Targets } from './kinds.ts';
import { groupReasons, groupUnrecognised, type ReasonGroup } from './reasons.ts';

export interface KindResult extends KindOutcome {
  kind: string;
  service: string;
  files: string[];
  seconds: number;
  /** The rejections grouped by the kind of their reason (its template), largest first; `reasons` has each exact reason. */
  reasonKinds: ReasonGroup[];
  /** Why the kind stopped (a malformed file, named file:line); nothing of the kind was written. */
  error?: string;
}

export interface FolderReport {
  folder: string;
  /** The day folders imported (--day-folder), oldest first. */
  days?: string[];
  archives: number;
  kinds: KindResult[];
  unrecognised: { path: string; reason: string }[];
  /** The files not recognised, grouped by the kind of their reason, largest first. */
  unrecognisedKinds: ReasonGroup[];
  seconds: number;
  /** Whether the run wrote anything; false on a repeat of the same folder. */
  changed: boolean;
  failed: string[];
}

export interface ImportEvents {
  /** Once the folder is read: how many files will be imported. */
  planned(files: number): void;
  /** A kind starts. */
  kindStarted(kind: string, files: number): void;
  /** One more file of the current kind has been read. */
  fileDone(): void;
  kindFinished(result: KindResult): void;
}

const silent: ImportEvents = { planned() {}, kindStarted() {}, fileDone() {}, kindFinished() {} };

/** Files grouped by the kind that reads them, in the order the kinds must run. */
export function plan(
  recognised: { file: FolderFile; kind: FileKind }[],
): { kind: FileKind; files: FolderFile[] }[] {
  const byKind = new Map<FileKind, FolderFile[]>();
  for (const { file, kind } of recognised) byKind.set(kind, [...(byKind.get(kind) ?? []), file]);
  // Brand owners are found in the stock master: whenever equities data comes in, the built-in brand
  // list is applied after the master lists, so brand search works on the data just imported.
  const brands = FILE_KINDS.find((k) => k.name === 'brands')!;
  // (A holiday list is the calendar's, not a stock's: it brings no brands step.)
  if (
    [...byKind.keys()].some((k) => k.service === 'equities-data' && k.name !== 'holidays') &&
    !byKind.has(brands)
  )
    byKind.set(brands, []);
  return FILE_KINDS.filter((k) => byKind.has(k)).map((kind) => ({ kind, files: byKind.get(kind)! }));
}

/**
 * Imports every exchange file under `folder`: recognises each file's kind, runs the kinds in their
 * order, each all or nothing (a malformed file stops its own kind only), and reports what happened.
 */
export async function importFolder(
  folder: string,
  targets: Targets,
  events: ImportEvents = silent,
  now: () => number = Date.now,
  days?: readonly string[],
): Promise<FolderReport> {
  const started = now();
  const listed = await listFolder(folder, days);
  const unrecognised = [...listed.unreadable];
  const recognised: { file: FolderFile; kind: FileKind }[] = [];
  for (const file of listed.files) {
    const r = recognise({ name: file.name, head: await file.head() });
    if ('kind' in r) recognised.push({ file, kind: r.kind });
    else unrecognised.push({ path: file.path, reason: r.reason });
  }
  const steps = plan(recognised);
  events.planned(recognised.length);
  const kinds: KindResult[] = [];
  for (const { kind, files } of steps) {
    const kindStarted = now();
    events.kindStarted(kind.name, files.length);
    const base = { kind: kind.name, service: kind.service, files: files.map((f) => f.path) };
    let result: KindResult;
    try {
      const outcome = await kind.run(targets, files, () => events.fileDone());
      result = {
        ...base,
        ...outcome,
        seconds: (now() - kindStarted) / 1000,
        reasonKinds: groupReasons(outcome.reasons),
      };
    } catch (err) {
      result = {
        ...base,
        read: 0,
        loaded: 0,
        rejected: 0,
        changed: 0,
        reasons: {},
        seconds: (now() - kindStarted) / 1000,
        reasonKinds: [],
        error: (err as Error).message,
      };
    }
    kinds.push(result);
    events.kindFinished(result);
  }
  return {
    folder,
    ...(days ? { days: [...days] } : {}),
    archives: listed.archives,
    kinds,
    unrecognised,
    unrecognisedKinds: groupUnrecognised(unrecognised),
    seconds: (now() - started) / 1000,
    changed: kinds.some((k) => k.changed > 0),
    failed: kinds.filter((k) => k.error !== undefined).map((k) => k.kind),
  };
}
