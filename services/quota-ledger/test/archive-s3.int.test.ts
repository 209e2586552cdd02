import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { dropSchema, type Pool } from '@mdp/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ArchiveError,
  exportDay,
  figureDifferences,
  openArchiveTarget,
  restoreArchivedDay,
  verifyArchivedDay,
} from '../src/log/archive/index.ts';
import { S3Target } from '../src/log/archive/s3-target.ts';
import { readCanonicalDay } from '../src/log/usage-day.ts';
import { canonicalOf, dayEvents, figuresOf, insertEvents } from './archive-fixture.ts';
import { DATABASE_URL, ledgerPool } from './ledger-db.ts';

/**
 * The S3 target against a real S3 API: s3rver (a devDependency of the ledger), an S3-compatible server
 * in this process on a loopback port, storing in a temporary folder. Credentials come from the SDK's
 * default chain (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, set here to s3rver's).
 */

interface S3rverServer {
  run(): Promise<{ port: number }>;
  close(): Promise<void>;
}
const S3rver = createRequire(import.meta.url)('s3rver') as new (options: object) => S3rverServer;

const schema = `ledger_ar3_${randomBytes(5).toString('hex')}`;
const DAY = '2026-03-14';
const BUCKET = 'mdp-archive';
const events = dayEvents(DAY, 2000, 7);
const expected = canonicalOf(events);
let pool: Pool;
let server: S3rverServer;
let dir: string;
let endpoint: string;
let target: S3Target;
let seal: { events: string; sha256: string };
const savedEnv = { ...process.env };

const s3 = (prefix = 'usage-events/') =>
  S3Target.open({ bucket: BUCKET, prefix, endpoint, region: 'us-east-1', forcePathStyle: true });

async function getObject(key: string): Promise<Buffer> {
  const res = await target.client.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
  return Buffer.from(await res.Body!.transformToByteArray());
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 's3rver-'));
  server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory: dir,
    configureBuckets: [{ name: BUCKET }],
  });
  endpoint = `http://127.0.0.1:${(await server.run()).port}`;
  process.env.AWS_ACCESS_KEY_ID = 'S3RVER';
  process.env.AWS_SECRET_ACCESS_KEY = 'S3RVER';
  delete process.env.AWS_PROFILE;
  delete process.env.AWS_SESSION_TOKEN;
  target = await s3();
  pool = await ledgerPool(schema, 'archive-s3-test', 2);
  await insertEvents(pool, events);
  const client = await pool.connect();
  try {
    const s = await readCanonicalDay(client, DAY);
    await pool.query('INSERT INTO usage_seals (day, events, sha256) VALUES ($1, $2, $3)', [
      DAY,
      s.events,
      s.sha256,
    ]);
  } finally {
    client.release();
  }
  seal = (await pool.query('SELECT events, sha256 FROM usage_seals WHERE day = $1', [DAY])).rows[0];
});

afterAll(async () => {
  target?.close();
  await pool?.end();
  await dropSchema(DATABASE_URL, schema);
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  process.env = savedEnv;
});

describe('usage archive: an S3-compatible bucket (s3rver)', () => {
  it('exports the day under the prefix, verifies it, and the objects are the format', async () => {
    const client = await pool.connect();
    let uri: string;
    try {
      uri = await exportDay(client, DAY, seal, target);
    } finally {
      client.release();
    }
    expect(uri).toBe(`s3://${BUCKET}/usage-events/usage-events-${DAY}.ndjson.gz`);
    expect(gunzipSync(await getObject(`usage-events/usage-events-${DAY}.ndjson.gz`)).toString()).toBe(
      expected.lines,
    );
    const manifest = JSON.parse(
      (await getObject(`usage-events/usage-events-${DAY}.manifest.json`)).toString(),
    );
    expect(manifest).toMatchObject({
      format: 'mdp-usage-events',
      version: 1,
      day: DAY,
      events: expected.events,
    });
    expect(await target.exists(`usage-events-${DAY}.manifest.json`)).toBe(true);
    expect(await target.exists(`usage-events-${DAY}.nothing`)).toBe(false);
    expect(await verifyArchivedDay(target, DAY, seal)).toMatchObject({
      ok: true,
      events: expected.events,
      reasons: [],
    });
  });

  it('restores from the bucket with the inserted figures', async () => {
    const result = await restoreArchivedDay(pool, target, DAY, seal);
    expect(result.events).toBe(expected.events);
    expect(figureDifferences(figuresOf(events), result.figures)).toEqual([]);
  });

  it('a damaged object or a missing manifest fails verification', async () => {
    const key = `usage-events/usage-events-${DAY}.ndjson.gz`;
    const good = await getObject(key);
    await target.client.send(
      new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: good.subarray(0, good.length - 50) }),
    );
    const truncated = await verifyArchivedDay(target, DAY, seal);
    expect(truncated.ok).toBe(false);
    expect(truncated.reasons.join('\n')).toMatch(/does not decompress: unexpected end of file/);
    await target.client.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: good }));
    await target.client.send(
      new DeleteObjectCommand({ Bucket: BUCKET, Key: `usage-events/usage-events-${DAY}.manifest.json` }),
    );
    expect((await verifyArchivedDay(target, DAY, seal)).reasons).toEqual([
      `the manifest is missing: s3://${BUCKET}/usage-events/usage-events-${DAY}.manifest.json`,
    ]);
  });

  it('a bucket that does not exist: exportDay throws with stage export and writes nothing', async () => {
    const missing = await S3Target.open({
      bucket: 'no-such-bucket',
      endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
    });
    const client = await pool.connect();
    try {
      await expect(exportDay(client, DAY, seal, missing)).rejects.toMatchObject({
        name: 'ArchiveError',
        stage: 'export',
      });
      await expect(exportDay(client, DAY, seal, missing)).rejects.toBeInstanceOf(ArchiveError);
    } finally {
      client.release();
      missing.close();
    }
  });

  it('a multipart upload is whole or absent: a body that fails after two parts leaves no object', async () => {
    const big = randomBytes(12 * 1024 * 1024);
    const t = await s3('atomic');
    async function* body(failAt: number) {
      for (let i = 0; i < big.length; i += 1024 * 1024) {
        if (i >= failAt) throw new Error('the source failed (test)');
        yield big.subarray(i, i + 1024 * 1024);
      }
    }
    await expect(t.write('half.bin', body(11 * 1024 * 1024))).rejects.toThrow(/the source failed/);
    expect(await t.exists('half.bin')).toBe(false);
    await t.write('whole.bin', body(Number.POSITIVE_INFINITY));
    const back = await getObject('atomic/whole.bin');
    expect(createHash('sha256').update(back).digest('hex')).toBe(
      createHash('sha256').update(big).digest('hex'),
    );
    t.close();
  });

  it('openArchiveTarget makes the S3 target from a spec', async () => {
    const t = await openArchiveTarget({
      kind: 's3',
      bucket: BUCKET,
      prefix: '/usage-events',
      endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
    });
    expect(t.uri).toBe(`s3://${BUCKET}/usage-events/`);
    expect(await t.exists(`usage-events-${DAY}.ndjson.gz`)).toBe(true);
    (t as S3Target).close();
  });
});
