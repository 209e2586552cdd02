import { listen } from '@mdp/db';
import type { Logger } from '@mdp/telemetry';
import { RELOAD_CHANNEL } from './channel.ts';

/**
 * Calls `reload` when an import into `schema` commits (the CLI notifies RELOAD_CHANNEL with the schema
 * name), so a running service serves new data without a restart. Bursts of notifications (one per
 * import command) are coalesced; a lost connection is re-established with backoff.
 */
export function listenForReloads(opts: {
  databaseUrl: string;
  schema: string;
  logger: Logger;
  reload: () => Promise<void>;
  debounceMs?: number;
}): { close: () => Promise<void> } {
  let timer: NodeJS.Timeout | undefined;
  let running = Promise.resolve();
  let connections = 0;
  const schedule = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      running = running
        .then(opts.reload)
        .catch((err: unknown) => opts.logger.error({ err }, 'dataset reload failed'));
    }, opts.debounceMs ?? 500);
  };
  const listener = listen({
    url: opts.databaseUrl,
    channel: RELOAD_CHANNEL,
    applicationName: 'equities-data-listen',
    logger: opts.logger,
    onNotify: (schema) => {
      if (schema === opts.schema) schedule();
    },
    // An import may have committed while the connection was down: reload after every reconnection.
    onConnected: () => {
      if (connections++ > 0) schedule();
    },
  });
  return {
    close: async () => {
      clearTimeout(timer);
      await listener.close();
      await running;
    },
  };
}
