import type { Logger } from '@mdp/telemetry';
import { connectNats, type NatsConnection, publishJson } from './connection.ts';

export type DataService = 'equities' | 'filings' | 'options';

/**
 * A data service imported or regenerated data: caches of its documents (at the gateways) are stale.
 * Subject `data.changed.<service>` with service one of equities, filings, options.
 */
export const DATA_CHANGED = 'data.changed';

export function announceDataChanged(nc: NatsConnection, service: DataService): void {
  publishJson(nc, `${DATA_CHANGED}.${service}`, { service, at: new Date().toISOString() });
}

export interface DataChangeAnnouncer {
  /** Tells every gateway that this service's documents changed (best effort; their TTL is the backstop). */
  announce(): void;
  close(): Promise<void>;
}

/**
 * Announces `data.changed.<service>` when a data service starts serving new data. The connection is
 * made in the background: a data service neither waits for NATS to start nor fails without it. With a
 * `probe` (a cheap read of the data's version), it polls and announces each change by itself; without
 * one, the service calls `announce()` once its new data is being served.
 */
export function startDataChangeAnnouncer(opts: {
  url: string;
  service: DataService;
  logger: Logger;
  probe?: () => Promise<string | number>;
  intervalMs?: number;
}): DataChangeAnnouncer {
  let nc: NatsConnection | undefined;
  let closed = false;
  void connectNats({ url: opts.url, name: `${opts.service}-data-changes`, logger: opts.logger }).then(
    (c) => {
      if (closed) void c.close();
      else nc = c;
    },
    (err) => opts.logger.warn({ err: (err as Error).message }, 'data-change announcements unavailable'),
  );
  const announce = () => {
    if (nc && !nc.isClosed())
      publishJson(nc, `${DATA_CHANGED}.${opts.service}`, {
        service: opts.service,
        at: new Date().toISOString(),
      });
  };
  let last: string | number | undefined;
  const probe = opts.probe;
  const timer = probe
    ? setInterval(() => {
        probe().then(
          (version) => {
            if (last !== undefined && version !== last) {
              opts.logger.info({ version }, 'data changed; announcing');
              announce();
            }
            last = version;
          },
          () => {},
        );
      }, opts.intervalMs ?? 1_000)
    : undefined;
  return {
    announce,
    close: async () => {
      // A connection still being attempted closes itself when it arrives.
      closed = true;
      if (timer) clearInterval(timer);
      await nc?.drain().catch(() => {});
    },
  };
}
