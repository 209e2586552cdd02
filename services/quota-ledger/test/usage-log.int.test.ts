import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dropSchema, type Pool } from '@mdp/db';
import { createLogger, createRegistry, type Registry } from '@mdp/telemetry';
import { newRequestId, type SettlementEvent } from '@mdp/usage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../src/cli.ts';
import { FolderTarget } from '../src/log/archive/index.ts';
import { type UsageLogConfig, upkeepSettings } from '../src/log/usage-log-config.ts';
import { seals } from '../src/log/usage-seals.ts';
import { createUpkeep, dayStates } from '../src/log/usage-upkeep.ts';
import { ProjectionStore } from '../src/settlement/projections.ts';
import { DATABASE_URL, ledgerPool } from './ledger-db.ts';

// The usage log at volume, on a real Postgres schema and a real archive folder: IST-day partitions, the
// seal of a closed day, archive then drop only once the archive reads back equal to the seal, a failing
// target that keeps the day, the rebuild over sealed and retained days, and an archived day restored.

const schema = `ledger_log_${randomBytes(5).toString('hex')}`;
const folders: string[] = [];
let pool: Pool;
let store: ProjectionStore;
const missing: string[][] = [];

const A = randomUUID();
const B = randomUUID();
const ev = (at: string, kind: SettlementEvent['kind'] = 'charged', extra: Partial<SettlementEvent> = {}) =>
  ({
    v: 1,
    request_id: newRequestId(),
    account_id: A,
    kind,
    admitted_at_ms: Date.parse(at),
    settled_at_ms: Date.parse(at) + 3,
    route: 'getStockQuote',
    status: kind === 'refunded' ? 404 : 200,
    ...extra,
  }) satisfies SettlementEvent;

const folder = () => {
  const dir = mkdtempSync(join(tmpdir(), 'usage-archive-'));
  folders.push(dir);
  return dir;
};

const config = (dir: string): UsageLogConfig => ({
  USAGE_LOG_RETENTION_DAYS: 3,
  USAGE_PARTITIONS_AHEAD_DAYS: 2,
  USAGE_SEAL_GRACE_MINUTES: 20,
  USAGE_ARCHIVE_DIR: dir,
  USAGE_ARCHIVE_S3_BUCKET: '',
  USAGE_ARCHIVE_S3_PREFIX: '',
  USAGE_ARCHIVE_S3_ENDPOINT: '',
  USAGE_ARCHIVE_S3_REGION: 'us-east-1',
  USAGE_ARCHIVE_S3_FORCE_PATH_STYLE: false,
});

/** 06:00 IST on 5 April 2026: retention 3 keeps 3, 4 and 5 April. */
const NOW = Date.parse('2026-04-05T06:00:00+05:30');

function upkeep(dir: string, registry: Registry, now = NOW, caughtUp = true) {
  return createUpkeep({
    pool,
    target: new FolderTarget(dir),
    settings: upkeepSettings(config(dir)),
    clock: () => now,
    consumersCaughtUp: async () => caughtUp,
    ensurePartitions: (days) => store.ensurePartitions(days),
    logger: createLogger('usage-log-test', 'silent'),
    registry,
  });
}

const metric = async (registry: Registry, name: string, labels: Record<string, string> = {}) => {
  const values = (await registry.getSingleMetric(name)?.get())?.values ?? [];
  return values
    .filter((v) => Object.entries(labels).every(([k, x]) => v.labels[k] === x))
    .reduce((n, v) => n + v.value, 0);
};

const partitionOf = async (requestId: string) =>
  (
    await pool.query<{ part: string }>(
      'SELECT tableoid::regclass::text AS part FROM usage_events WHERE request_id = $1::uuid',
      [requestId],
    )
  ).rows.map((r) => r.part);

const admin = (dir: string, ...argv: string[]) =>
  run(
    { pool, store, target: async () => new FolderTarget(dir), config: config(dir), clock: () => NOW },
    argv,
  );

