import type pg from 'pg';

export type IsolationLevel = 'read committed' | 'repeatable read' | 'serializable';

/**
 * Runs `fn` in one transaction on one pooled connection: BEGIN (at `isolation` when given), then COMMIT
 * when `fn` resolves or ROLLBACK when it throws, rethrowing `fn`'s error. The connection goes back to
 * the pool either way, except one whose ROLLBACK failed: its state is unknown, so it is discarded rather
 * than handed to the next caller.
 */
export async function withTransaction<T>(
  pool: pg.Pool,
  fn: (client: pg.PoolClient) => Promise<T>,
  opts: { isolation?: IsolationLevel } = {},
): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query(opts.isolation ? `BEGIN ISOLATION LEVEL ${opts.isolation.toUpperCase()}` : 'BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch((rollbackError: Error) => {
      broken = rollbackError;
    });
    throw err;
  } finally {
    client.release(broken);
  }
}
