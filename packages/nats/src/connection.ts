import { context, extractTraceContext, injectTraceContext, type Logger } from '@mdp/telemetry';
import {
  connect,
  JSONCodec,
  type Msg,
  type NatsConnection,
  headers as natsHeaders,
  type Subscription,
} from 'nats';

export type { NatsConnection, Subscription };

const json = JSONCodec();

/**
 * A connection that never gives up reconnecting: a NATS outage degrades what depends on it but must not
 * kill the process. Status changes are logged; `onDisconnect` lets a publisher refuse work at once instead
 * of waiting for timeouts, and `onReconnect` lets a subscriber resynchronise state it may have missed.
 */
export async function connectNats(opts: {
  url: string;
  name: string;
  logger: Logger;
  onDisconnect?: () => void;
  onReconnect?: () => void;
}): Promise<NatsConnection> {
  const nc = await connect({
    servers: opts.url,
    name: opts.name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 250,
    pingInterval: 5_000,
    // Keep trying until the server answers rather than failing start-up; readiness stays false meanwhile.
    waitOnFirstConnect: true,
    // Otherwise every request (each JetStream publish: one per charged 200) builds an Error to keep its
    // caller's stack: a tenth of the gateway's CPU under load, measured with --cpu-prof.
    noAsyncTraces: true,
  });
  (async () => {
    for await (const status of nc.status()) {
      if (status.type === 'reconnect') {
        opts.logger.info({ nats: status.type }, 'NATS reconnected');
        opts.onReconnect?.();
      } else if (status.type === 'disconnect') {
        opts.logger.warn({ nats: status.type }, 'NATS connection lost; reconnecting');
        opts.onDisconnect?.();
      } else if (status.type === 'error') {
        opts.logger.warn({ nats: status.type, data: status.data }, 'NATS connection problem');
      }
    }
  })().catch(() => {});
  return nc;
}

/** Publishes a JSON event carrying the current trace context in its headers. */
export function publishJson(nc: NatsConnection, subject: string, payload: unknown): void {
  const carrier: Record<string, string> = {};
  injectTraceContext(carrier);
  const h = natsHeaders();
  for (const [k, v] of Object.entries(carrier)) h.set(k, v);
  nc.publish(subject, json.encode(payload), { headers: h });
}

/** Subscribes to JSON events; the handler runs in the publisher's trace context. Bad payloads are skipped. */
export function subscribeJson<T>(
  nc: NatsConnection,
  subject: string,
  handler: (payload: T, msg: Msg) => void,
  logger: Logger,
): Subscription {
  return nc.subscribe(subject, {
    callback: (err, msg) => {
      if (err) return void logger.warn({ err, subject }, 'NATS subscription error');
      let payload: T;
      try {
        payload = json.decode(msg.data) as T;
      } catch {
        return void logger.warn({ subject: msg.subject }, 'skipped an event that is not JSON');
      }
      const carrier: Record<string, string> = {};
      for (const key of msg.headers?.keys() ?? []) carrier[key] = msg.headers?.get(key) ?? '';
      context.with(extractTraceContext(carrier), () => handler(payload, msg));
    },
  });
}