beforeAll(async () => {
  pool = await ledgerPool(schema, 'usage-log-test', 3);
  store = new ProjectionStore(pool, pool, (days) => missing.push(days));
});
afterAll(async () => {
  await pool?.end();
  await dropSchema(DATABASE_URL, schema);
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
});

describe('partitions by IST day', () => {
  it('puts events either side of IST midnight and of a month’s end in their own days, months and partitions', async () => {
    const lastOfMarch = ev('2026-03-31T18:29:59.999Z');
    const firstOfApril = ev('2026-03-31T18:30:00.000Z');
    const result = await store.record([
      lastOfMarch,
      firstOfApril,
      ev('2026-04-01T10:00:00+05:30', 'refunded'),
    ]);
    expect(result.recorded).toBe(3);
    // Neither day had a partition: made for the batch (never a lost event), and told.
    expect(missing.at(-1)?.sort()).toEqual(['2026-03-31', '2026-04-01']);
    expect(await partitionOf(lastOfMarch.request_id)).toEqual(['usage_events_20260331']);
    expect(await partitionOf(firstOfApril.request_id)).toEqual(['usage_events_20260401']);
    const { rows } = await pool.query(
      `SELECT to_char(day, 'YYYY-MM') AS month, sum(charged)::int AS charged FROM usage_daily
        WHERE account_id = $1 AND interface = 'rest' GROUP BY 1 ORDER BY 1`,
      [A],
    );
    expect(rows).toEqual([
      { month: '2026-03', charged: 1 },
      { month: '2026-04', charged: 1 },
    ]);
  });

  it('makes partitions ahead, from yesterday on', async () => {
    const registry = createRegistry('t');
    // (Consumers not caught up: nothing is sealed yet, only partitions are made.)
    await store.record([
      ev('2026-04-04T12:00:00+05:30'),
      ev('2026-04-04T13:00:00+05:30', 'charged', { account_id: B }),
    ]);
    expect(await upkeep(folder(), registry, NOW, false).run()).toBe(true);
    const days = await dayStates(pool);
    for (const day of ['2026-04-04', '2026-04-05', '2026-04-06', '2026-04-07'])
      expect(days.find((d) => d.day === day)?.partition, day).toBe(true);
    expect(days.some((d) => d.sealed)).toBe(false);
    expect(await metric(registry, 'ledger_usage_partitions_ahead_days')).toBe(2);
  });
});

