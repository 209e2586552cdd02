import { createHash } from 'node:crypto';
import { DAY_MS, istDateStart } from '@mdp/nse-calendar';
import { CANONICAL_FIELDS, type CanonicalEvent, canonicalLine } from '../usage-day.ts';

/**
 * The archive format of one sealed IST day of the usage log (FORMAT.md beside this file says it in
 * prose). Pure: names, day boundaries, the manifest and the figures digest.
 */

/** The `format` of every manifest; `FORMAT_VERSION` changes only with an incompatible change. */
const FORMAT_NAME = 'mdp-usage-events';
const FORMAT_VERSION = 1;

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const SHA256 = /^[0-9a-f]{64}$/;

/** A calendar day YYYY-MM-DD that exists (2026-02-30 does not); throws otherwise. */
export function assertDay(day: string): string {
  const m = DAY.exec(day);
  const ok =
    m !== null &&
    new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))).toISOString().slice(0, 10) === day;
  if (!ok) throw new Error(`not a day (YYYY-MM-DD): ${JSON.stringify(day)}`);
  return day;
}

/** The IST day as instants: from its midnight IST (inclusive) to the next (exclusive), epoch ms. */
export function istDayBounds(day: string): { fromMs: number; toMs: number } {
  const fromMs = istDateStart(assertDay(day));
  return { fromMs, toMs: fromMs + DAY_MS };
}

/** The names of a day's two objects in an archive target. */
export function dayFileNames(day: string): { data: string; manifest: string } {
  assertDay(day);
  return { data: `usage-events-${day}.ndjson.gz`, manifest: `usage-events-${day}.manifest.json` };
}

/** The standalone table an archived day is restored into, in the ledger's schema. */
export const restoredTableName = (day: string) => `usage_restored_${assertDay(day).replaceAll('-', '')}`;

/**
 * A day's seal as the archive needs it: the count and sha256 of its canonical lines. `events` may be the
 * string pg returns for a bigint column.
 */
export interface DaySeal {
  events: number | bigint | string;
  sha256: string;
}

export function normalizeSeal(seal: DaySeal): { events: number; sha256: string } {
  const events = Number(seal.events);
  if (!Number.isSafeInteger(events) || events < 0)
    throw new Error(`not a seal's event count: ${seal.events}`);
  if (!SHA256.test(seal.sha256)) throw new Error(`not a seal's sha256: ${JSON.stringify(seal.sha256)}`);
  return { events, sha256: seal.sha256 };
}

/** The figures of one account, route and interface on a day (as in `usage_seal_figures`). */
export interface DayFigure {
  account_id: string;
  route: string;
  interface: 'rest' | 'mcp';
  /** Events of every kind. */
  events: number;
  /** Requests charged and not voided. */
  charged: number;
}

const compareFigures = (a: DayFigure, b: DayFigure) =>
  a.account_id < b.account_id
    ? -1
    : a.account_id > b.account_id
      ? 1
      : a.route < b.route
        ? -1
        : a.route > b.route
          ? 1
          : a.interface < b.interface
            ? -1
            : a.interface > b.interface
              ? 1
              : 0;

/** Figures in (account_id, route, interface) order, by code unit (as a `COLLATE "C"` ORDER BY). */
export const sortFigures = (figures: readonly DayFigure[]): DayFigure[] => [...figures].sort(compareFigures);

/**
 * sha256 of the figures as JSON lines (keys account_id, route, interface, events, charged, each line
 * ending in "\n") in (account_id, route, interface) order: the optional `figures` digest of a manifest.
 */
export function figuresDigest(figures: readonly DayFigure[]): string {
  const hash = createHash('sha256');
  for (const f of sortFigures(figures)) {
    hash.update(
      `${JSON.stringify({ account_id: f.account_id, route: f.route, interface: f.interface, events: f.events, charged: f.charged })}\n`,
    );
  }
  return hash.digest('hex');
}

