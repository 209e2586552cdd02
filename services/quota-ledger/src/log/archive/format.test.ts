import { describe, expect, it } from 'vitest';
import { CANONICAL_FIELDS, type CanonicalEvent, canonicalLine } from '../usage-day.ts';
import {
  assertDay,
  buildManifest,
  type DayFigure,
  dayFileNames,
  figureDifferences,
  figuresDigest,
  istDayBounds,
  LineSplitter,
  normalizeSeal,
  parseCanonicalLine,
  parseManifest,
  restoredTableName,
  serializeManifest,
} from './format.ts';
import { s3Key } from './s3-target.ts';
import { assertObjectName } from './target.ts';

const SHA = 'a'.repeat(64);

describe('archive format: days, names and boundaries', () => {
  it('a day is an existing calendar day', () => {
    expect(assertDay('2026-03-14')).toBe('2026-03-14');
    expect(assertDay('2028-02-29')).toBe('2028-02-29');
    for (const bad of ['2026-02-30', '2026-13-01', '2026-3-14', '20260314', "2026-03-14'; DROP", ''])
      expect(() => assertDay(bad)).toThrow(/not a day/);
  });

  it('an IST day runs from 18:30Z of the previous UTC day, 24 hours (no daylight saving)', () => {
    const { fromMs, toMs } = istDayBounds('2026-03-14');
    expect(new Date(fromMs).toISOString()).toBe('2026-03-13T18:30:00.000Z');
    expect(new Date(toMs).toISOString()).toBe('2026-03-14T18:30:00.000Z');
    expect(new Date(istDayBounds('2026-01-01').fromMs).toISOString()).toBe('2025-12-31T18:30:00.000Z');
  });

  it('names the day files and the restored table', () => {
    expect(dayFileNames('2026-03-14')).toEqual({
      data: 'usage-events-2026-03-14.ndjson.gz',
      manifest: 'usage-events-2026-03-14.manifest.json',
    });
    expect(restoredTableName('2026-03-14')).toBe('usage_restored_20260314');
    expect(() => restoredTableName('2026-03-14; x')).toThrow();
  });

  it('object names are one plain path segment', () => {
    expect(assertObjectName('usage-events-2026-03-14.ndjson.gz')).toBeTruthy();
    for (const bad of ['../x', 'a/b', '.hidden', '', 'a..b', 'x y'])
      expect(() => assertObjectName(bad)).toThrow(/object name/);
  });

  it('S3 keys join the prefix and the name with one slash', () => {
    expect(s3Key('', 'f.gz')).toBe('f.gz');
    expect(s3Key('usage-events/', 'f.gz')).toBe('usage-events/f.gz');
    expect(s3Key('/a/b//', 'f.gz')).toBe('a/b/f.gz');
    expect(() => s3Key('a', '../f.gz')).toThrow();
  });

  it('a seal from pg (bigint as a string) or as numbers', () => {
    expect(normalizeSeal({ events: '12', sha256: SHA })).toEqual({ events: 12, sha256: SHA });
    expect(normalizeSeal({ events: 12n, sha256: SHA })).toEqual({ events: 12, sha256: SHA });
    expect(() => normalizeSeal({ events: -1, sha256: SHA })).toThrow();
    expect(() => normalizeSeal({ events: '1.5', sha256: SHA })).toThrow();
    expect(() => normalizeSeal({ events: 1, sha256: 'A'.repeat(64) })).toThrow();
  });
});

