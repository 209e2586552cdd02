import { randomBytes } from 'node:crypto';
import {
  cpSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { gunzipSync, gzipSync } from 'node:zlib';
import { dropSchema, type Pool } from '@mdp/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ArchiveError,
  type ArchiveTarget,
  exportDay,
  FolderTarget,
  figureDifferences,
  type ObjectBody,
  restoreArchivedDay,
  verifyArchivedDay,
} from '../src/log/archive/index.ts';
import { CANONICAL_FIELDS, readCanonicalDay } from '../src/log/usage-day.ts';
import { canonicalOf, dayEvents, figuresOf, insertEvents } from './archive-fixture.ts';
import { DATABASE_URL, ledgerPool } from './ledger-db.ts';

const schema = `ledger_ar_${randomBytes(5).toString('hex')}`;
const DAY = '2026-03-14';
const EMPTY_DAY = '2026-03-16';
const events = dayEvents(DAY, 3000);
const expected = canonicalOf(events);
const DATA = `usage-events-${DAY}.ndjson.gz`;
const MANIFEST = `usage-events-${DAY}.manifest.json`;
let pool: Pool;
let root: string;
let seal: { events: string; sha256: string };

const folder = (name: string) => join(root, name);
const files = (dir: string) => readdirSync(dir).sort();

/** Catches what `fn` throws, to look at it. */
async function thrown(fn: () => Promise<unknown>): Promise<ArchiveError> {
  try {
    await fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ArchiveError);
    return err as ArchiveError;
  }
  throw new Error('expected a throw');
}

async function withClient<T>(fn: (c: import('pg').PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    return await fn(client);
  } finally {
    client.release();
  }
}

/** A folder target whose writes of the data file fail after `limit` bytes (a disk filling up). */
class FailingAfter implements ArchiveTarget {
  constructor(
    private readonly inner: FolderTarget,
    private readonly limit: number,
  ) {}
  get uri() {
    return this.inner.uri;
  }
  uriOf(name: string) {
    return this.inner.uriOf(name);
  }
  write(name: string, body: ObjectBody) {
    const limit = this.limit;
    async function* cut() {
      let n = 0;
      for await (const chunk of body instanceof Uint8Array ? [body] : body) {
        n += chunk.length;
        if (n > limit) throw new Error('no space left on device (test)');
        yield chunk;
      }
    }
    return this.inner.write(name, cut());
  }
  read(name: string) {
    return this.inner.read(name);
  }
  exists(name: string) {
    return this.inner.exists(name);
  }
}

/** A folder target that reads the data file back with one byte changed (a store that corrupts). */
class Corrupting extends FolderTarget {
  override async read(name: string) {
    const stream = await super.read(name);
    if (!name.endsWith('.gz')) return stream;
    const chunks: Buffer[] = [];
    for await (const c of stream) chunks.push(c as Buffer);
    const bytes = Buffer.concat(chunks);
    bytes[bytes.length >> 1]! ^= 0x01;
    return Readable.from([bytes]);
  }
}

beforeAll(async () => {
  pool = await ledgerPool(schema, 'archive-test', 3);
  root = mkdtempSync(join(tmpdir(), 'usage-archive-'));
  // The neighbouring days have events too: none of them may leak into the archived day.
  await insertEvents(pool, [...events, ...dayEvents('2026-03-13', 50, 2), ...dayEvents('2026-03-15', 50, 3)]);
  await pool.query('SELECT usage_events_ensure_partition($1::date)', [EMPTY_DAY]);
  for (const day of [DAY, EMPTY_DAY]) {
    const s = await withClient((c) => readCanonicalDay(c, day));
    await pool.query('INSERT INTO usage_seals (day, events, sha256) VALUES ($1, $2, $3)', [
      day,
      s.events,
      s.sha256,
    ]);
  }
  const { rows } = await pool.query('SELECT events, sha256 FROM usage_seals WHERE day = $1', [DAY]);
  seal = rows[0];
});

afterAll(async () => {
  await pool?.end();
  await dropSchema(DATABASE_URL, schema);
  if (root) rmSync(root, { recursive: true, force: true });
});

