// Admin tool of the quota ledger. `rebuild` replays the whole event log into fresh projections and
// reports every difference from the live ones; there must be none. Exit code 0 when they agree, 1 when
// they differ, 2 for a usage error.
import { databaseConfig, loadConfig } from '@mdp/config';
import { migratedPool } from '@mdp/db';
import { createLogger } from '@mdp/telemetry';
import { Type } from '@sinclair/typebox';
import { ProjectionStore } from './projections.ts';

const USAGE = `usage: ledger-admin rebuild

  rebuild    replay the event log into fresh projections and compare them with the live ones

Environment: DATABASE_URL, DB_SCHEMA (default ledger).`;

/** Runs one command; returns the text for stdout and the exit code. */
export async function run(store: ProjectionStore, argv: string[]): Promise<{ out: string; code: number }> {
  if (argv[0] !== 'rebuild' || argv.length > 1) return { out: USAGE, code: 2 };
  const totals = await store.totals();
  const diffs = await store.rebuildDifferences();
  const head = `replayed ${totals.events} events of ${totals.accounts} accounts`;
  if (diffs.length === 0)
    return { out: `${head}: projections equal the live ones (no differences)`, code: 0 };
  const lines = diffs.map(
    (d) => `  account ${d.account_id} period ${d.period} via ${d.via}: live ${d.live}, rebuilt ${d.rebuilt}`,
  );
  return { out: [`${head}: ${diffs.length} difference(s)`, ...lines].join('\n'), code: 1 };
}

async function main(): Promise<number> {
  const config = loadConfig(
    Type.Object({
      ...databaseConfig,
      DB_SCHEMA: Type.String({ default: 'ledger', pattern: '^[a-z_][a-z0-9_]{0,62}$' }),
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
    const { out, code } = await run(new ProjectionStore(pool), process.argv.slice(2));
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
