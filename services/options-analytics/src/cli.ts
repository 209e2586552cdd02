// Data tool of the options service: imports NSE files and writes the generated default dataset into the
// service's schema (migrating it first, so it can run before the service ever has). stdout carries the
// result; progress goes to stderr.

import { parseArgs } from 'node:util';
import type { Pool } from '@mdp/db';
import { type Clock, istToday, systemClock } from '@mdp/ist-time';
import { isEntryPoint, runServiceCli, UsageError } from '@mdp/runtime';
import { addDays } from './analytics/time.ts';
import { tradingDayOnOrBefore } from './calendar/trading-calendar.ts';
import { DEFAULT_SCHEMA, optionsConfig } from './config.ts';
import { DEFAULT_HISTORY_FROM, DEFAULT_SEED } from './generate/dataset.ts';
import { writeGeneratedDataset } from './generate/write-dataset.ts';
import { expandPaths, importFoFile } from './import/import-fo.ts';
import { importLotFile } from './import/import-lots.ts';
import { OptionsStore } from './store/options-store.ts';

const USAGE = `usage: options-data <command> [options]

  import-fo <file|dir>... [--symbols A,B]  import NSE F&O bhavcopies in the UDiFF format
                                           (BhavCopy_NSE_FO_*.csv; a directory imports its .csv files)
  import-lots <file>                       import NSE's market-lot file (fo_mktlots.csv)
  generate [--seed N] [--as-of YYYY-MM-DD] [--from YYYY-MM-DD]
                                           replace everything with a generated dataset
  load-default [--if-empty]                the generated default dataset (seed ${DEFAULT_SEED}, history from
                                           ${DEFAULT_HISTORY_FROM} to the last trading day before today, IST);
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

/** The default as-of day: the last trading day before today in IST (today's bhavcopy is not out yet). */
export function defaultAsOf(clock: Clock): string {
  return tradingDayOnOrBefore(addDays(istToday(clock), -1));
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
      from: { type: 'string' },
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
      if (!generate && (values.seed || values['as-of'] || values.from))
        throw new UsageError('load-default takes no --seed, --as-of or --from; use generate');
      const seed = values.seed === undefined ? DEFAULT_SEED : Number(values.seed);
      if (!Number.isSafeInteger(seed) || seed < 0)
        throw new UsageError(`--seed must be a whole number, not "${values.seed}"`);
      const opts = {
        seed,
        asOf: dateOption(values['as-of'], '--as-of') ?? defaultAsOf(deps.clock),
        from: dateOption(values.from, '--from') ?? DEFAULT_HISTORY_FROM,
        r: deps.r,
      };
      if (opts.from >= opts.asOf) throw new UsageError('--from must be before --as-of');
      const ifEmpty = !generate && values['if-empty'] === true;
      const started = Date.now();
      deps.progress(`generating: seed ${opts.seed}, ${opts.from} to ${opts.asOf}, r = ${opts.r}`);
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