describe('usage archive: a day to a folder', () => {
  it('the seal is of exactly the day’s events in canonical form (made independently here)', () => {
    expect(seal).toEqual({ events: String(expected.events), sha256: expected.sha256 });
    expect(expected.events).toBeGreaterThan(3000);
  });

  it('exports the day: gzip of exactly the canonical lines, then a manifest; returns the file’s URI', async () => {
    const dir = folder('export');
    const target = new FolderTarget(dir);
    const uri = await withClient((c) =>
      exportDay(c, DAY, seal, target, { now: () => new Date('2026-05-16T01:02:03Z') }),
    );
    expect(uri).toBe(`file://${dir}/${DATA}`);
    expect(fileURLToPath(uri)).toBe(join(dir, DATA));
    expect(files(dir)).toEqual([MANIFEST, DATA]);
    const gz = readFileSync(join(dir, DATA));
    expect(gunzipSync(gz).toString('utf8')).toBe(expected.lines);
    const manifest = JSON.parse(readFileSync(join(dir, MANIFEST), 'utf8'));
    expect(manifest).toMatchObject({
      format: 'mdp-usage-events',
      version: 1,
      day: DAY,
      time_zone: 'Asia/Kolkata',
      from: '2026-03-13T18:30:00.000Z',
      to: '2026-03-14T18:30:00.000Z',
      events: expected.events,
      sha256: expected.sha256,
      file: { name: DATA, compression: 'gzip', bytes: gz.length },
      order: ['request_id', 'account_id', 'kind'],
      fields: CANONICAL_FIELDS,
      written_at: '2026-05-16T01:02:03.000Z',
    });
    expect(manifest.file.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('verifies the archived day against its seal', async () => {
    const report = await verifyArchivedDay(new FolderTarget(folder('export')), DAY, seal);
    expect(report).toMatchObject({
      ok: true,
      day: DAY,
      events: expected.events,
      sha256: expected.sha256,
      reasons: [],
    });
    expect(report.file?.bytes).toBe(statSync(join(folder('export'), DATA)).size);
  });

  it('a verification against another seal fails, saying why', async () => {
    const report = await verifyArchivedDay(new FolderTarget(folder('export')), DAY, {
      events: 5,
      sha256: 'f'.repeat(64),
    });
    expect(report.ok).toBe(false);
    expect(report.reasons).toEqual([
      `the manifest has ${expected.events} events, the seal 5`,
      `the manifest has sha256 ${expected.sha256}, the seal ${'f'.repeat(64)}`,
      `the data file has ${expected.events} events, the seal 5`,
      `the data file has sha256 ${expected.sha256}, the seal ${'f'.repeat(64)}`,
    ]);
  });

  it('an empty day archives and verifies too', async () => {
    const target = new FolderTarget(folder('empty'));
    const { rows } = await pool.query('SELECT events, sha256 FROM usage_seals WHERE day = $1', [EMPTY_DAY]);
    expect(rows[0].events).toBe('0');
    await withClient((c) => exportDay(c, EMPTY_DAY, rows[0], target));
    expect(
      gunzipSync(readFileSync(join(folder('empty'), `usage-events-${EMPTY_DAY}.ndjson.gz`))).length,
    ).toBe(0);
    expect((await verifyArchivedDay(target, EMPTY_DAY, rows[0])).ok).toBe(true);
  });
});

describe('usage archive: a damaged archive fails verification with a reason', () => {
  /** A copy of the good archive, damaged by `damage`, verified. */
  async function verifyDamaged(name: string, damage: (dir: string) => void) {
    const dir = folder(name);
    cpSync(folder('export'), dir, { recursive: true });
    damage(dir);
    return verifyArchivedDay(new FolderTarget(dir), DAY, seal);
  }

  it('a flipped byte in the data file', async () => {
    const report = await verifyDamaged('flipped', (dir) => {
      const bytes = readFileSync(join(dir, DATA));
      bytes[bytes.length >> 1]! ^= 0x20;
      writeFileSync(join(dir, DATA), bytes);
    });
    expect(report.ok).toBe(false);
    // Either gzip notices (a bad block or CRC) or the digests do: the file is never taken for the day.
    expect(report.reasons.join('\n')).toMatch(/does not decompress|has sha256/);
  });

  it('a truncated data file', async () => {
    const report = await verifyDamaged('truncated', (dir) =>
      truncateSync(join(dir, DATA), statSync(join(dir, DATA)).size - 100),
    );
    expect(report.ok).toBe(false);
    expect(report.reasons).toEqual([
      expect.stringMatching(/^the data file does not decompress: unexpected end of file/),
    ]);
    expect(report.events).toBeNull();
  });

  it('a missing manifest', async () => {
    const report = await verifyDamaged('no-manifest', (dir) => rmSync(join(dir, MANIFEST)));
    expect(report).toMatchObject({ ok: false, events: expected.events, sha256: expected.sha256 });
    expect(report.reasons).toEqual([`the manifest is missing: file://${folder('no-manifest')}/${MANIFEST}`]);
  });

  it('a missing data file', async () => {
    const report = await verifyDamaged('no-data', (dir) => rmSync(join(dir, DATA)));
    expect(report.reasons).toEqual([`the data file is missing: file://${folder('no-data')}/${DATA}`]);
  });

  it('a manifest that is not of this data file', async () => {
    const report = await verifyDamaged('other-manifest', (dir) => {
      const m = JSON.parse(readFileSync(join(dir, MANIFEST), 'utf8'));
      writeFileSync(
        join(dir, MANIFEST),
        JSON.stringify({ ...m, file: { ...m.file, bytes: m.file.bytes + 1 } }),
      );
    });
    expect(report.reasons).toEqual([
      `the data file has ${statSync(join(folder('export'), DATA)).size} bytes, the manifest says ${statSync(join(folder('export'), DATA)).size + 1}`,
    ]);
  });

  it('a data file of other lines that decompresses fine', async () => {
    const report = await verifyDamaged('other-lines', (dir) => {
      const lines = gunzipSync(readFileSync(join(dir, DATA)))
        .toString('utf8')
        .split('\n');
      lines.splice(3, 1);
      writeFileSync(join(dir, DATA), gzipSync(lines.join('\n')));
    });
    expect(report.ok).toBe(false);
    expect(report.reasons).toContain(
      `the data file has ${expected.events - 1} events, the seal ${expected.events}`,
    );
  });
});

describe('usage archive: a failed export throws, names its stage and leaves nothing that looks complete', () => {
  it('a folder that cannot be made: stage export, nothing written, the client still usable', async () => {
    const notAFolder = folder('a-file');
    writeFileSync(notAFolder, 'not a folder');
    const err = await withClient(async (c) => {
      const e = await thrown(() => exportDay(c, DAY, seal, new FolderTarget(join(notAFolder, 'archive'))));
      expect((await c.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
      return e;
    });
    expect(err.stage).toBe('export');
    expect(err.day).toBe(DAY);
    expect(err.message).toMatch(/writing .* failed: ENOTDIR/);
  });

  it('a write that fails part way (a full disk): stage export, no data file, no temporary file, no manifest', async () => {
    const dir = folder('full-disk');
    const err = await withClient(async (c) => {
      const e = await thrown(() =>
        exportDay(c, DAY, seal, new FailingAfter(new FolderTarget(dir), 64 * 1024)),
      );
      expect((await c.query('SELECT count(*)::int AS n FROM usage_events_20260314')).rows).toEqual([
        { n: expected.events },
      ]);
      return e;
    });
    expect(err.stage).toBe('export');
    expect(err.message).toMatch(/no space left on device/);
    expect(files(dir)).toEqual([]);
  });

  it('a seal that does not match the data: stage export, before any manifest (or data file) is written', async () => {
    const dir = folder('wrong-seal');
    for (const wrong of [
      { events: Number(seal.events) - 1, sha256: seal.sha256 },
      { events: seal.events, sha256: '0'.repeat(64) },
    ]) {
      const err = await withClient((c) => thrown(() => exportDay(c, DAY, wrong, new FolderTarget(dir))));
      expect(err.stage).toBe('export');
      expect(err.message).toMatch(/differs from its seal; nothing was archived/);
      expect(err.reasons.length).toBe(1);
    }
    expect(files(dir)).toEqual([]);
  });

  it('a wrong seal never replaces a day already archived', async () => {
    const dir = folder('archived-then-wrong');
    cpSync(folder('export'), dir, { recursive: true });
    const before = files(dir).map((f) => readFileSync(join(dir, f)));
    const err = await withClient((c) =>
      thrown(() => exportDay(c, DAY, { events: 1, sha256: seal.sha256 }, new FolderTarget(dir))),
    );
    expect(err.stage).toBe('export');
    expect(files(dir).map((f) => readFileSync(join(dir, f)))).toEqual(before);
    expect((await verifyArchivedDay(new FolderTarget(dir), DAY, seal)).ok).toBe(true);
  });

  it('an archive that does not read back equal to the seal: stage verify', async () => {
    const err = await withClient((c) =>
      thrown(() => exportDay(c, DAY, seal, new Corrupting(folder('corrupting')))),
    );
    expect(err.stage).toBe('verify');
    expect(err.reasons.length).toBeGreaterThan(0);
  });

  it('exporting again a day equal to its seal writes the same data file', async () => {
    const dir = folder('again');
    cpSync(folder('export'), dir, { recursive: true });
    await withClient((c) => exportDay(c, DAY, seal, new FolderTarget(dir)));
    expect(readFileSync(join(dir, DATA))).toEqual(readFileSync(join(folder('export'), DATA)));
    expect(files(dir)).toEqual([MANIFEST, DATA]);
  });
});

describe('usage archive: restore for an audit', () => {
  it('loads the archived day into usage_restored_YYYYMMDD with the figures of what was inserted', async () => {
    const target = new FolderTarget(folder('export'));
    const result = await restoreArchivedDay(pool, target, DAY, seal);
    expect(result).toMatchObject({
      table: 'usage_restored_20260314',
      events: expected.events,
      sha256: expected.sha256,
    });
    expect(figureDifferences(figuresOf(events), result.figures)).toEqual([]);
    expect(result.figures.reduce((n, f) => n + f.events, 0)).toBe(expected.events);
    // The table holds the events as inserted, in the canonical fields' columns and types.
    const { rows } = await pool.query(
      `SELECT request_id::text, account_id::text, kind, admitted_at_ms, route, status, interface
         FROM usage_restored_20260314 ORDER BY request_id, account_id, kind`,
    );
    expect(
      rows.map((r) => `${JSON.stringify({ ...r, admitted_at_ms: Number(r.admitted_at_ms) })}\n`).join(''),
    ).toBe(expected.lines);
    const { rows: types } = await pool.query(
      `SELECT column_name, data_type FROM information_schema.columns
        WHERE table_schema = current_schema() AND table_name = 'usage_restored_20260314' ORDER BY ordinal_position`,
    );
    expect(types.map((t) => `${t.column_name} ${t.data_type}`)).toEqual([
      'request_id uuid',
      'account_id uuid',
      'kind text',
      'admitted_at_ms bigint',
      'route text',
      'status integer',
      'interface text',
    ]);
  });

  it('the figures compare with the seal’s figures in usage_seal_figures', async () => {
    for (const f of figuresOf(events))
      await pool.query(
        'INSERT INTO usage_seal_figures (day, account_id, route, interface, events, charged) VALUES ($1, $2, $3, $4, $5, $6)',
        [DAY, f.account_id, f.route, f.interface, f.events, f.charged],
      );
    const { rows } = await pool.query(
      'SELECT account_id, route, interface, events, charged FROM usage_seal_figures WHERE day = $1',
      [DAY],
    );
    const result = await restoreArchivedDay(pool, new FolderTarget(folder('export')), DAY, seal);
    expect(figureDifferences(rows, result.figures)).toEqual([]);
  });

  it('a restore replaces the table; a failed one (wrong seal, damaged file) leaves it as it was', async () => {
    await pool.query('DELETE FROM usage_restored_20260314 WHERE kind = $1', ['refunded']);
    const count = async () =>
      (await pool.query('SELECT count(*)::int AS n FROM usage_restored_20260314')).rows[0].n;
    const partial = await count();
    expect(partial).toBeLessThan(expected.events);

    const wrong = await thrown(() =>
      restoreArchivedDay(pool, new FolderTarget(folder('export')), DAY, {
        events: seal.events,
        sha256: 'e'.repeat(64),
      }),
    );
    expect(wrong.stage).toBe('restore');
    expect(wrong.reasons).toEqual([
      `the data file has sha256 ${expected.sha256}, the seal ${'e'.repeat(64)}`,
    ]);
    expect(await count()).toBe(partial);

    const damaged = await thrown(() =>
      restoreArchivedDay(pool, new FolderTarget(folder('truncated')), DAY, seal),
    );
    expect(damaged.stage).toBe('restore');
    expect(damaged.message).toMatch(/unexpected end of file/);
    expect(await count()).toBe(partial);

    const missing = await thrown(() =>
      restoreArchivedDay(pool, new FolderTarget(folder('no-data')), DAY, seal),
    );
    expect(missing.message).toMatch(/the data file is missing/);

    await restoreArchivedDay(pool, new FolderTarget(folder('export')), DAY, seal);
    expect(await count()).toBe(expected.events);
    // No connection was left in a transaction or a COPY.
    expect((await pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  });
});
