import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { FastifyInstance } from 'fastify';
import { ASSETS } from './assets.ts';
import { html } from './html.ts';

/**
 * `/docs`: the interactive API reference, rendered in the browser by Scalar from `/v1/openapi.json`.
 * Everything is served from here (no CDN, no web fonts, no Scalar proxy or telemetry), so it works on a
 * network that reaches only the platform; "Test request" sends the bearer token straight to the API.
 */
const SCALAR_CONFIG = {
  url: '/v1/openapi.json',
  withDefaultFonts: false,
  telemetry: false,
  hideClientButton: true,
  showDeveloperTools: 'never',
  persistAuth: false,
  authentication: { preferredSecurityScheme: 'bearerAuth' },
  // The "Ask AI" agent talks to Scalar's servers.
  agent: { disabled: true },
};

// "Test request" goes to the platform that served this page, whatever the document's default server.
const INIT_JS = `Scalar.createApiReference('#reference', Object.assign(${JSON.stringify(SCALAR_CONFIG)}, { servers: [{ url: location.origin, description: 'This platform' }] }));\n`;

const hashOf = (body: string | Buffer) => createHash('sha256').update(body).digest('hex').slice(0, 10);

/** Scripts need only our origin; Scalar styles itself inline and draws icons as data URIs. */
const DOCS_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/**
 * Scalar puts a heading's link button just past its last word, hidden until hovered; on a phone it
 * reached 3 px past the screen and the page panned. Nothing of the reference is read beyond its box.
 */
const DOCS_STYLE = '#reference { overflow-x: clip; }';

/** The metrics' route names of the reference's page and its scripts. */
const DOCS_ROUTES = { page: 'docs', asset: 'docs_asset' } as const;

/** What the account pages send besides their policy (plugin.ts): no sniffing, no referrer elsewhere. */
const SECURITY_HEADERS = { 'x-content-type-options': 'nosniff', 'referrer-policy': 'same-origin' };

export function registerDocs(app: FastifyInstance): void {
  // Read on first use: 3.5 MB that most gateway processes never serve.
  let bundle: { path: string; body: Buffer } | undefined;
  const scalar = () => {
    if (!bundle) {
      const file = createRequire(import.meta.url).resolve('@scalar/api-reference/browser/standalone.js');
      const body = readFileSync(file);
      bundle = { path: `/docs/assets/scalar.${hashOf(body)}.js`, body };
    }
    return bundle;
  };
  const initPath = `/docs/assets/init.${hashOf(INIT_JS)}.js`;
  const immutable = 'public, max-age=31536000, immutable';

  // HEAD answers as GET does, without the body.
  const route = (operationId: string) => ({ config: { operationId }, exposeHeadRoute: true });

  app.get('/docs', route(DOCS_ROUTES.page), async (_req, reply) =>
    reply
      .headers(SECURITY_HEADERS)
      .header('content-security-policy', DOCS_CSP)
      .header('cache-control', 'no-cache')
      .type('text/html; charset=utf-8')
      .send(
        html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>API reference · Market data API</title>
<link rel="icon" href="${ASSETS.favicon.path}" type="image/svg+xml">
<style>${DOCS_STYLE}</style>
</head>
<body>
<noscript><p>The interactive reference needs JavaScript. The same contract is at <a href="/v1/openapi.json">/v1/openapi.json</a>.</p></noscript>
<div id="reference"></div>
<script src="${scalar().path}"></script>
<script src="${initPath}"></script>
</body>
</html>`.value,
      ),
  );
  app.get('/docs/assets/:file', route(DOCS_ROUTES.asset), async (req, reply) => {
    const path = req.url.split('?')[0];
    const body = path === initPath ? INIT_JS : path === scalar().path ? scalar().body : undefined;
    if (body === undefined) return reply.callNotFound();
    return reply
      .headers(SECURITY_HEADERS)
      .header('cache-control', immutable)
      .type('text/javascript; charset=utf-8')
      .send(body);
  });
}