describe('archive format: the manifest', () => {
  const manifest = buildManifest({
    day: '2026-03-14',
    events: 3,
    sha256: SHA,
    file: { bytes: 120, sha256: 'b'.repeat(64) },
    writtenAt: new Date('2026-05-16T00:00:00Z'),
  });

  it('says what the file is, in a stable shape', () => {
    expect(manifest).toEqual({
      format: 'mdp-usage-events',
      version: 1,
      day: '2026-03-14',
      time_zone: 'Asia/Kolkata',
      from: '2026-03-13T18:30:00.000Z',
      to: '2026-03-14T18:30:00.000Z',
      events: 3,
      sha256: SHA,
      file: {
        name: 'usage-events-2026-03-14.ndjson.gz',
        media_type: 'application/x-ndjson',
        compression: 'gzip',
        bytes: 120,
        sha256: 'b'.repeat(64),
      },
      order: ['request_id', 'account_id', 'kind'],
      fields: CANONICAL_FIELDS,
      written_at: '2026-05-16T00:00:00.000Z',
    });
    expect(Object.keys(manifest.fields)).toEqual([
      'request_id',
      'account_id',
      'kind',
      'admitted_at_ms',
      'route',
      'status',
      'interface',
    ]);
  });

  it('reads back what it wrote, with no problem', () => {
    const parsed = parseManifest(serializeManifest(manifest).toString(), '2026-03-14');
    expect(parsed).toEqual({ manifest, problems: [] });
  });

  it('says what is wrong with a manifest', () => {
    expect(parseManifest('{"format"', '2026-03-14').problems[0]).toMatch(/not JSON/);
    expect(parseManifest('[]', '2026-03-14').problems).toEqual(['the manifest is not a JSON object']);
    expect(parseManifest(JSON.stringify(manifest), '2026-03-15').problems).toEqual([
      'the manifest is of day "2026-03-14", not 2026-03-15',
      'the manifest names the file "usage-events-2026-03-14.ndjson.gz", not usage-events-2026-03-15.ndjson.gz',
    ]);
    const bad = {
      ...manifest,
      version: 2,
      from: '2026-03-14T00:00:00.000Z',
      events: -1,
      file: { ...manifest.file, sha256: 'x' },
    };
    const parsed = parseManifest(JSON.stringify(bad), '2026-03-14');
    expect(parsed.manifest).toBeNull();
    expect(parsed.problems).toEqual([
      "the manifest's version is 2, not 1",
      "the manifest's boundaries 2026-03-14T00:00:00.000Z to 2026-03-14T18:30:00.000Z are not those of the IST day 2026-03-14",
      "the manifest's event count -1 is not a count",
      `the manifest's file sha256 "x" is not a sha256`,
    ]);
  });

  it('records a digest of the figures when given them, whatever their order', () => {
    const figures: DayFigure[] = [
      { account_id: 'b', route: 'r', interface: 'rest', events: 2, charged: 1 },
      { account_id: 'a', route: 'r', interface: 'mcp', events: 1, charged: 1 },
    ];
    const m = buildManifest({
      day: '2026-03-14',
      events: 3,
      sha256: SHA,
      file: { bytes: 1, sha256: SHA },
      writtenAt: new Date(0),
      figures,
    });
    expect(m.figures).toEqual({ rows: 2, sha256: figuresDigest([...figures].reverse()) });
    expect(figuresDigest(figures)).not.toBe(figuresDigest([{ ...figures[0]!, charged: 2 }, figures[1]!]));
  });
});

describe('archive format: figures compared', () => {
  const f = (account_id: string, events: number, charged: number): DayFigure => ({
    account_id,
    route: 'getStockQuote',
    interface: 'rest',
    events,
    charged,
  });
  it('lists what differs, missing and unexpected rows included', () => {
    expect(figureDifferences([f('a', 2, 1), f('b', 1, 1)], [f('b', 1, 1), f('a', 2, 1)])).toEqual([]);
    expect(figureDifferences([f('a', 2, 1), f('b', 1, 1)], [f('a', 2, 0), f('c', 1, 1)])).toEqual([
      'a getStockQuote rest: expected 2 events (1 charged), found 2 (0)',
      'b getStockQuote rest: expected 1 events (1 charged), found none',
      'c getStockQuote rest: 1 events not expected',
    ]);
  });
});

describe('archive format: lines', () => {
  it('splits a byte stream into lines whatever the chunking, multi-byte characters included', () => {
    const text = 'one\ntwo – ✓\n\nthree é\nrest';
    const bytes = Buffer.from(text);
    for (let size = 1; size <= bytes.length; size++) {
      const s = new LineSplitter();
      const lines: string[] = [];
      for (let i = 0; i < bytes.length; i += size) lines.push(...s.push(bytes.subarray(i, i + size)));
      expect(lines).toEqual(['one', 'two – ✓', '', 'three é']);
      expect(s.end()).toBe('rest');
      expect(s.end()).toBeNull();
    }
  });

  const event: CanonicalEvent = {
    request_id: '0195f3c1-7a2b-7c3d-8e4f-5a6b7c8d9e0f',
    account_id: '5d1e0c43-2f6b-4b7e-9c1a-0e2f3a4b5c6d',
    kind: 'charged',
    admitted_at_ms: Date.parse('2026-03-14T06:00:00Z'),
    route: 'getStockQuote',
    status: 200,
    interface: 'rest',
  };
  const bounds = istDayBounds('2026-03-14');

  it('reads a canonical line of the day back', () => {
    expect(parseCanonicalLine(canonicalLine(event).slice(0, -1), bounds)).toEqual(event);
  });

  it('refuses a line that is not canonical or not of the day', () => {
    const line = (e: object) => JSON.stringify(e);
    const { kind, ...rest } = event;
    for (const bad of [
      line({ kind, ...rest }), // keys out of order
      line({ ...event, extra: 1 }),
      line({ ...event, request_id: event.request_id.toUpperCase() }),
      line({ ...event, kind: 'charge' }),
      line({ ...event, interface: 'grpc' }),
      line({ ...event, admitted_at_ms: String(event.admitted_at_ms) }),
      line({ ...event, route: '' }),
      JSON.stringify(event, null, 1).replaceAll('\n', ''),
    ])
      expect(() => parseCanonicalLine(bad, bounds)).toThrow(/not a canonical line/);
    expect(() => parseCanonicalLine(line({ ...event, admitted_at_ms: bounds.toMs }), bounds)).toThrow(
      /outside the day/,
    );
    expect(parseCanonicalLine(line({ ...event, admitted_at_ms: bounds.fromMs }), bounds).admitted_at_ms).toBe(
      bounds.fromMs,
    );
    expect(() => parseCanonicalLine('{"request_id"', bounds)).toThrow();
  });
});
