import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '@mdp/telemetry';
import { type LinkSigner, parseFilePath } from './links.ts';
import type { FilingsStore } from './store.ts';

function sendError(res: ServerResponse, status: number, code: string, message: string): void {
  const body = JSON.stringify({ error: { code, message } });
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  res.end(body);
}

/**
 * Public links to a document's PDF, full Markdown and summary. No bearer token: the signature in the URL is
 * the permission, and it expires. Served by the service that holds the documents, outside /v1 and outside
 * metering (these are not gateway routes).
 */
export function createFilesServer(deps: {
  store: FilingsStore;
  signer: LinkSigner;
  logger?: Logger;
}): Server {
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('allow', 'GET, HEAD');
      return sendError(res, 405, 'method_not_allowed', 'only GET and HEAD');
    }
    const url = new URL(req.url ?? '/', 'http://files.local');
    const target = parseFilePath(url.pathname);
    if (!target) return sendError(res, 404, 'route_not_found', 'no such path');
    const verdict = deps.signer.verify(
      url.pathname,
      url.searchParams.get('exp'),
      url.searchParams.get('sig'),
    );
    if (verdict === 'expired')
      return sendError(res, 403, 'link_expired', 'this link has expired; ask the API for a fresh one');
    if (verdict !== 'ok') return sendError(res, 403, 'invalid_signature', 'the link signature is not valid');
    const maxAge = deps.signer.secondsLeft(Number(url.searchParams.get('exp')));
    const headers = { 'cache-control': `private, max-age=${maxAge}`, 'x-content-type-options': 'nosniff' };
    let body: Buffer | undefined;
    let type: string;
    if (target.kind === 'pdf') {
      body = await deps.store.pdf(target.docId);
      type = 'application/pdf';
    } else if (target.kind === 'md') {
      const md = await deps.store.markdown(target.docId);
      body = md === undefined ? undefined : Buffer.from(md, 'utf8');
      type = 'text/markdown; charset=utf-8';
    } else {
      const meta = await deps.store.meta(target.docId);
      const digest = meta && (await deps.store.digest(target.docId));
      body = meta && digest ? Buffer.from(JSON.stringify({ ...meta, ...digest })) : undefined;
      type = 'application/json; charset=utf-8';
    }
    if (!body) return sendError(res, 404, 'not_found', 'no such document file');
    res.writeHead(200, { ...headers, 'content-type': type, 'content-length': body.length });
    res.end(req.method === 'HEAD' ? undefined : body);
  };
  return createServer((req, res) => {
    handle(req, res).catch((err) => {
      deps.logger?.error({ err }, 'files server failure');
      if (!res.headersSent) sendError(res, 500, 'internal_error', 'unexpected failure');
      else res.destroy();
    });
  });
}

export async function listen(server: Server, host: string, port: number): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return (server.address() as AddressInfo).port;
}

export function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