/** What differs between two sets of figures (e.g. a seal's and a restored day's), one sentence each. */
export function figureDifferences(expected: readonly DayFigure[], actual: readonly DayFigure[]): string[] {
  const key = (f: DayFigure) => `${f.account_id} ${f.route} ${f.interface}`;
  const have = new Map(actual.map((f) => [key(f), f]));
  const out: string[] = [];
  for (const e of sortFigures(expected)) {
    const a = have.get(key(e));
    have.delete(key(e));
    if (!a) out.push(`${key(e)}: expected ${e.events} events (${e.charged} charged), found none`);
    else if (a.events !== e.events || a.charged !== e.charged)
      out.push(
        `${key(e)}: expected ${e.events} events (${e.charged} charged), found ${a.events} (${a.charged})`,
      );
  }
  for (const a of sortFigures([...have.values()])) out.push(`${key(a)}: ${a.events} events not expected`);
  return out;
}

/** The manifest of one archived day: `usage-events-YYYY-MM-DD.manifest.json`. */
export interface DayManifest {
  format: typeof FORMAT_NAME;
  version: typeof FORMAT_VERSION;
  /** The IST day, YYYY-MM-DD. */
  day: string;
  time_zone: 'Asia/Kolkata';
  /** The day's first instant (its midnight IST) and the next day's, ISO 8601 UTC; `from` <= admitted_at < `to`. */
  from: string;
  to: string;
  /** Count and sha256 (hex) of the uncompressed canonical lines: the day's seal. */
  events: number;
  sha256: string;
  /** The data file as stored. */
  file: {
    name: string;
    media_type: 'application/x-ndjson';
    compression: 'gzip';
    /** Size and sha256 (hex) of the stored .gz bytes. */
    bytes: number;
    sha256: string;
  };
  /** The order of the lines: by these fields, uuids as lower-case text, kind charged < refunded < voided. */
  order: ['request_id', 'account_id', 'kind'];
  /** Every line is one JSON object with exactly these keys in this order. */
  fields: Record<keyof CanonicalEvent, string>;
  /** When this manifest was written, ISO 8601 UTC. */
  written_at: string;
  /** Optional: the day's sealed figures, their count and digest (see `figuresDigest`). */
  figures?: { rows: number; sha256: string };
}

export function buildManifest(input: {
  day: string;
  events: number;
  sha256: string;
  file: { bytes: number; sha256: string };
  writtenAt: Date;
  figures?: readonly DayFigure[];
}): DayManifest {
  const { fromMs, toMs } = istDayBounds(input.day);
  const manifest: DayManifest = {
    format: FORMAT_NAME,
    version: FORMAT_VERSION,
    day: input.day,
    time_zone: 'Asia/Kolkata',
    from: new Date(fromMs).toISOString(),
    to: new Date(toMs).toISOString(),
    events: input.events,
    sha256: input.sha256,
    file: {
      name: dayFileNames(input.day).data,
      media_type: 'application/x-ndjson',
      compression: 'gzip',
      bytes: input.file.bytes,
      sha256: input.file.sha256,
    },
    order: ['request_id', 'account_id', 'kind'],
    fields: { ...CANONICAL_FIELDS },
    written_at: input.writtenAt.toISOString(),
  };
  if (input.figures) manifest.figures = { rows: input.figures.length, sha256: figuresDigest(input.figures) };
  return manifest;
}

export const serializeManifest = (m: DayManifest): Buffer => Buffer.from(`${JSON.stringify(m, null, 2)}\n`);

/**
 * Reads a manifest and says what is wrong with it for `day`: its format, version, day, boundaries and
 * the shape of its counts. (Whether it matches a seal or its file is for the caller.)
 */
