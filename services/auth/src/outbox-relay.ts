import { listen, type Pool, withTransaction } from '@mdp/db';
import type { NatsConnection } from '@mdp/nats';
import type { Logger } from '@mdp/telemetry';

export interface OutboxRelay {
  /** Publishes whatever is pending now; resolves to how many events went out. */
  drain(): Promise<number>;
  stop(): Promise<void>;
}

const FLUSH_TIMEOUT_MS = 2_000;

/**
 * Moves committed events from the outbox to NATS: woken by NOTIFY, and polling as a safety net. An event
 * is marked published only after NATS has acknowledged the flush, so an outage delays events but loses
 * none; a crash between publish and mark repeats an event, which subscribers treat as idempotent.
 */
export function startOutboxRelay(opts: {
  pool: Pool;
  databaseUrl: string;
  schema: string;
  channel: string;
  nc: NatsConnection;
  logger: Logger;
  pollMs?: number;
}): OutboxRelay {
  const { pool, nc, logger } = opts;
  let running: Promise<number> | null = null;
  let stopped = false;

  const publishPending = (): Promise<number> =>
    withTransaction(pool, async (client) => {
      const { rows } = await client.query<{ id: string; subject: string; payload: unknown }>(
        `SELECT id, subject, payload FROM outbox WHERE published_at IS NULL
          ORDER BY id LIMIT 500 FOR UPDATE SKIP LOCKED`,
      );
      if (rows.length === 0) return 0;
      for (const row of rows) nc.publish(row.subject, Buffer.from(JSON.stringify(row.payload)));
      await Promise.race([
        nc.flush(),
        new Promise((_, reject) =>
          setTimeout(() => reject(new Error('NATS flush timed out')), FLUSH_TIMEOUT_MS),
        ),
      ]);
      await client.query('UPDATE outbox SET published_at = now() WHERE id = ANY($1::bigint[])', [
        rows.map((r) => r.id),
      ]);
      return rows.length;
    });

  const drain = (): Promise<number> => {
    // One pass at a time; a wake-up during a pass is served by the next one.
    running ??= publishPending().finally(() => {
      running = null;
    });
    return running;
  };

  const tick = () => {
    if (stopped) return;
    drain().catch((err) =>
      logger.warn({ err: (err as Error).message }, 'outbox relay: events not published yet'),
    );
  };

  // Woken at once on commit; reconnected with backoff after a database restart, and a pass on every
  // reconnection catches up on notifications sent while it was away (polling covers the gap too).
  const listener = listen({
    url: opts.databaseUrl,
    channel: opts.channel,
    applicationName: 'auth-outbox',
    logger,
    onNotify: tick,
    onConnected: tick,
  });
  const timer = setInterval(tick, opts.pollMs ?? 1_000);
  tick();

  return {
    drain,
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await running?.catch(() => {});
      await listener.close();
    },
  };
}
