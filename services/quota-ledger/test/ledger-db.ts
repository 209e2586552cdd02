import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPool, migrateDown, migratedPool, type Pool } from '@mdp/db';

export const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@localhost:5432/mdp';
const LEDGER_MIGRATIONS = new URL('../migrations/', import.meta.url).pathname;

/** A pool on `schema` with the ledger's migrations applied (the schema is created when missing). */
export function ledgerPool(schema: string, applicationName: string, max = 2): Promise<Pool> {
  return migratedPool({ url: DATABASE_URL, schema, dir: LEDGER_MIGRATIONS, max, applicationName });
}

/**
 * A pool of one connection on `schema` with the ledger's migrations applied up to, not including, the one
 * numbered `before` ('0006'): the ledger as an earlier release left it, to fill before migrating on. End
 * the pool before `ledgerPool` migrates the schema the rest of the way.
 */
export async function ledgerPoolBefore(
  schema: string,
  before: string,
  applicationName: string,
): Promise<Pool> {
  const dir = mkdtempSync(join(tmpdir(), `ledger-${before}-`));
  try {
    for (const f of readdirSync(LEDGER_MIGRATIONS).filter((f) => f < before))
      copyFileSync(join(LEDGER_MIGRATIONS, f), join(dir, f));
    return await migratedPool({ url: DATABASE_URL, schema, dir, max: 1, applicationName });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Undoes, on `schema`, the ledger's migration numbered `from` ('0006') and every one applied after it. */
export async function migrateLedgerDown(schema: string, from: string): Promise<void> {
  const pool = createPool({ url: DATABASE_URL, schema, max: 1, applicationName: 'ledger-down' });
  try {
    const { rows } = await pool.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM pgmigrations WHERE name >= $1',
      [from],
    );
    await migrateDown({ url: DATABASE_URL, schema, dir: LEDGER_MIGRATIONS, count: rows[0]!.n });
  } finally {
    await pool.end();
  }
}

/** Runs `use` with a pool of `ledgerPoolBefore(schema, before, …)`, and ends the pool after it. */
export async function withLedgerBefore<T>(
  schema: string,
  before: string,
  applicationName: string,
  use: (pool: Pool) => Promise<T>,
): Promise<T> {
  const pool = await ledgerPoolBefore(schema, before, applicationName);
  try {
    return await use(pool);
  } finally {
    await pool.end();
  }
}