export function parseManifest(
  text: string,
  day: string,
): { manifest: DayManifest; problems: string[] } | { manifest: null; problems: string[] } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    return { manifest: null, problems: [`the manifest is not JSON: ${(err as Error).message}`] };
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    return { manifest: null, problems: ['the manifest is not a JSON object'] };
  const m = raw as Partial<DayManifest>;
  const problems: string[] = [];
  if (m.format !== FORMAT_NAME)
    problems.push(`the manifest's format is ${JSON.stringify(m.format)}, not ${FORMAT_NAME}`);
  if (m.version !== FORMAT_VERSION)
    problems.push(`the manifest's version is ${JSON.stringify(m.version)}, not ${FORMAT_VERSION}`);
  if (m.day !== day) problems.push(`the manifest is of day ${JSON.stringify(m.day)}, not ${day}`);
  else {
    const { fromMs, toMs } = istDayBounds(day);
    if (m.from !== new Date(fromMs).toISOString() || m.to !== new Date(toMs).toISOString())
      problems.push(`the manifest's boundaries ${m.from} to ${m.to} are not those of the IST day ${day}`);
  }
  if (!Number.isSafeInteger(m.events) || (m.events as number) < 0)
    problems.push(`the manifest's event count ${JSON.stringify(m.events)} is not a count`);
  if (typeof m.sha256 !== 'string' || !SHA256.test(m.sha256))
    problems.push(`the manifest's sha256 ${JSON.stringify(m.sha256)} is not a sha256`);
  const f = m.file;
  if (typeof f !== 'object' || f === null) problems.push('the manifest describes no file');
  else {
    if (f.name !== dayFileNames(day).data)
      problems.push(`the manifest names the file ${JSON.stringify(f.name)}, not ${dayFileNames(day).data}`);
    if (f.compression !== 'gzip')
      problems.push(`the manifest's compression is ${JSON.stringify(f.compression)}`);
    if (!Number.isSafeInteger(f.bytes) || f.bytes < 0)
      problems.push(`the manifest's file size ${JSON.stringify(f.bytes)} is not a size`);
    if (typeof f.sha256 !== 'string' || !SHA256.test(f.sha256))
      problems.push(`the manifest's file sha256 ${JSON.stringify(f.sha256)} is not a sha256`);
  }
  return problems.length === 0 ? { manifest: m as DayManifest, problems } : { manifest: null, problems };
}

/**
 * Splits a byte stream into lines on "\n" (a line may span chunks; a multi-byte character is never cut,
 * since lines are decoded whole). `push` returns the lines a chunk completes; `end` the bytes after the
 * last "\n", if any (a file that ends inside a line).
 */
export class LineSplitter {
  private rest: Buffer[] = [];

  push(chunk: Buffer): string[] {
    const lines: string[] = [];
    let start = 0;
    for (let nl = chunk.indexOf(10, start); nl !== -1; nl = chunk.indexOf(10, start)) {
      const piece = chunk.subarray(start, nl);
      if (this.rest.length > 0) {
        this.rest.push(piece);
        lines.push(Buffer.concat(this.rest).toString('utf8'));
        this.rest = [];
      } else lines.push(piece.toString('utf8'));
      start = nl + 1;
    }
    if (start < chunk.length) this.rest.push(chunk.subarray(start));
    return lines;
  }

  end(): string | null {
    const rest = this.rest.length > 0 ? Buffer.concat(this.rest).toString('utf8') : null;
    this.rest = [];
    return rest;
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const KINDS = new Set(['charged', 'refunded', 'voided']);
const INTERFACES = new Set(['rest', 'mcp']);

/**
 * One line of a data file (without its "\n") read back as an event of `day`; throws unless it is a
 * canonical line: the fields of their types, in their order, nothing else, and admitted within the day.
 */
export function parseCanonicalLine(line: string, bounds: { fromMs: number; toMs: number }): CanonicalEvent {
  const e = JSON.parse(line) as CanonicalEvent;
  const ok =
    typeof e === 'object' &&
    e !== null &&
    typeof e.request_id === 'string' &&
    UUID.test(e.request_id) &&
    typeof e.account_id === 'string' &&
    UUID.test(e.account_id) &&
    KINDS.has(e.kind) &&
    Number.isSafeInteger(e.admitted_at_ms) &&
    typeof e.route === 'string' &&
    e.route.length > 0 &&
    Number.isInteger(e.status) &&
    INTERFACES.has(e.interface) &&
    canonicalLine(e) === `${line}\n`;
  if (!ok) throw new Error(`not a canonical line: ${line.slice(0, 200)}`);
  if (e.admitted_at_ms < bounds.fromMs || e.admitted_at_ms >= bounds.toMs)
    throw new Error(`an event admitted outside the day: ${line.slice(0, 200)}`);
  return e;
}
