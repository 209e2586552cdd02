import { listen } from '@mdp/db';
import type { Logger } from '@mdp/telemetry';
import { ExponentialBackoff, type IBackoff } from 'cockatiel';
import { RELOAD_CHANNEL } from './dataset-change.ts';

/** A failed reload (the database away, a statement timing out) is retried until one succeeds. */
const retryBackoff = new ExponentialBackoff({ initialDelay: 500, maxDelay: 30_000 });

/**
 * Calls `reload` when an import into `schema` commits (the CLI notifies RELOAD_CHANNEL with the schema
 * name), so a running service serves new data without a restart. Bursts of notifications (one per
 * import command) are coalesced; a failed reload is retried with backoff; a lost connection is
 * re-established with backoff, and after every connection `isCurrent` decides whether anything may have
 * been missed.
 */
export function listenForReloads(opts: {
  databaseUrl: string;
  schema: string;
  logger: Logger;
  reload: () => Promise<void>;
  /**
   * After each connection, the first included: whether the data served is still the schema's latest
   * (then no reload is needed). Without it, or when it fails, every connection reloads.
   */
  isCurrent?: () => Promise<boolean>;
  debounceMs?: number;
  applicationName?: string;
}): { close: () => Promise<void> } {
  let timer: NodeJS.Timeout | undefined;
  let running = Promise.resolve();
  let backoff: IBackoff<unknown> | undefined;
  let closed = false;
  // At most one timer is pending: a notification replaces a retry's wait with the debounce (the reload
  // it leads to is the retry), and a failed reload does not delay one a notification has already asked for.
  const schedule = (delayMs = opts.debounceMs ?? 500) => {
    if (closed) return;
    clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      running = running.then(async () => {
        if (closed) return;
        try {
          await opts.reload();
          backoff = undefined;
        } catch (err) {
          backoff = backoff ? backoff.next(undefined) : retryBackoff.next();
          const retryMs = Math.round(backoff.duration);
          opts.logger.error({ err, retryMs }, 'dataset reload failed');
          if (timer === undefined) schedule(retryMs);
        }
      });
    }, delayMs);
  };
  const listener = listen({
    url: opts.databaseUrl,
    channel: RELOAD_CHANNEL,
    applicationName: opts.applicationName ?? 'equities-data-listen',
    logger: opts.logger,
    onNotify: (schema) => {
      if (schema === opts.schema) schedule();
    },
    // An import may have committed while nobody listened (its notification is lost): before the first
    // connection, between the service's first load and the LISTEN; or while a connection was down. So
    // every connection reloads unless the schema's dataset version is still the one being served.
    // (Every replica reloading the whole dataset from a database that has just come back was the
    // alternative.)
    onConnected: () => {
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
      closed = true;
      clearTimeout(timer);
      await listener.close();
      await running;
    },
  };
}
