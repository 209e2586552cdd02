import type { Logger } from '@mdp/telemetry';
import pg from 'pg';
import { RELOAD_CHANNEL } from './channel.ts';

/**
 * Calls `reload` when an import into `schema` commits (the CLI notifies RELOAD_CHANNEL with the schema
 * name), so a running service serves new data without a restart. Bursts of notifications (one per
 * import command) are coalesced; a lost connection is retried every few seconds.
 */
export function listenForReloads(opts: {
  databaseUrl: string;
  schema: string;
  logger: Logger;
  reload: () => Promise<void>;
  debounceMs?: number;
}): { close: () => Promise<void> } {
  let client: pg.Client | undefined;
  let timer: NodeJS.Timeout | undefined;
  let retry: NodeJS.Timeout | undefined;
  let closed = false;
  let running = Promise.resolve();
  const schedule = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      running = running
        .then(opts.reload)
        .catch((err: unknown) => opts.logger.error({ err }, 'dataset reload failed'));
    }, opts.debounceMs ?? 500);
  };
  const connect = () => {
    if (closed) return;
    const c = new pg.Client({ connectionString: opts.databaseUrl, application_name: 'equities-data-listen' });
    client = c;
    c.on('notification', (n) => {
      if (n.payload === opts.schema) schedule();
    });
    c.on('error', (err) => {
      opts.logger.warn({ err: err.message }, 'dataset reload: LISTEN connection lost; retrying');
      c.end().catch(() => {});
      retry = setTimeout(connect, 5_000);
    });
    c.connect()
      .then(() => c.query(`LISTEN ${RELOAD_CHANNEL}`))
      .catch((err: Error) => {
        opts.logger.warn({ err: err.message }, 'dataset reload: LISTEN unavailable; retrying');
        retry = setTimeout(connect, 5_000);
      });
  };
  connect();
  return {
    close: async () => {
      closed = true;
      clearTimeout(timer);
      clearTimeout(retry);
      await client?.end().catch(() => {});
      await running;
    },
  };
}
