import type { PoolClient } from 'pg';

/** Channel a committed import or load notifies (payload: the schema), so a running service reloads. */
export const RELOAD_CHANNEL = 'equities_dataset_changed';

/**
 * Marks the schema's data as changed, inside the transaction that changed it: moves `dataset_version`
 * on and notifies RELOAD_CHANNEL (Postgres delivers the notification at commit, and drops both on
 * rollback).
 */
export async function announceDatasetChange(client: PoolClient): Promise<void> {
  await client.query('UPDATE dataset_version SET version = version + 1');
  await client.query('SELECT pg_notify($1, current_schema())', [RELOAD_CHANNEL]);
}

/** The schema's dataset version (a decimal string: bigint). */
export async function readDatasetVersion(db: { query: PoolClient['query'] }): Promise<string> {
  const { rows } = await db.query<{ version: string }>(
    'SELECT version::text AS version FROM dataset_version',
  );
  return rows[0]!.version;
}
