// The platform's import of a folder of exchange files: `make import DIR=<folder>`, `make run DATA=`,
// and the chart's daily CronJob (with --day-folder). Each file goes to the data service that owns its
// kind, written into that service's schema; the services announce the change to every gateway
// themselves. The report goes to stdout, progress to stderr.
//
// Exit codes: 0 done (rejected rows included), 1 a kind failed or the day's folder is missing,
// 2 usage, 78 configuration.

import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { commonConfig, databaseConfig, loadConfig } from '@mdp/config';
import { migratedPool, type Pool } from '@mdp/db';
import { lastPriceDay, loadCalendar, sessionsBehind } from '@mdp/equities-data/import';
import {
  formatDay,
  lastCompletedSession,
  parseDay,
  putCalendarInForce,
  regularTradingDayOnOrBefore,
} from '@mdp/nse-calendar';
import { optionsConfig } from '@mdp/options-analytics/import';
import { createLogger } from '@mdp/telemetry';
import { type Static, Type } from '@sinclair/typebox';
import type { Registry } from 'prom-client';
import { importFolder } from './import-folder.ts';
import type { DataService } from './kinds.ts';
import { type Freshness, missedRunMetrics, pushMetrics, runMetrics } from './metrics.ts';
import { progressEvents } from './progress.ts';
import { formatReport } from './report.ts';

export const USAGE = `usage: data-import <folder> [--day-folder] [--json]

  Imports every exchange file under <folder> (nested folders and zip archives too): each file's kind is
  recognised from its name and header and imported by the service that owns it, kinds in their
  required order, each all or nothing. A second run of the same folder changes nothing and says so.
  --day-folder   import the day folders <folder>/<YYYY-MM-DD> after the last day the prices hold, up to
                 the last completed NSE session (IST); exit 1 when that session's folder is missing
  --json         print the report as JSON

Environment: DATABASE_URL, EQUITIES_DB_SCHEMA (equities), OPTIONS_DB_SCHEMA (options),
FILINGS_DB_SCHEMA (filings), RISK_FREE_RATE, PUSHGATEWAY_URL (push this run's metrics there).`;

const schemaName = (fallback: string) =>
  Type.String({ default: fallback, pattern: '^[a-z_][a-z0-9_]{0,62}$' });

export const importConfig = Type.Object({
  DATABASE_URL: databaseConfig.DATABASE_URL,
  EQUITIES_DB_SCHEMA: schemaName('equities'),
  OPTIONS_DB_SCHEMA: schemaName('options'),
  FILINGS_DB_SCHEMA: schemaName('filings'),
  RISK_FREE_RATE: optionsConfig.RISK_FREE_RATE,
  PUSHGATEWAY_URL: Type.Optional(Type.String({ pattern: '^https?://', maxLength: 2048 })),
  // The tool's own lines (migrations) are quiet unless asked: its report is what an operator reads.
  LOG_LEVEL: Type.Union(commonConfig.LOG_LEVEL.anyOf, { default: 'warn' }),
});
export type ImportConfig = Static<typeof importConfig>;

/** Each data service's schema variable and its migrations (the same relative path from src/ and dist/). */
const SERVICES: Record<DataService, { schema: keyof ImportConfig; migrations: URL }> = {
  'equities-data': {
    schema: 'EQUITIES_DB_SCHEMA',
    migrations: new URL('../../equities-data/migrations/', import.meta.url),
  },
  'options-analytics': {
    schema: 'OPTIONS_DB_SCHEMA',
    migrations: new URL('../../options-analytics/migrations/', import.meta.url),
  },
  'filings-reader': {
    schema: 'FILINGS_DB_SCHEMA',
    migrations: new URL('../../filings-reader/migrations/', import.meta.url),
  },
};

/** The latest trading day in the prices, and how many completed sessions are missing after it. */
async function freshness(pool: Pool, nowMs: number): Promise<Freshness> {
  const last = await lastPriceDay(pool);
  return { lastTradingDay: last, sessionsBehind: sessionsBehind(last, nowMs) };
}

const isFolder = (path: string) =>
  stat(path).then(
    (s) => s.isDirectory(),
    () => false,
  );

/**
 * The day folders (`YYYY-MM-DD`) of `root` a daily run imports, oldest first: every one after the last
 * day the prices hold (all of them when none is held), so a missed day is caught up, and the last
 * session's (again: unchanged files change nothing), never one after the last session.
 */
export async function dayFolders(
  root: string,
  held: string | undefined,
  lastSession: string,
): Promise<string[]> {
  const names = (await readdir(root, { withFileTypes: true }))
    .filter((e) => e.isDirectory() && /^\d{4}-\d{2}-\d{2}$/.test(e.name) && parseDay(e.name) !== undefined)
    .map((e) => e.name)
    .sort();
  return names.filter((d) => d <= lastSession && (held === undefined || d > held || d === lastSession));
}

