import { migratedPool, type Pool } from '@mdp/db';

export const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@localhost:5432/mdp';
export const LEDGER_MIGRATIONS = new URL('../migrations/', import.meta.url).pathname;

/** A pool on `schema` with the ledger's migrations applied (the schema is created when missing). */
export function ledgerPool(schema: string, applicationName: string, max = 2): Promise<Pool> {
  return migratedPool({ url: DATABASE_URL, schema, dir: LEDGER_MIGRATIONS, max, applicationName });
}
