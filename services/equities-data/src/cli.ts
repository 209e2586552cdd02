// Data tool of the equities-data service: loads the generated default dataset and imports real
// exchange files into the service's schema (DATABASE_URL, DB_SCHEMA as for the service). It applies
// the schema's migrations first, so it works before the service has ever run. Progress and reports go
// to stderr; stdout carries only the summary line asked for.

import { parseArgs } from 'node:util';
import type { Pool } from '@mdp/db';
import { DEFAULT_HISTORY_DAYS, DEFAULT_SEED, DEFAULT_SIZE, generateDataset } from '@mdp/market';
import { formatDay, lastCompletedSession, parseDay, putCalendarInForce } from '@mdp/nse-calendar';
import { isEntryPoint, runServiceCli, UsageError } from '@mdp/runtime';
import { AREAS } from './areas/index.ts';
import { loadCalendar } from './calendar/store.ts';
import { IMPORT_KINDS, ImportFileError, runImport } from './importers/index.ts';
import { formatReport } from './importers/report.ts';
import { loadGenerated } from './store/load-generated.ts';

const USAGE = `usage: equities-data <command> [options]

  load-default [--if-empty] [--seed N] [--size N] [--end YYYY-MM-DD] [--history-days N]
        generate the default dataset (seeded, deterministic) and load it, replacing the schema's data;
        with --if-empty, do nothing when stocks are already loaded (what \`make run\` calls)
  generate [--seed N] [--size N] [--end YYYY-MM-DD] [--history-days N]
        the same, always replacing (for another seed, size or end day)
  import <kind> <file>...
        import real exchange files of one kind, all or nothing; prints rows read/loaded/rejected
  kinds                      the import kinds and the files each reads
  stats                      what the schema holds
  calendar [--year YYYY]     the trading calendar in force: the years loaded (and from where), when it
                             runs out, and a year's holidays and special sessions (default: the last)

Environment: DATABASE_URL, DB_SCHEMA (default equities).`;

function int(value: string | undefined, flag: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^\d{1,9}$/.test(value)) throw new UsageError(`${flag} must be a whole number, not "${value}"`);
  return Number(value);
}

export interface CliIo {
  log: (line: string) => void;
  now: () => number;
}

/** Runs one command; returns what goes to stdout. */
export async function run(pool: Pool, argv: string[], io: CliIo): Promise<string> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      'if-empty': { type: 'boolean' },
      seed: { type: 'string' },
      size: { type: 'string' },
      end: { type: 'string' },
      'history-days': { type: 'string' },
      year: { type: 'string' },
    },
  });
  const [command, ...rest] = positionals;
  // Whatever the command dates (the generated sessions, an import's trading days) follows the schema's
  // calendar; a new schema is given the seed.
  const calendar = await loadCalendar(pool);
  putCalendarInForce(calendar);
  switch (command) {
    case 'load-default':
    case 'generate': {
      const end = values.end === undefined ? lastCompletedSession(io.now()) : parseDay(values.end);
      if (end === undefined) throw new UsageError(`--end must be a date YYYY-MM-DD, not "${values.end}"`);
      const options = {
        seed: int(values.seed, '--seed', DEFAULT_SEED),
        size: int(values.size, '--size', DEFAULT_SIZE),
        endDay: end,
        historyDays: int(values['history-days'], '--history-days', DEFAULT_HISTORY_DAYS),
      };
      if (options.size < 20) throw new UsageError('--size must be at least 20');
      const onlyIfEmpty = command === 'load-default' && values['if-empty'] === true;
      const started = Date.now();
      io.log(
        `generating ${options.size} stocks, seed ${options.seed}, ${options.historyDays} days to ${formatDay(end)}`,
      );
      const ds = generateDataset(options);
      const summary = await loadGenerated(pool, ds, { onlyIfEmpty, log: io.log });
      if (!summary) return 'equities dataset already loaded; nothing to do';
      for (const line of summary.areas) io.log(line);
      const secs = ((Date.now() - started) / 1000).toFixed(1);
      return `loaded ${summary.stocks} stocks, ${summary.bars} daily bars, ${summary.aliases} aliases, ${summary.actions} splits/bonuses, ${summary.annualResults} annual results in ${secs} s (seed ${options.seed}, last session ${formatDay(ds.options.endDay)})`;
    }
    case 'import': {
      const [kind, ...files] = rest;
      if (!kind) throw new UsageError(`missing <kind>; kinds: ${Object.keys(IMPORT_KINDS).join(', ')}`);
      if (!(kind in IMPORT_KINDS))
        throw new UsageError(`unknown kind "${kind}"; kinds: ${Object.keys(IMPORT_KINDS).join(', ')}`);
      if (files.length === 0 && IMPORT_KINDS[kind]!.needsFiles) throw new UsageError('missing <file>...');
      const report = await runImport(pool, kind, files);
      io.log(formatReport(report));
      return `${kind}: read ${report.read}, loaded ${report.loaded}, changed ${report.changed}, rejected ${report.rejected}`;
    }
    case 'kinds':
      return Object.entries(IMPORT_KINDS)
        .map(([k, v]) => `${k.padEnd(18)} ${v.describe}`)
        .join('\n');
    case 'stats': {
      const { rows } = await pool.query<Record<string, string>>(
        `SELECT (SELECT count(*) FROM stocks) AS stocks,
                (SELECT count(*) FROM stocks WHERE status = 'listed') AS listed,
                (SELECT count(*) FROM aliases) AS aliases,
                (SELECT count(*) FROM daily_bars) AS daily_bars,
                (SELECT min(d)::text || '..' || max(d)::text FROM daily_bars) AS bar_days,
                (SELECT count(*) FROM market_reports) AS market_reports,
                (SELECT count(*) FROM annual_results) AS annual_results
                ${AREAS.flatMap((a) => a.tables.map((t) => `, (SELECT count(*) FROM ${t}) AS ${t}`)).join('')}`,
      );
      return Object.entries(rows[0]!)
        .map(([k, v]) => `${k.padEnd(20)} ${v ?? '-'}`)
        .join('\n');
    }
    case 'calendar': {
      const year = int(values.year, '--year', calendar.lastYear);
      if (year < 1950 || year > 2200)
        throw new UsageError(`--year must be a year from 1950 to 2200, not ${year}`);
      const { rows } = await pool.query<{ list: string; years: string; source: string }>(
        `SELECT list, min(year) || CASE WHEN min(year) < max(year) THEN '-' || max(year) ELSE '' END AS years, source
         FROM trading_calendar_years GROUP BY list, source ORDER BY list, min(year)`,
      );
      const end = new Date(calendar.endMs()).toISOString();
      return [
        `trading calendar through ${calendar.lastYear} (runs out ${end}, 00:00 IST on 1 January ${calendar.lastYear + 1})`,
        ...rows.map((r) => `  ${r.list} ${r.years} from ${r.source}`),
        `${year}:`,
        ...calendar
          .year(year)
          .map((d) => `  ${d.date}  ${d.kind}${d.description ? `  ${d.description}` : ''}`),
      ].join('\n');
    }
    default:
      throw new UsageError(command ? `unknown command "${command}"` : 'no command given');
  }
}

if (isEntryPoint(import.meta.url)) {
  await runServiceCli({
    name: 'equities-data',
    usage: USAGE,
    defaultSchema: 'equities',
    migrationsDir: new URL('../migrations/', import.meta.url),
    refusal: (err) => (err instanceof ImportFileError ? `${err.message}\nnothing was loaded` : undefined),
    run: ({ argv, pool, progress }) => run(pool, argv, { log: progress, now: Date.now }),
  });
}