describe('seal, archive, drop', () => {
  it('seals nothing while a shard’s consumer has not recorded what the stream holds', async () => {
    const registry = createRegistry('t');
    await upkeep(folder(), registry, NOW, false).run();
    expect(await seals(pool)).toEqual([]);
    expect(await metric(registry, 'ledger_usage_seal_lag_days')).toBe(3);
  });

  it('keeps a day whose archive cannot be written, and says so', async () => {
    const registry = createRegistry('t');
    // A file where the folder should be: every write fails.
    const blocked = join(folder(), 'not-a-folder');
    writeFileSync(blocked, 'x');
    await upkeep(blocked, registry).run();
    // Sealed (closed past the grace, consumers caught up), but past retention and not archived: kept.
    expect((await seals(pool)).map((s) => [s.day, s.archivedAt !== null, s.droppedAt !== null])).toEqual([
      ['2026-03-31', false, false],
      ['2026-04-01', false, false],
      ['2026-04-04', false, false],
    ]);
    expect(await metric(registry, 'ledger_usage_archive_failures_total', { stage: 'export' })).toBe(2);
    expect(await metric(registry, 'ledger_usage_archive_lag_days')).toBe(2);
    expect(await metric(registry, 'ledger_usage_upkeep_last_success_timestamp_seconds')).toBe(0);
    const days = await dayStates(pool);
    expect(days.filter((d) => d.partition).map((d) => d.day)).toContain('2026-03-31');
  });

  it('archives, reads back against the seal, and only then drops', async () => {
    const dir = folder();
    const registry = createRegistry('t');
    await upkeep(dir, registry).run();
    const sealed = await seals(pool);
    expect(sealed.map((s) => [s.day, s.events, s.droppedAt !== null])).toEqual([
      ['2026-03-31', 1, true],
      ['2026-04-01', 2, true],
      ['2026-04-04', 2, false],
    ]);
    expect(sealed[0]!.archiveUri).toMatch(/usage-events-2026-03-31\.ndjson\.gz$/);
    expect(readdirSync(dir).sort()).toEqual([
      'usage-events-2026-03-31.manifest.json',
      'usage-events-2026-03-31.ndjson.gz',
      'usage-events-2026-04-01.manifest.json',
      'usage-events-2026-04-01.ndjson.gz',
    ]);
    const days = await dayStates(pool);
    expect(days.filter((d) => d.partition).map((d) => d.day)).toEqual([
      '2026-04-04',
      '2026-04-05',
      '2026-04-06',
      '2026-04-07',
    ]);
    expect(await metric(registry, 'ledger_usage_archive_lag_days')).toBe(0);
    expect(await metric(registry, 'ledger_usage_upkeep_last_success_timestamp_seconds')).toBe(NOW / 1000);
    // The admin tool reads an archived day back against its seal.
    expect(await admin(dir, 'archive', 'verify', '2026-03-31')).toMatchObject({ code: 0 });

    // The rebuild replays the retained days from events and the dropped ones from their seals.
    const rebuilt = await admin(dir, 'rebuild');
    expect(rebuilt.out).toMatch(/2 dropped day\(s\) from their seals: projections equal the live ones/);
    expect(rebuilt).toMatchObject({ code: 0 });

    // An archive that no longer reads back equal to its seal is reported.
    const gz = join(dir, 'usage-events-2026-04-01.ndjson.gz');
    const bytes = readFileSync(gz);
    bytes[bytes.length - 5]! ^= 0xff;
    writeFileSync(gz, bytes);
    const broken = await admin(dir, 'archive', 'verify', '2026-04-01');
    expect(broken.code).toBe(1);
    expect(broken.out).toMatch(/does not match its seal/);
  });

  it('restores an archived day for an audit, equal to its seal’s figures', async () => {
    // From where the seal says the day was archived.
    const [seal] = await seals(pool, '2026-03-31');
    const where = new URL(seal!.archiveUri!).pathname.replace(/\/[^/]+$/, '');
    const restored = await admin(where, 'archive', 'restore', '2026-03-31');
    expect(restored).toMatchObject({ code: 0 });
    expect(restored.out).toMatch(/1 events restored into usage_restored_20260331/);
    const { rows } = await pool.query('SELECT account_id::text, kind, route FROM usage_restored_20260331');
    expect(rows).toEqual([{ account_id: A, kind: 'charged', route: 'getStockQuote' }]);
  });

  it('leaves an event of a sealed day out of the log and counts it', async () => {
    const late = await store.record([ev('2026-04-04T23:00:00+05:30')]);
    expect(late).toMatchObject({ recorded: 0, late: 1, deltas: [] });
    // And the seal of 4 April still holds against what the log has.
    expect(await admin(folder(), 'rebuild')).toMatchObject({ code: 0 });
  });

  it('finds a sealed day whose events were changed behind the seal', async () => {
    await pool.query('ALTER TABLE usage_events_20260404 DISABLE TRIGGER USER');
    await pool.query('DELETE FROM usage_events_20260404 WHERE account = usage_account($1)', [B]);
    await pool.query('ALTER TABLE usage_events_20260404 ENABLE TRIGGER USER');
    const report = await admin(folder(), 'rebuild');
    expect(report.code).toBe(1);
    expect(report.out).toMatch(/seal 2026-04-04: 1 events held, the seal says 2/);
  });
});
