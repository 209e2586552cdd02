// Data tool of the options service: imports NSE files and writes the generated default dataset into the
// service's schema (migrating it first, so it can run before the service ever has). stdout carries the
// result; progress goes to stderr.

import { parseArgs } from 'node:util';
import type { Pool } from '@mdp/db';
import { type Clock, formatDay, lastCompletedSession, systemClock } from '@mdp/nse-calendar';
import { isEntryPoint, runServiceCli, UsageError } from '@mdp/runtime';
import { DEFAULT_SCHEMA, optionsConfig } from './config.ts';
import { DEFAULT_SEED } from './generate/dataset.ts';
import { writeGeneratedDataset } from './generate/write-dataset.ts';
import { expandPaths, importFoFile } from './import/import-fo.ts';
import { importLotFile } from './import/import-lots.ts';
import { OptionsStore } from './store/options-store.ts';

const USAGE = `usage: options-data <command> [options]

  import-fo <file|dir>... [--symbols A,B]  import NSE F&O bhavcopies in the UDiFF format
                                           (BhavCopy_NSE_FO_*.csv; a directory imports its .csv files)
  import-lots <file>                       import NSE's market-lot file (fo_mktlots.csv)
  generate [--seed N] [--as-of YYYY-MM-DD] [--size N] [--history-days N]
                                           replace everything with options on the generated market of that
                                           seed, last session, size and history (the market equities-data
                                           generates with the same --seed, --end, --size, --history-days)
  load-default [--if-empty]                the generated default dataset (seed ${DEFAULT_SEED}, the market's
                                           history up to the last completed session, IST: the same days and
                                           prices as the equities default dataset);
                                           with --if-empty only into a schema holding no data
  status                                   row counts of what is loaded
  clear                                    delete every row

Environment: DATABASE_URL, DB_SCHEMA (default ${DEFAULT_SCHEMA}), RISK_FREE_RATE (default 0.065).`;

export { UsageError };

export interface CliDeps {
  pool: Pool;
  r: number;
  clock: Clock;
  /** Progress lines (stderr in the real tool). */
  progress: (line: string) => void;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

function dateOption(value: string | undefined, flag: string): string | undefined {
  if (value === undefined) return undefined;
  if (!DATE.test(value) || Number.isNaN(Date.parse(value)))
    throw new UsageError(`${flag} must be a date YYYY-MM-DD, not "${value}"`);
  return value;
}

function wholeNumber(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d{1,9}$/.test(value)) throw new UsageError(`${flag} must be a whole number, not "${value}"`);
  return Number(value);
}

/** The default as-of day: the last completed session, the equities default dataset's last day too. */
export function defaultAsOf(clock: Clock): string {
  return formatDay(lastCompletedSession(clock()));
}

/** Runs one command; resolves to what goes to stdout. */
export async function run(argv: string[], deps: CliDeps): Promise<string> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      symbols: { type: 'string' },
      seed: { type: 'string' },
      'as-of': { type: 'string' },
      size: { type: 'string' },
      'history-days': { type: 'string' },
      'if-empty': { type: 'boolean' },
    },
  });
  const [command, ...args] = positionals;
  switch (command) {
    case 'import-fo': {
      if (args.length === 0) throw new UsageError('import-fo needs at least one file or directory');
      const symbols = values.symbols
        ? new Set(
            values.symbols
              .split(',')
              .map((s) => s.trim().toUpperCase())
              .filter(Boolean),
          )
        : undefined;
      const files = await expandPaths(args);
      let underlyingDays = 0;
      let options = 0;
      for (const file of files) {
        const s = await importFoFile(deps.pool, file, { r: deps.r, symbols });
        deps.progress(
          s.underlyings === 0
            ? `${file}: nothing to import${symbols ? ' for the symbols asked' : ''}`
            : `${file}: ${s.tradeDates.join(', ')}: ${s.underlyings} underlyings, ${s.options} options`,
        );
        underlyingDays += s.underlyings;
        options += s.options;
      }
      return `imported ${files.length} file(s): ${underlyingDays} underlying-days, ${options} options`;
    }
    case 'import-lots': {
      const file = args[0];
      if (!file) throw new UsageError('import-lots needs the market-lot file');
      const s = await importLotFile(deps.pool, file);
      return `imported lot sizes of ${s.indices} indices and ${s.stocks} stocks`;
    }
    case 'generate':
    case 'load-default': {
      const generate = command === 'generate';
      if (!generate && (values.seed || values['as-of'] || values.size || values['history-days']))
        throw new UsageError('load-default takes no --seed, --as-of, --size or --history-days; use generate');
      const opts = {
        seed: wholeNumber(values.seed, '--seed') ?? DEFAULT_SEED,
        asOf: dateOption(values['as-of'], '--as-of') ?? defaultAsOf(deps.clock),
        r: deps.r,
        marketSize: wholeNumber(values.size, '--size'),
        historyDays: wholeNumber(values['history-days'], '--history-days'),
      };
      if (opts.marketSize !== undefined && opts.marketSize < 20)
        throw new UsageError('--size must be at least 20');
      const ifEmpty = !generate && values['if-empty'] === true;
      const started = Date.now();
      deps.progress(`generating: seed ${opts.seed}, market history to ${opts.asOf}, r = ${opts.r}`);
      const w = await writeGeneratedDataset(deps.pool, opts, { ifEmpty });
      if (!w.written) return 'options data already loaded; nothing written';
      return `generated ${w.underlyings} underlyings, ${w.snapshots} chains, ${w.dailyRows} daily rows in ${((Date.now() - started) / 1000).toFixed(1)} s`;
    }
    case 'status': {
      const counts = await new OptionsStore(deps.pool).counts();
      return Object.entries(counts)
        .map(([k, v]) => `${k.padEnd(16)} ${v}`)
        .join('\n');
    }
    case 'clear':
      await new OptionsStore(deps.pool).clear();
      return 'cleared';
    default:
      throw new UsageError(command ? `unknown command "${command}"` : 'no command given');
  }
}

if (isEntryPoint(import.meta.url)) {
  await runServiceCli({
    name: 'options-data',
    usage: USAGE,
    defaultSchema: DEFAULT_SCHEMA,
    migrationsDir: new URL('../migrations/', import.meta.url),
    config: optionsConfig,
    run: ({ argv, pool, config, progress }) =>
      run(argv, { pool, r: config.RISK_FREE_RATE, clock: systemClock, progress }),
  });
}
