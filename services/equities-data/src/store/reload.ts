import { listen } from '@mdp/db';
import type { Logger } from '@mdp/telemetry';
import { RELOAD_CHANNEL } from './dataset-change.ts';

/**
 * Calls `reload` when an import into `schema` commits (the CLI notifies RELOAD_CHANNEL with the schema
 * name), so a running service serves new data without a restart. Bursts of notifications (one per
 * import command) are coalesced; a lost connection is re-established with backoff, and then `isCurrent`
 * decides whether anything may have been missed.
 */
export function listenForReloads(opts: {
  databaseUrl: string;
  schema: string;
  logger: Logger;
  reload: () => Promise<void>;
  /**
   * After a reconnection: whether the data served is still the schema's latest (then no reload is
   * needed). Without it, or when it fails, every reconnection reloads.
   */
  isCurrent?: () => Promise<boolean>;
  debounceMs?: number;
  applicationName?: string;
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
    applicationName: opts.applicationName ?? 'equities-data-listen',
    logger: opts.logger,
    onNotify: (schema) => {
      if (schema === opts.schema) schedule();
    },
    // An import may have committed while the connection was down (its notification is lost): reload
    // after a reconnection unless the schema's dataset version is still the one being served. (Every
    // replica reloading the whole dataset from a database that has just come back was the alternative.)
    onConnected: () => {
      if (connections++ === 0) return;
      const check = opts.isCurrent ?? (async () => false);
      check().then(
        (current) => {
          if (!current) schedule();
        },
        () => schedule(),
      );
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
