// Admin tool of the quota ledger. Exit code 0 when what it checks holds, 1 when it does not, 2 for a
// usage error.
import { databaseConfig, loadConfig } from '@mdp/config';
import { migratedPool, type Pool } from '@mdp/db';
import { systemClock } from '@mdp/nse-calendar';
import { createLogger, createRegistry } from '@mdp/telemetry';
import { Type } from '@sinclair/typebox';
import { ledgerConfig } from './config.ts';
import {
  type ArchiveTarget,
  assertDay,
  figureDifferences,
  restoreArchivedDay,
  verifyArchivedDay,
} from './log/archive/index.ts';
import { archiveTarget, type UsageLogConfig, upkeepSettings } from './log/usage-log-config.ts';
import { sealDifferences, sealedFigures, seals } from './log/usage-seals.ts';
import { createUpkeep } from './log/usage-upkeep.ts';
import { ProjectionStore } from './settlement/projections.ts';

const USAGE = `usage: ledger-admin <command>

  rebuild                  replay the event log into fresh projections and compare them with the live
                           ones (days already archived and dropped are replayed from their seals), and
                           read every sealed day still held again against its seal
  seals                    list the sealed days: events, sha256, where archived, whether dropped
  archive verify <day>     read an archived day back from the archive and check it against its seal
  archive restore <day>    load an archived day into usage_restored_<YYYYMMDD> for an audit, checked
                           against its seal's count, sha256 and figures
  upkeep                   one upkeep pass now: partitions ahead, seal closed days, archive and drop
                           days past USAGE_LOG_RETENTION_DAYS (what shard 0 does every
                           USAGE_UPKEEP_INTERVAL_MS); consumers are not asked, so seal only when the
                           ledger is caught up

Environment: DATABASE_URL, DB_SCHEMA (default ledger), and the USAGE_LOG_* / USAGE_ARCHIVE_* variables
of the ledger (see docs/operators.md).`;

export interface AdminContext {
  pool: Pool;
  store: ProjectionStore;
  target: () => Promise<ArchiveTarget>;
  config: UsageLogConfig;
  clock: () => number;
}

const usageError = { out: USAGE, code: 2 };

/** Runs one command; returns the text for stdout and the exit code. */
export async function run(ctx: AdminContext, argv: string[]): Promise<{ out: string; code: number }> {
  const [command, sub, day, ...rest] = argv;
  if (command === 'rebuild' && argv.length === 1) return rebuild(ctx);
  if (command === 'seals' && argv.length === 1) return listSeals(ctx);
  if (command === 'upkeep' && argv.length === 1) return upkeep(ctx);
  if (command === 'archive' && (sub === 'verify' || sub === 'restore') && day && rest.length === 0) {
    try {
      assertDay(day);
    } catch (err) {
      return { out: `${(err as Error).message}\n\n${USAGE}`, code: 2 };
    }
    const [seal] = await seals(ctx.pool, day);
    if (!seal) return { out: `${day} is not sealed: there is no archive of it to read`, code: 1 };
    if (!seal.archiveUri) return { out: `${day} is sealed but not archived yet`, code: 1 };
    return sub === 'verify' ? verify(ctx, day, seal) : restore(ctx, day, seal);
  }
  return usageError;
}

async function rebuild(ctx: AdminContext) {
  const totals = await ctx.store.totals();
  const diffs = await ctx.store.rebuildDifferences();
  const sealDiffs = await sealDifferences(ctx.pool);
  const sealed = await seals(ctx.pool);
  const head = `replayed ${totals.events} events of ${totals.accounts} accounts, ${sealed.filter((s) => s.droppedAt).length} dropped day(s) from their seals`;
  const lines = diffs.map(
    (d) => `  account ${d.account_id} period ${d.period} via ${d.via}: live ${d.live}, rebuilt ${d.rebuilt}`,
  );
  const sealLines = sealDiffs.map((d) => `  seal ${d}`);
  const held = sealed.filter((s) => !s.droppedAt).length;
  if (lines.length === 0 && sealLines.length === 0)
    return {
      out: `${head}: projections equal the live ones (no differences); ${held} sealed day(s) held equal their seals`,
      code: 0,
    };
  return {
    out: [`${head}: ${diffs.length + sealDiffs.length} difference(s)`, ...lines, ...sealLines].join('\n'),
    code: 1,
  };
}

async function listSeals(ctx: AdminContext) {
  const rows = await seals(ctx.pool);
  if (rows.length === 0) return { out: 'no day is sealed yet', code: 0 };
  const lines = rows.map(
    (s) =>
      `${s.day}  ${String(s.events).padStart(10)} events  sha256 ${s.sha256.slice(0, 16)}…  ${
        s.droppedAt ? 'archived, dropped' : s.archivedAt ? 'archived, held' : 'held'
      }${s.archiveUri ? `  ${s.archiveUri}` : ''}`,
  );
  return { out: lines.join('\n'), code: 0 };
}

