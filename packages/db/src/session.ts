import type { Logger } from '@mdp/telemetry';
import { ExponentialBackoff, type IBackoff } from 'cockatiel';
import pg from 'pg';

/** Reconnects start fast (a restarted server is often back in a second) and settle at a few seconds. */
const reconnectBackoff = new ExponentialBackoff({ initialDelay: 200, maxDelay: 5_000 });

/**
 * Server settings of a kept session: the server notices a peer that vanished (its machine died, the
 * network split) within about 25 s instead of the system's two hours, so what the session holds (a
 * session lock) is not held for a process that is gone.
 */
const KEEPALIVES = '-c tcp_keepalives_idle=10 -c tcp_keepalives_interval=5 -c tcp_keepalives_count=3';

export interface KeptSession {
  close(): Promise<void>;
}

/**
 * One connection kept for as long as the process runs: a lost connection (the server restarted, the
 * network blinked) is opened again with backoff and jitter, never fatal. `begin` runs on every new
 * connection (LISTEN, take a lock); what it set up is gone with the connection, so it must set it up
 * again. `begin` may ask for another try later (`{ retryMs }`) on the same connection; an error it throws
 * drops the connection and reconnects.
 */
export function keepSession(opts: {
  url: string;
  applicationName: string;
  logger: Logger;
  /** For the log lines: what the session is for. */
  what: string;
  begin: (client: pg.Client, reconnected: boolean) => Promise<{ retryMs: number } | undefined>;
  onNotify?: (payload: string | undefined) => void;
  /** The connection was lost (what `begin` set up is gone until it runs again). */
  onLost?: () => void;
}): KeptSession {
  let client: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  let backoff: IBackoff<unknown> | undefined;
  let closed = false;
  let everConnected = false;

  const again = (c: pg.Client, why: string) => {
    if (closed || client !== c) return;
    client = undefined;
    c.end().catch(() => {});
    opts.onLost?.();
    backoff = backoff ? backoff.next(undefined) : reconnectBackoff.next();
    opts.logger.warn(
      { session: opts.what, err: why, retryMs: Math.round(backoff.duration) },
      'database session lost; reconnecting',
    );
    retry = setTimeout(connect, backoff.duration);
  };

  const begin = (c: pg.Client) => {
    if (closed || client !== c) return;
    opts
      .begin(c, everConnected)
      .then((later) => {
        everConnected = true;
        if (later && !closed && client === c) retry = setTimeout(() => begin(c), later.retryMs);
      })
      .catch((err: Error) => again(c, err.message));
  };

  const connect = () => {
    if (closed) return;
    const c = new pg.Client({
      connectionString: opts.url,
      application_name: opts.applicationName,
      connectionTimeoutMillis: 3_000,
      options: KEEPALIVES,
    });
    client = c;
    if (opts.onNotify) c.on('notification', (n) => opts.onNotify?.(n.payload));
    c.on('error', (err) => again(c, err.message));
    c.on('end', () => again(c, 'connection ended'));
    c.connect()
      .then(() => {
        if (backoff) opts.logger.info({ session: opts.what }, 'database session restored');
        backoff = undefined;
        begin(c);
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
