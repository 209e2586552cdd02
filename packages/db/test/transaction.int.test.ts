import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropSchema, migratedPool, type Pool, withTransaction } from '../src/index.ts';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@localhost:5432/mdp';
const schema = `tx_test_${randomBytes(4).toString('hex')}`;
let pool: Pool;

beforeAll(async () => {
  // One connection: a transaction that kept its client would leave the next caller waiting.
  pool = await migratedPool({ url: DATABASE_URL, schema, dir: null, max: 1, applicationName: 'tx-test' });
  await pool.query('CREATE TABLE notes (id int PRIMARY KEY)');
});

afterAll(async () => {
  await pool.end();
  await dropSchema(DATABASE_URL, schema);
});

const ids = async () =>
  (await pool.query<{ id: number }>('SELECT id FROM notes ORDER BY id')).rows.map((r) => r.id);
/** Every connection the pool opened is back in it. */
const allReleased = () => pool.totalCount === pool.idleCount && pool.waitingCount === 0;

describe('withTransaction', () => {
  it('commits what fn wrote and returns its result, then releases the connection', async () => {
    const result = await withTransaction(pool, async (client) => {
      await client.query('INSERT INTO notes VALUES (1), (2)');
      return 'written';
    });
    expect(result).toBe('written');
    expect(allReleased()).toBe(true);
    expect(await ids()).toEqual([1, 2]);
  });

  it('rolls back everything fn wrote when it throws, rethrows its error, and releases the connection', async () => {
    const failure = new Error('refused halfway');
    await expect(
      withTransaction(pool, async (client) => {
        await client.query('INSERT INTO notes VALUES (3)');
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(allReleased()).toBe(true);
    expect(await ids()).toEqual([1, 2]);
  });

  it('rolls back when a statement fails, leaving the connection usable', async () => {
    await expect(
      withTransaction(pool, async (client) => {
        await client.query('INSERT INTO notes VALUES (4)');
        await client.query('INSERT INTO notes VALUES (1)');
      }),
    ).rejects.toThrow(/duplicate key/);
    expect(allReleased()).toBe(true);
    expect(await ids()).toEqual([1, 2]);
  });

  it('begins at the isolation level asked for, else the server default', async () => {
    const level = (isolation?: 'repeatable read' | 'serializable') =>
      withTransaction(
        pool,
        async (client) =>
          (await client.query<{ l: string }>("SELECT current_setting('transaction_isolation') AS l")).rows[0]!
            .l,
        isolation ? { isolation } : {},
      );
    expect(await level('repeatable read')).toBe('repeatable read');
    expect(await level('serializable')).toBe('serializable');
    expect(await level()).toBe('read committed');
  });

  it('discards a connection whose rollback failed, so the next caller gets a working one', async () => {
    await expect(
      withTransaction(pool, async (client) => {
        await client.query('INSERT INTO notes VALUES (5)');
        await client.query('SELECT pg_terminate_backend(pg_backend_pid())');
      }),
    ).rejects.toThrow();
    expect(pool.totalCount).toBe(0);
    expect(await ids()).toEqual([1, 2]);
  });
});