async function verify(ctx: AdminContext, day: string, seal: { events: number; sha256: string }) {
  const report = await verifyArchivedDay(await ctx.target(), day, seal);
  if (report.ok)
    return {
      out: `${day}: ${report.uri} holds ${report.events} events equal to the seal (sha256 ${seal.sha256})`,
      code: 0,
    };
  return {
    out: [`${day}: ${report.uri} does not match its seal`, ...report.reasons.map((r) => `  ${r}`)].join('\n'),
    code: 1,
  };
}

async function restore(ctx: AdminContext, day: string, seal: { events: number; sha256: string }) {
  const restored = await restoreArchivedDay(ctx.pool, await ctx.target(), day, seal);
  const diffs = figureDifferences(await sealedFigures(ctx.pool, day), restored.figures);
  const head = `${day}: ${restored.events} events restored into ${restored.table} (sha256 equal to the seal)`;
  if (diffs.length === 0) return { out: `${head}; figures equal the sealed ones`, code: 0 };
  return {
    out: [`${head}; figures differ from the sealed ones:`, ...diffs.map((d) => `  ${d}`)].join('\n'),
    code: 1,
  };
}

async function upkeep(ctx: AdminContext) {
  const registry = createRegistry('ledger-admin');
  const pass = createUpkeep({
    pool: ctx.pool,
    target: await ctx.target(),
    settings: upkeepSettings(ctx.config),
    clock: ctx.clock,
    consumersCaughtUp: async () => true,
    ensurePartitions: (days) => ctx.store.ensurePartitions(days),
    logger: createLogger('ledger-admin', 'info'),
    registry,
  });
  if (!(await pass.run()))
    return { out: 'another process is running the upkeep now; try again later', code: 1 };
  const failures =
    (await registry.getSingleMetric('ledger_usage_archive_failures_total')?.get())?.values ?? [];
  const failed = failures.reduce((n, v) => n + v.value, 0);
  const rows = await seals(ctx.pool);
  const out = `upkeep done: ${rows.length} sealed day(s), ${rows.filter((s) => s.droppedAt).length} archived and dropped${
    failed > 0 ? `; ${failed} archive step(s) failed (see the log)` : ''
  }`;
  return { out, code: failed > 0 ? 1 : 0 };
}

async function main(): Promise<number> {
  const config = loadConfig(
    Type.Object({
      ...databaseConfig,
      DB_SCHEMA: Type.String({ default: 'ledger', pattern: '^[a-z_][a-z0-9_]{0,62}$' }),
      USAGE_LOG_RETENTION_DAYS: ledgerConfig.USAGE_LOG_RETENTION_DAYS,
      USAGE_PARTITIONS_AHEAD_DAYS: ledgerConfig.USAGE_PARTITIONS_AHEAD_DAYS,
      USAGE_SEAL_GRACE_MINUTES: ledgerConfig.USAGE_SEAL_GRACE_MINUTES,
      USAGE_ARCHIVE_DIR: ledgerConfig.USAGE_ARCHIVE_DIR,
      USAGE_ARCHIVE_S3_BUCKET: ledgerConfig.USAGE_ARCHIVE_S3_BUCKET,
      USAGE_ARCHIVE_S3_PREFIX: ledgerConfig.USAGE_ARCHIVE_S3_PREFIX,
      USAGE_ARCHIVE_S3_ENDPOINT: ledgerConfig.USAGE_ARCHIVE_S3_ENDPOINT,
      USAGE_ARCHIVE_S3_REGION: ledgerConfig.USAGE_ARCHIVE_S3_REGION,
      USAGE_ARCHIVE_S3_FORCE_PATH_STYLE: ledgerConfig.USAGE_ARCHIVE_S3_FORCE_PATH_STYLE,
    }),
  );
  // A ledger that never ran has an empty log: migrate so the answer is "0 events", not an error.
  const pool = await migratedPool({
    url: config.DATABASE_URL,
    schema: config.DB_SCHEMA,
    dir: new URL('../migrations/', import.meta.url).pathname,
    max: 2,
    applicationName: 'ledger-admin',
    logger: createLogger('ledger-admin', 'warn'),
  });
  try {
    const ctx: AdminContext = {
      pool,
      store: new ProjectionStore(pool),
      target: () => archiveTarget(config),
      config,
      clock: systemClock,
    };
    const { out, code } = await run(ctx, process.argv.slice(2));
    (code === 2 ? process.stderr : process.stdout).write(`${out}\n`);
    return code;
  } finally {
    await pool.end();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().then(
    (code) => process.exit(code),
    (err) => {
      process.stderr.write(`ledger-admin: ${(err as Error).message}\n`);
      process.exit(1);
    },
  );
}
