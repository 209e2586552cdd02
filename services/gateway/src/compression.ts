import {
  brotliCompressSync,
  constants,
  createBrotliCompress,
  createGzip,
  gzipSync,
  type ZlibOptions,
} from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** Answers smaller than this go as they are: a header or two would eat what compression saves. */
export const COMPRESSION_THRESHOLD = 1024;
/**
 * Chosen by measurement on the generated 2,000-day price page (155 KB of JSON; one core of this 2-core
 * machine, per answer): brotli 4 makes 34 KB in about 3 ms, gzip 4 36 KB in about 2.5 ms. Brotli's default
 * quality 11 makes 24 KB but takes about 200 ms; gzip's default 6 makes 34 KB in about 4.5 ms and brotli
 * 5 33 KB in about 4.5 ms: half as much CPU again for 5-7% fewer bytes. `make bench` prints the cost on
 * the running gateway.
 */
const BROTLI_OPTIONS = {
  params: {
    [constants.BROTLI_PARAM_QUALITY]: 4,
    [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
  },
};
const GZIP_OPTIONS: ZlibOptions = { level: 4 };
/**
 * Answers up to this size are compressed in one call, with an exact Content-Length; larger ones (the API
 * reference's 3.5 MB script) as a stream, chunked. Streaming every answer over 8 KB (@fastify/compress's
 * default on 2 cores) cost brotli 4 9.4 ms of CPU a 2,000-day price page against 3.3 ms in one call (gzip
 * 4.1 and 3.7 ms).
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

/** Whether a route's answers may be compressed (decided once, as the route is added). */
export const compressesRoute = (routeUrl: string): boolean => !isAccountPage(routeUrl);

type Encoding = 'br' | 'gzip';
/** The codings offered, most preferred first: brotli when a client weighs both the same. */
const OFFERED: readonly Encoding[] = ['br', 'gzip'];

/**
 * The coding to answer `Accept-Encoding` with, as @fastify/compress chose it (through
 * @fastify/accept-negotiator, whose reading this follows step for step): `*` and `x-gzip` read as gzip,
 * the highest q-value wins, brotli on a tie, `q=0` refuses; null when the client takes neither.
 */
export function negotiateEncoding(header: string): Encoding | null {
  const offer = header.toLowerCase().replace(/\*|x-gzip/g, 'gzip');
  let chosen: Encoding | null = null;
  let chosenPriority = Number.POSITIVE_INFINITY;
  let chosenQuality = 0;
  /** True once nothing can beat the choice (brotli at q=1). */
  const consider = (coding: string, quality: number): boolean => {
    if (quality === 0 || chosenQuality > quality) return false;
    const priority = OFFERED.indexOf(coding as Encoding);
    if (priority === -1) return false;
    if (priority === 0 && quality === 1) {
      chosen = OFFERED[0]!;
      return true;
    }
    if (chosenQuality < quality || chosenPriority > priority) {
      chosen = OFFERED[priority]!;
      chosenPriority = priority;
      chosenQuality = quality;
    }
    return false;
  };
  const BEGIN = 0;
  const CODING = 1;
  const QUALITY = 2;
  let state = BEGIN;
  let coding = '';
  let quality = '';
  for (let i = 0; i < offer.length; i++) {
    const c = offer[i]!;
    if (c === ' ' || c === '\t') continue;
    if (c === ';') {
      if (state === CODING) {
        state = QUALITY;
        quality = '';
      }
      continue;
    }
    if (c === ',') {
      if (state === CODING || state === QUALITY) {
        if (consider(coding, state === CODING ? 1 : Number.parseFloat(quality) || 0)) return chosen;
        state = BEGIN;
        coding = '';
        quality = '';
      }
      continue;
    }
    if (state === QUALITY) {
      if (c === 'q' || c === '=') continue;
      if (c === '.' || (c >= '0' && c <= '9')) {
        quality += c;
        continue;
      }
    } else if (state === BEGIN) {
      state = CODING;
      coding += c;
      continue;
    }
    if (state === CODING) {
      const before = offer[i - 1];
      if (before === ' ' || before === '\t') coding = '';
      coding += c;
      continue;
    }
    // Any other character in a q-value ends the entry; it begins what comes next.
    if (consider(coding, Number.parseFloat(quality) || 0)) return chosen;
    state = BEGIN;
    coding = c;
    quality = '';
  }
  if (state === CODING) consider(coding, 1);
  else if (state === QUALITY) consider(coding, Number.parseFloat(quality) || 0);
  return chosen;
}

/** A client sends one of a few `Accept-Encoding` values: each is read once (bounded, in case of many). */
const negotiated = new Map<string, Encoding | null>();
function encodingFor(header: string): Encoding | null {
  let encoding = negotiated.get(header);
  if (encoding === undefined) {
    encoding = negotiateEncoding(header);
    if (negotiated.size >= 256) negotiated.clear();
    negotiated.set(header, encoding);
  }
  return encoding;
}

/** Answers sent as the same bytes every time (`constantAnswer`), with each coding of them once made. */
const constantCodings = new WeakMap<Buffer, Partial<Record<Encoding, Buffer>>>();

/**
 * Marks `bytes` as an answer sent unchanged for the life of the process (the OpenAPI document): each
 * coding of it is made on its first use and kept, not compressed again for every request. The bytes
 * must never change.
 */
export function constantAnswer(bytes: Buffer): Buffer {
  constantCodings.set(bytes, {});
  return bytes;
}

/** `Vary: Accept-Encoding` added once, in lower case, to whatever the answer varies by already. */
function varyByEncoding(reply: FastifyReply): void {
  const vary = reply.getHeader('vary');
  if (vary === undefined) reply.header('vary', 'accept-encoding');
  else if (!/accept-encoding/i.test(String(vary))) reply.header('vary', `${vary}, accept-encoding`);
}

/**
 * An answer of a route whose answers compress (`compressesRoute`), as it goes out, after the handler has
 * sent it (a metered 200 has been charged before it is compressed): compressed with brotli or gzip when
 * it is JSON, HTML, CSS or JavaScript of at least `COMPRESSION_THRESHOLD` bytes and the client asks
 * (`Accept-Encoding`, by its q-values; not with `X-No-Compression`). Any such answer varies by
 * Accept-Encoding, compressed or not, so a shared cache keeps one copy per coding. Everything else is
 * returned as it came, after one look at its size: the test is ordered so that the common answer (small,
 * or to a client that asks for nothing) costs no header reads. Request bodies are never decompressed
 * (an MCP or form body is read as sent). Throws what compressing threw.
 */
export function compressAnswer(req: FastifyRequest, reply: FastifyReply, payload: unknown): unknown {
  let size: number;
  if (typeof payload === 'string') size = Buffer.byteLength(payload);
  else if (Buffer.isBuffer(payload)) size = payload.length;
  else return payload;
  if (size < COMPRESSION_THRESHOLD || !isCompressible(reply.getHeader('content-type'))) return payload;
  varyByEncoding(reply);
  const accepted = req.headers['accept-encoding'];
  if (accepted === undefined || req.headers['x-no-compression'] !== undefined) return payload;
  if (reply.statusCode === 206 || reply.getHeader('content-range') !== undefined) return payload;
  const given = reply.getHeader('content-encoding');
  if (given !== undefined && given !== 'identity') return payload;
  const encoding = encodingFor(accepted);
  if (encoding === null) return payload;
  const bytes = typeof payload === 'string' ? Buffer.from(payload) : payload;
  reply.header('content-encoding', encoding);
  if (size <= SYNC_THRESHOLD) {
    const codings = constantCodings.get(bytes);
    let compressed = codings?.[encoding];
    if (compressed === undefined) {
      compressed =
        encoding === 'br' ? brotliCompressSync(bytes, BROTLI_OPTIONS) : gzipSync(bytes, GZIP_OPTIONS);
      if (codings) codings[encoding] = compressed;
    }
    reply.header('content-length', compressed.length);
    return compressed;
  }
  reply.removeHeader('content-length');
  const stream = encoding === 'br' ? createBrotliCompress(BROTLI_OPTIONS) : createGzip(GZIP_OPTIONS);
  stream.end(bytes);
  return stream;
}
