import { createHash } from 'node:crypto';
import type { Logger } from '@mdp/telemetry';
import type pg from 'pg';
import { assertSchemaName } from './schema-name.ts';
import { keepSession } from './session.ts';

export interface SessionLock {
  /** Resolves once the lock is held; rejects, naming the holder, when it is not within `waitMs`. */
  acquired: Promise<void>;
  /** Whether the lock is held now (false while the session is being restored). */
  held(): boolean;
  close(): Promise<void>;
}

/** The two 32-bit halves of a lock's 64-bit key, as pg_locks shows them (classid, objid). */
function lockKey(schema: string, name: string): { key: string; classid: number; objid: number } {
  const digest = createHash('sha256').update(`lock:${schema}:${name}`).digest();
  return {
    key: digest.readBigInt64BE(0).toString(),
    classid: digest.readUInt32BE(0),
    objid: digest.readUInt32BE(4),
  };
}

/** Who holds a lock: its session's application name and address, or null when nobody does now. */
async function holderOf(client: pg.Client, classid: number, objid: number): Promise<string | null> {
  const { rows } = await client.query<{ application_name: string; client_addr: string | null; pid: number }>(
    `SELECT a.application_name, host(a.client_addr) AS client_addr, a.pid
       FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
      WHERE l.locktype = 'advisory' AND l.granted AND l.classid = $1::oid AND l.objid = $2::oid AND l.objsubid = 1`,
    [classid, objid],
  );
  const r = rows[0];
  return r
    ? `${r.application_name || 'a session'} (pid ${r.pid} from ${r.client_addr ?? 'a local socket'})`
    : null;
}

/**
 * A Postgres session advisory lock named `name` within `schema`, held for the life of the process so that
 * at most one process does what it guards (one writer per ledger shard). The lock goes with its session:
 * a process that dies (even by SIGKILL) frees it at once, and one whose machine vanished within about
 * 25 s (server keepalives). A lost session (a Postgres restart) is restored and the lock taken again; if
 * another process took it meanwhile, `onLostTo` is told who holds it and this process must stop.
 */
export function holdSessionLock(opts: {
  url: string;
  schema: string;
  name: string;
  applicationName: string;
  logger: Logger;
  /** How long to wait for a lock another process holds before giving up (`acquired` rejects). */
  waitMs: number;
  onLostTo: (holder: string) => void;
  clock?: () => number;
}): SessionLock {
  const clock = opts.clock ?? Date.now;
  const { key, classid, objid } = lockKey(assertSchemaName(opts.schema), opts.name);
  const since = clock();
  let held = false;
  let everHeld = false;
  let settle: { resolve: () => void; reject: (err: Error) => void } | undefined;
  const acquired = new Promise<void>((resolve, reject) => {
    settle = { resolve, reject };
  });
  // Nobody need await it when the lock comes at once; a rejection is still seen by those who do.
  acquired.catch(() => {});
  let lastWarned = 0;

  const session = keepSession({
    url: opts.url,
    applicationName: opts.applicationName,
    logger: opts.logger,
    what: `lock ${opts.name}`,
    onLost: () => {
      held = false;
    },
    begin: async (client) => {
      const { rows } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1::bigint) AS ok', [
        key,
      ]);
      if (rows[0]?.ok) {
        held = true;
        if (everHeld)
          opts.logger.info({ lock: opts.name }, 'lock taken again after the session was restored');
        everHeld = true;
        settle?.resolve();
        return undefined;
      }
      const holder = (await holderOf(client, classid, objid)) ?? 'a session that has just let it go';
      if (everHeld) {
        opts.onLostTo(holder);
        return undefined;
      }
      const waited = clock() - since;
      if (waited >= opts.waitMs) {
        settle?.reject(new Error(`${opts.name} is held by ${holder}`));
        void session.close();
        return undefined;
      }
      if (clock() - lastWarned >= 10_000) {
        lastWarned = clock();
        opts.logger.error(
          { lock: opts.name, holder, waitedS: Math.round(waited / 1000) },
          'lock held by another process; waiting',
        );
      }
      return { retryMs: 1_000 };
    },
  });
  return {
    acquired,
    held: () => held,
    close: () => session.close(),
  };
}
