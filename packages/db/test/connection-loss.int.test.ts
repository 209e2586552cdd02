import { randomBytes } from 'node:crypto';
import { createLogger } from '@mdp/telemetry';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { until } from '../../../test/until.ts';
import { createPool, dropSchema, listen } from '../src/index.ts';
import { DATABASE_URL, terminate } from './backend.ts';

// A server that drops a connection (restart, failover, idle kill) is simulated by terminating the
// connection's backend from another session: the same socket error a restart gives, without touching
// anyone else's connections.

const schema = `t${randomBytes(4).toString('hex')}_db`;
const logger = createLogger('db-test', 'silent');

afterAll(() => dropSchema(DATABASE_URL, schema));

describe('a dropped database connection is survived, not fatal', () => {
  it('a checked-out client whose connection drops: the query fails, the process lives, the pool recovers', async () => {
    const pool = createPool({ url: DATABASE_URL, schema, max: 2, applicationName: 'db-test', logger });
    const client = await pool.connect();
    const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    // The drop arrives as an 'error' event between queries: without a listener on every checked-out
    // client, it is the unhandled 'error' that used to end the process (and fails this test run).
    expect(client.listenerCount('error')).toBeGreaterThan(0);
    await terminate(rows[0]!.pid);
    await new Promise((r) => setTimeout(r, 200));
    await expect(client.query('SELECT 1')).rejects.toThrow();
    client.release(true);
    expect((await pool.query('SELECT 1 AS one')).rows[0].one).toBe(1);
    await pool.end();
  });

  it('LISTEN reconnects after its connection drops and hears notifications again', async () => {
    const channel = `${schema}_chan`;
    const heard: (string | undefined)[] = [];
    let connected = 0;
    const listener = listen({
      url: DATABASE_URL,
      channel,
      applicationName: `${schema}_listen`,
      logger,
      onNotify: (payload) => heard.push(payload),
      onConnected: () => connected++,
    });
    const notify = async (payload: string) => {
      const c = new pg.Client({ connectionString: DATABASE_URL });
      await c.connect();
      await c.query('SELECT pg_notify($1, $2)', [channel, payload]);
      await c.end();
    };
    try {
      await until('the first connection', () => connected === 1);
      await notify('before');
      await until('the notice before the loss', () => heard.includes('before'));
      const admin = new pg.Client({ connectionString: DATABASE_URL });
      await admin.connect();
      await admin.query(
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1',
        [`${schema}_listen`],
      );
      await admin.end();
      await until('the second connection', () => connected === 2);
      await notify('after');
      await until('the notice after the loss', () => heard.includes('after'));
    } finally {
      await listener.close();
    }
  });
});
