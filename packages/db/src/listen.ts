import type { Logger } from '@mdp/telemetry';
import { ExponentialBackoff, type IBackoff } from 'cockatiel';
import pg from 'pg';

export interface Listener {
  close(): Promise<void>;
}

/** Reconnects start fast (a restarted server is often back in a second) and settle at a few seconds. */
const reconnectBackoff = new ExponentialBackoff({ initialDelay: 200, maxDelay: 5_000 });

/**
 * LISTEN on one channel for as long as the process runs: a lost connection (the server restarted, the
 * network blinked) is re-established with backoff and jitter, never fatal. Notifications sent while the
 * connection was down are lost, so `onConnected` runs after every (re)connection for the caller to catch
 * up on what it may have missed.
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
  let client: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  let backoff: IBackoff<unknown> | undefined;
  let closed = false;

  const again = (c: pg.Client, why: string) => {
    if (closed || client !== c) return;
    client = undefined;
    c.end().catch(() => {});
    backoff = backoff ? backoff.next(undefined) : reconnectBackoff.next();
    opts.logger.warn(
      { channel: opts.channel, err: why, retryMs: Math.round(backoff.duration) },
      'LISTEN connection lost; reconnecting',
    );
    retry = setTimeout(connect, backoff.duration);
  };

  const connect = () => {
    if (closed) return;
    const c = new pg.Client({
      connectionString: opts.url,
      application_name: opts.applicationName,
      connectionTimeoutMillis: 3_000,
    });
    client = c;
    c.on('notification', (n) => opts.onNotify(n.payload));
    c.on('error', (err) => again(c, err.message));
    c.on('end', () => again(c, 'connection ended'));
    c.connect()
      .then(() => c.query(`LISTEN "${opts.channel}"`))
      .then(() => {
        if (backoff) opts.logger.info({ channel: opts.channel }, 'LISTEN connection restored');
        backoff = undefined;
        opts.onConnected?.();
      })
      .catch((err: Error) => again(c, err.message));
  };
  connect();

  return {
    close: async () => {
      closed = true;
      clearTimeout(retry);
      await client?.end().catch(() => {});
    },
  };
}