async function main(argv: string[]): Promise<number> {
  let args: ReturnType<
    typeof parseArgs<{
      options: { 'day-folder': { type: 'boolean' }; json: { type: 'boolean' } };
      allowPositionals: true;
    }>
  >;
  try {
    args = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { 'day-folder': { type: 'boolean' }, json: { type: 'boolean' } },
    });
    if (args.positionals.length !== 1)
      throw new Error(args.positionals.length === 0 ? 'missing <folder>' : 'one <folder> only');
  } catch (err) {
    process.stderr.write(`data-import: ${(err as Error).message}\n\n${USAGE}\n`);
    return 2;
  }
  let config: ImportConfig;
  try {
    config = loadConfig(importConfig);
  } catch (err) {
    process.stderr.write(`data-import: invalid configuration: ${(err as Error).message}\n`);
    return 78;
  }
  const folder = args.positionals[0]!;
  const push = async (registry: Registry) => {
    if (!config.PUSHGATEWAY_URL) return;
    await pushMetrics(config.PUSHGATEWAY_URL, registry).catch((err: Error) =>
      process.stderr.write(
        `data-import: could not push metrics to ${config.PUSHGATEWAY_URL}: ${err.message}\n`,
      ),
    );
  };
  const pools = {} as Record<DataService, Pool>;
  const logger = createLogger('data-import', config.LOG_LEVEL);
  try {
    for (const [service, { schema, migrations }] of Object.entries(SERVICES) as [
      DataService,
      (typeof SERVICES)[DataService],
    ][]) {
      const name = config[schema] as string;
      pools[service] = await migratedPool({
        url: config.DATABASE_URL,
        schema: name,
        dir: migrations.pathname,
        max: 2,
        applicationName: 'data-import',
        logger,
      });
    }
    // The schedule (the last completed session, the day folders) and everything imported count
    // sessions by the calendar equities-data owns; a new database is given the seed.
    putCalendarInForce(await loadCalendar(pools['equities-data']));
    const missed = async () =>
      push(missedRunMetrics(await freshness(pools['equities-data'], Date.now()), Date.now()));
    if (!(await isFolder(folder))) {
      process.stderr.write(`data-import: ${folder} is not a folder\n`);
      await missed();
      return 1;
    }
    let days: string[] | undefined;
    let notArrived: string | undefined;
    if (args.values['day-folder']) {
      const session = lastCompletedSession(Date.now());
      const lastSession = formatDay(session);
      // A special session's folder (Muhurat, a Budget weekend) is read when it is there; the last full
      // session's must be.
      const due = formatDay(regularTradingDayOnOrBefore(session));
      const held = (await freshness(pools['equities-data'], Date.now())).lastTradingDay;
      days = await dayFolders(folder, held === undefined ? undefined : formatDay(held), lastSession);
      if (!days.includes(due)) notArrived = join(folder, due);
      if (days.length === 0) {
        process.stderr.write(
          `data-import: ${notArrived} is not a folder: the last session’s files have not arrived\n`,
        );
        await missed();
        return 1;
      }
    }
    const events = progressEvents();
    const report = await importFolder(
      folder,
      { pools, riskFreeRate: config.RISK_FREE_RATE, now: Date.now },
      events,
      Date.now,
      days,
    );
    events.stop();
    const fresh = await freshness(pools['equities-data'], Date.now());
    const last = fresh.lastTradingDay === undefined ? 'none' : formatDay(fresh.lastTradingDay);
    process.stdout.write(
      args.values.json
        ? `${JSON.stringify({ ...report, lastTradingDay: last, sessionsBehind: fresh.sessionsBehind }, null, 2)}\n`
        : `${formatReport(report)}\nprices now end on ${last}${
            Number.isFinite(fresh.sessionsBehind) && fresh.sessionsBehind > 0
              ? ` (${fresh.sessionsBehind} completed session(s) behind)`
              : ''
          }\n`,
    );
    await push(runMetrics(report, fresh, Date.now()));
    if (notArrived) {
      process.stderr.write(
        `data-import: ${notArrived} is not a folder: the last session’s files have not arrived (imported the days before it)\n`,
      );
      return 1;
    }
    return report.failed.length > 0 ? 1 : 0;
  } catch (err) {
    process.stderr.write(`data-import: failed: ${(err as Error).message}\n`);
    return 1;
  } finally {
    await Promise.all(Object.values(pools).map((p) => p.end().catch(() => {})));
  }
}

process.exitCode = await main(process.argv.slice(2));
