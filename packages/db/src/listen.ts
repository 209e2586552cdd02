import type { Logger } from '@mdp/telemetry';
import { keepSession } from './session.ts';

export interface Listener {
  close(): Promise<void>;
}

/**
 * LISTEN on one channel for as long as the process runs (a kept session: lost connections come back
 * with backoff). Notifications sent while the connection was down are lost, so `onConnected` runs after
 * every (re)connection for the caller to catch up on what it may have missed.
 */
export function listen(opts: {
  url: string;
  /** A channel name; validated, because LISTEN cannot take it as a parameter. */
  channel: string;
  applicationName: string;
  logger: Logger;
  onNotify: (payload: string | undefined) => void;
  onConnected?: () => void;
}): Listener {
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(opts.channel))
    throw new Error(`invalid channel "${opts.channel}"`);
  return keepSession({
    url: opts.url,
    applicationName: opts.applicationName,
    logger: opts.logger,
    what: `LISTEN ${opts.channel}`,
    onNotify: opts.onNotify,
    begin: async (client) => {
      await client.query(`LISTEN "${opts.channel}"`);
      opts.onConnected?.();
      return undefined;
    },
  });
}
