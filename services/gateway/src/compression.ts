import { constants } from 'node:zlib';
import compress from '@fastify/compress';
import type { FastifyInstance, onSendHookHandler } from 'fastify';

/** Answers smaller than this go as they are: a header or two would eat what compression saves. */
export const COMPRESSION_THRESHOLD = 1024;
/**
 * Chosen by measurement on the generated 2,000-day price page (155 KB of JSON; one core of this 2-core
 * machine, per answer): brotli 4 makes 34 KB in about 3 ms, gzip 4 36 KB in about 2.5 ms. Brotli's default
 * quality 11 makes 24 KB but takes about 200 ms; gzip's default 6 makes 34 KB in about 4.5 ms and brotli
 * 5 33 KB in about 4.5 ms: half as much CPU again for 5-7% fewer bytes. `make bench` prints the cost on
 * the running gateway.
 */
const BROTLI_QUALITY = 4;
const GZIP_LEVEL = 4;
/**
 * Answers up to this size are compressed in one call, with an exact Content-Length; larger ones (the API
 * reference's 3.5 MB script) as a stream, chunked. The plugin's default on 2 cores is 8 KB, which streamed
 * every price page: measured on the 2,000-day page, brotli 4 cost 9.4 ms of CPU a request as a stream
 * against 3.3 ms in one call (gzip 4.1 and 3.7 ms).
 */
const SYNC_THRESHOLD = 1024 * 1024;

/** JSON, HTML, CSS and JavaScript; never an event stream (each event must reach the client as sent). */
const COMPRESSIBLE = /^(?:application\/json|text\/html|text\/css|text\/javascript)(?:;|$)/;
const isCompressible = (contentType: unknown): boolean =>
  typeof contentType === 'string' && COMPRESSIBLE.test(contentType);

/**
 * The account site's pages are not compressed: they are cookie-authenticated and carry CSRF and one-time
 * API tokens beside text a request can put there, which is what a compression side channel (BREACH)
 * reads. Its static assets are compressed like everything else.
 */
const isAccountPage = (url: string) =>
  (url === '/account' || url.startsWith('/account/')) && !url.startsWith('/account/assets/');

/**
 * Compresses every answer of at least `COMPRESSION_THRESHOLD` bytes whose client asks (brotli or gzip, by
 * the client's q-values, brotli when equal), after the handler has sent it: a metered 200 has been charged
 * before it is compressed. Request bodies are never decompressed (an MCP or form body is read as sent).
 * Registered before any route: routes take their compression from the plugin as they are added.
 */
export async function registerCompression(app: FastifyInstance): Promise<void> {
  app.addHook('onRoute', (route) => {
    if (isAccountPage(route.url ?? '')) {
      route.compress = false;
      return;
    }
    // Runs before the plugin's own onSend (added after this hook, by its own onRoute).
    route.onSend = [...[route.onSend ?? []].flat(), varyByEncoding];
  });
  await app.register(compress, {
    encodings: ['br', 'gzip'],
    threshold: COMPRESSION_THRESHOLD,
    syncThreshold: SYNC_THRESHOLD,
    customTypes: isCompressible,
    brotliOptions: {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY,
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      },
    },
    zlibOptions: { level: GZIP_LEVEL },
    globalDecompression: false,
  });
}

/**
 * An answer that is compressed for a client that asks varies by Accept-Encoding even when it goes out
 * uncompressed, so a shared cache keeps one copy per encoding (the plugin marks only those it compresses).
 * Written in lower case, as the plugin looks for it, so the plugin does not add it twice.
 */
const varyByEncoding: onSendHookHandler = (_req, reply, payload, done) => {
  const size = typeof payload === 'string' || Buffer.isBuffer(payload) ? Buffer.byteLength(payload) : 0;
  if (size >= COMPRESSION_THRESHOLD && isCompressible(reply.getHeader('content-type'))) {
    const vary = reply.getHeader('vary');
    if (vary === undefined) reply.header('vary', 'accept-encoding');
    else if (!/accept-encoding/i.test(String(vary))) reply.header('vary', `${vary}, accept-encoding`);
  }
  done(null, payload);
};
