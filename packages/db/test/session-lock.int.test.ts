import { randomBytes } from 'node:crypto';
import { createLogger } from '@mdp/telemetry';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { until } from '../../../test/until.ts';
import { holdSessionLock, type SessionLock } from '../src/index.ts';
import { DATABASE_URL, terminate } from './backend.ts';

// One writer per ledger shard rests on this lock: a second claimant is refused and told who holds it; a
// holder that dies frees it at once; a holder whose session drops takes it again, or learns it lost it.

const logger = createLogger('db-test', 'silent');
const opened: SessionLock[] = [];

afterEach(async () => {
  await Promise.all(opened.splice(0).map((l) => l.close()));
});

/** A lock on a schema name of its own, so parallel test files never share one. */
function lockOf(
  schema: string,
  app: string,
  extra: { waitMs?: number; onLostTo?: (h: string) => void } = {},
) {
  const lock = holdSessionLock({
    url: DATABASE_URL,
    schema,
    name: 'shard 1',
    applicationName: app,
    logger,
    waitMs: extra.waitMs ?? 1_500,
    onLostTo: extra.onLostTo ?? (() => {}),
  });
  opened.push(lock);
  return lock;
}

/** The backend pid of the session of `app` holding an advisory lock. */
async function holderPid(app: string): Promise<number> {
  const admin = new pg.Client({ connectionString: DATABASE_URL });
  await admin.connect();
  try {
    const { rows } = await admin.query<{ pid: number }>(
      `SELECT a.pid FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
        WHERE l.locktype = 'advisory' AND l.granted AND a.application_name = $1`,
      [app],
    );
    if (!rows[0]) throw new Error(`${app} holds no lock`);
    return rows[0].pid;
  } finally {
    await admin.end();
  }
}

const schemaName = () => `t${randomBytes(4).toString('hex')}_lock`;

describe('a session lock', () => {
  it('is held by one process: a second claimant waits, then is refused with the holder named', async () => {
    const schema = schemaName();
    const first = lockOf(schema, 'first-holder');
    await first.acquired;
    expect(first.held()).toBe(true);
    const second = lockOf(schema, 'second-claimant', { waitMs: 1_500 });
    await expect(second.acquired).rejects.toThrow(/shard 1 is held by first-holder \(pid \d+/);
    expect(second.held()).toBe(false);
    // The same name in another schema is another lock.
    const elsewhere = lockOf(schemaName(), 'elsewhere');
    await elsewhere.acquired;
  });

  it('is free as soon as its holder is gone: a waiting claimant then holds it', async () => {
    const schema = schemaName();
    const first = lockOf(schema, 'going-holder');
    await first.acquired;
    const second = lockOf(schema, 'waiting-claimant', { waitMs: 10_000 });
    await new Promise((r) => setTimeout(r, 300));
    expect(second.held()).toBe(false);
    await first.close();
    await second.acquired;
    expect(second.held()).toBe(true);
  });

  it('is taken again when its session drops, or reported lost when another took it meanwhile', async () => {
    const schema = schemaName();
    const lost: string[] = [];
    const holder = lockOf(schema, 'dropped-holder', { onLostTo: (h) => lost.push(h) });
    await holder.acquired;
    await terminate(await holderPid('dropped-holder'));
    await until('the lock lost', () => !holder.held(), 10_000, 20);
    await until('the lock held again', () => holder.held());
    expect(lost).toEqual([]);
    // Dropped again, and this time a rival takes it the moment the session ends (the holder's restored
    // session comes back after about 200 ms): the holder is told who has it, and stops holding.
    const rival = new pg.Client({ connectionString: DATABASE_URL, application_name: 'rival' });
    await rival.connect();
    try {
      const { rows } = await rival.query<{ key: string }>(
        `SELECT pg_terminate_backend(l.pid), ((l.classid::bigint << 32) | l.objid::bigint)::text AS key
           FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
          WHERE l.locktype = 'advisory' AND l.granted AND a.application_name = 'dropped-holder'`,
      );
      await rival.query('SELECT pg_advisory_lock($1::bigint)', [rows[0]!.key]);
      await until('the loss reported', () => lost.length > 0);
      expect(lost[0]).toMatch(/^rival \(pid \d+/);
      expect(holder.held()).toBe(false);
    } finally {
      await rival.end();
    }
  });
});
