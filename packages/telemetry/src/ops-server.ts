import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

export interface OpsServerOptions {
  registry: Registry;
  /** Readiness: can this process take traffic now (dependencies reachable, not draining)? */
  ready: () => Promise<boolean> | boolean;
}

export interface OpsServer {
  port: number;
  close(): Promise<void>;
}

/**
 * The operations port of every service, kept apart from public traffic: `/metrics` (Prometheus text),
 * `/healthz` (liveness: the event loop answers) and `/readyz` (readiness).
 */
export async function startOpsServer(host: string, port: number, opts: OpsServerOptions): Promise<OpsServer> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const send = (status: number, type: string, body: string) => {
      res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
      res.end(body);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, 'text/plain', 'method not allowed\n');
    if (path === '/healthz') return send(200, 'application/json', '{"status":"ok"}\n');
    if (path === '/readyz') {
      Promise.resolve()
        .then(opts.ready)
        .then(
          (ok) => send(ok ? 200 : 503, 'application/json', `{"status":"${ok ? 'ready' : 'not_ready'}"}\n`),
          () => send(503, 'application/json', '{"status":"not_ready"}\n'),
        );
      return;
    }
    if (path === '/metrics') {
      opts.registry.metrics().then(
        (text) => send(200, opts.registry.contentType, text),
        () => send(500, 'text/plain', 'metrics unavailable\n'),
      );
      return;
    }
    send(404, 'text/plain', 'not found\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
