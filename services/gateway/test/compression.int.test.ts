import { request } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { jsonDocument, RpcError } from '@mdp/grpc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMPRESSION_THRESHOLD } from '../src/compression.ts';
import {
  DEFINITIONS,
  echoImpl,
  type RunningServices,
  startGateway,
  startServices,
  type TestGateway,
} from './harness.ts';

// Answers of at least 1 KB are compressed when, and only when, the client asks, over real HTTP (the
// bytes on the wire, not what an HTTP client decodes for us): gzip or brotli as the Accept-Encoding
// q-values say, `Vary: Accept-Encoding` on every answer that can be compressed, the same document after
// decoding, and error envelopes and rate-limit headers exactly as without compression.

/** A 2,000-day page of daily bars as equities-data answers it (about 200 KB of JSON). */
function pricePage(symbol: string, days: number) {
  const bars = [];
  let close = 1_000;
  for (let i = 0; i < days; i++) {
    const date = new Date(Date.UTC(2020, 0, 1) + i * 86_400_000).toISOString().slice(0, 10);
    const open = close;
    close = Math.round(open * (1 + Math.sin(i * 1.7) / 50) * 100) / 100;
    bars.push({
      date,
      open,
      high: Math.max(open, close) + 3.25,
      low: Math.min(open, close) - 2.5,
      close,
      volume: 100_000 + ((i * 7919) % 50_000),
      delivery_pct: 30 + ((i * 31) % 400) / 10,
    });
  }
  return jsonDocument(bars, { symbol, window: { days, interval: 'daily' }, bars: bars.length });
}

let services: RunningServices;
let gw: TestGateway;
let port: number;
/** An account whose plan has a daily cap: its answers carry every rate-limit header. */
let capped: string;
const CAP = 1_000;

beforeAll(async () => {
  services = await startServices({
    impls: {
      equities: {
        ...echoImpl(DEFINITIONS.equities),
        getPriceHistory: async ({ symbol, days }: { symbol: string; days: number }) => {
          if (symbol === 'MISSING') throw RpcError.notFound(`no stock with symbol "${symbol}"`);
          return pricePage(symbol, days);
        },
      },
    },
  });
  // Deadlines for a loaded machine: an answer here is a 200, not a 503 of a slow auth check.
  gw = await startGateway(services, {
    admissionDeadlineMs: 10_000,
    authDeadlineMs: 5_000,
    deadlineMs: 10_000,
  });
  await gw.app.listen({ host: '127.0.0.1', port: 0 });
  port = (gw.app.server.address() as { port: number }).port;
  await services.store.createPlan('compression_capped', { daily: CAP, monthly: null, burst: 1_000_000 });
  const id = await services.store.createAccount('compression_capped');
  capped = (await services.store.issueToken(id)).token;
});
afterAll(async () => {
  await gw?.close();
  await services?.stop();
});

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The bytes as they came over the wire. */
  wire: Buffer;
  /** The body after undoing its Content-Encoding. */
  text: string;
}

/** One request as sent, and the answer as received (node:http decodes nothing). */
function raw(
  path: string,
  headers: Record<string, string>,
  opts: { method?: string; body?: string; token?: string | null } = {},
): Promise<Raw> {
  const token = opts.token === undefined ? services.token : opts.token;
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: opts.method ?? 'GET',
        headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const wire = Buffer.concat(chunks);
          const encoding = res.headers['content-encoding'];
          const decoded =
            encoding === 'gzip' ? gunzipSync(wire) : encoding === 'br' ? brotliDecompressSync(wire) : wire;
          resolve({ status: res.statusCode!, headers: res.headers, wire, text: decoded.toString('utf8') });
        });
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

const PAGE = '/v1/stocks/TCS/price?days=2000';
/** The same document: every byte alike but `meta.as_of`, the moment each answer was made. */
const sameDocument = (a: Raw, b: Raw) => {
  const unstamped = (r: Raw) => r.text.replace(/"as_of":"[^"]*"/, '"as_of":""');
  return unstamped(a) === unstamped(b);
};
const varyOf = (r: Raw) =>
  String(r.headers.vary ?? '')
    .toLowerCase()
    .split(/\s*,\s*/);

describe('a large answer', () => {
  let plain: Raw;
  beforeAll(async () => {
    plain = await raw(PAGE, {});
  });

  it('goes uncompressed to a client that does not ask, with its length and Vary: Accept-Encoding', async () => {
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.wire.length).toBeGreaterThan(100_000);
    expect(Number(plain.headers['content-length'])).toBe(plain.wire.length);
    expect(JSON.parse(plain.text).data).toHaveLength(2000);
    expect(varyOf(plain)).toContain('accept-encoding');
  });

  it('goes uncompressed to a client that asks for identity only, or refuses every coding it knows', async () => {
    for (const ae of ['identity', 'gzip;q=0, br;q=0', 'compress', 'gzip;q=0, br;q=0, identity']) {
      const res = await raw(PAGE, { 'accept-encoding': ae });
      expect(res.status, ae).toBe(200);
      expect(res.headers['content-encoding'], ae).toBeUndefined();
      expect(sameDocument(res, plain), ae).toBe(true);
      expect(varyOf(res), ae).toContain('accept-encoding');
    }
  });

  it('is gzip when the client asks for gzip, and decodes to the same document', async () => {
    for (const ae of ['gzip', 'gzip, deflate', 'x-gzip', 'br;q=0, gzip']) {
      const res = await raw(PAGE, { 'accept-encoding': ae });
      expect(res.status, ae).toBe(200);
      expect(res.headers['content-encoding'], ae).toBe('gzip');
      expect(sameDocument(res, plain), ae).toBe(true);
      expect(res.wire.length, ae).toBeLessThan(plain.wire.length / 3);
      expect(
        varyOf(res).filter((v) => v === 'accept-encoding'),
        ae,
      ).toHaveLength(1);
    }
  });

  it('is brotli when the client asks for br or prefers it, and decodes to the same document', async () => {
    for (const ae of ['br', 'gzip, deflate, br', 'br, gzip', 'gzip;q=0.5, br;q=0.9', '*']) {
      const res = await raw(PAGE, { 'accept-encoding': ae });
      expect(res.status, ae).toBe(200);
      // `*` is any coding: the plugin reads it as gzip (the coding every client can decode).
      expect(res.headers['content-encoding'], ae).toBe(ae === '*' ? 'gzip' : 'br');
      expect(sameDocument(res, plain), ae).toBe(true);
      expect(res.wire.length, ae).toBeLessThan(plain.wire.length / 3);
    }
  });

  it('is gzip when the client prefers gzip by q-value', async () => {
    const res = await raw(PAGE, { 'accept-encoding': 'br;q=0.2, gzip;q=0.8' });
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(sameDocument(res, plain)).toBe(true);
  });

  it('states its compressed length', async () => {
    for (const ae of ['gzip', 'br']) {
      const res = await raw(PAGE, { 'accept-encoding': ae });
      expect(res.headers['content-encoding'], ae).toBe(ae);
      expect(Number(res.headers['content-length']), ae).toBe(res.wire.length);
    }
  });
});

describe('what is not compressed', () => {
  it('an answer under the threshold, asked with gzip and br', async () => {
    const res = await raw('/v1/stocks/TCS/price?days=3', { 'accept-encoding': 'gzip, br' });
    expect(res.status).toBe(200);
    expect(res.wire.length).toBeLessThan(COMPRESSION_THRESHOLD);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(Number(res.headers['content-length'])).toBe(res.wire.length);
    expect(JSON.parse(res.text).data).toHaveLength(3);
  });

  it('an error envelope: the same bytes and headers whether or not compression is asked for', async () => {
    for (const [path, status, code] of [
      ['/v1/stocks/MISSING/price?days=2000', 404, 'not_found'],
      ['/v1/stocks/TCS/price?days=0', 400, 'invalid_request'],
      ['/v1/nothing-here', 404, 'route_not_found'],
    ] as const) {
      const plain = await raw(path, {});
      const asked = await raw(path, { 'accept-encoding': 'gzip, br' });
      for (const res of [plain, asked]) {
        expect(res.status, path).toBe(status);
        expect(res.headers['content-encoding'], path).toBeUndefined();
        expect(res.headers['content-type'], path).toBe('application/json; charset=utf-8');
        expect(JSON.parse(res.text).error.code, path).toBe(code);
      }
      expect(asked.wire.equals(plain.wire), path).toBe(true);
    }
  });

  it('a request without a token: the 401 and its WWW-Authenticate as without compression', async () => {
    const res = await raw(PAGE, { 'accept-encoding': 'gzip, br' }, { token: null });
    expect(res.status).toBe(401);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(res.text).error.code).toBe('authentication_required');
  });

  it('a HEAD: 405 with Allow and no body, as without compression', async () => {
    for (const headers of [{}, { 'accept-encoding': 'gzip, br' }] as Record<string, string>[]) {
      const res = await raw(PAGE, headers, { method: 'HEAD' });
      expect(res.status).toBe(405);
      expect(res.headers.allow).toBe('GET, OPTIONS');
      expect(res.headers['content-encoding']).toBeUndefined();
      expect(res.wire.length).toBe(0);
    }
  });

  it('an account site page (cookie-authenticated, carries a CSRF token: no compression side channel)', async () => {
    const res = await raw('/account/sign-up', { 'accept-encoding': 'gzip, br' }, { token: null });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toMatch(/csrf/i);
    expect(res.headers['content-encoding']).toBeUndefined();
  });
});

describe('rate-limit headers and metering', () => {
  it('every rate-limit header is sent on a compressed 200, and each 200 costs one unit', async () => {
    const plain = await raw(PAGE, {}, { token: capped });
    const gzip = await raw(PAGE, { 'accept-encoding': 'gzip' }, { token: capped });
    const br = await raw(PAGE, { 'accept-encoding': 'br' }, { token: capped });
    expect([plain, gzip, br].map((r) => r.status)).toEqual([200, 200, 200]);
    expect([gzip, br].map((r) => r.headers['content-encoding'])).toEqual(['gzip', 'br']);
    expect([plain, gzip, br].map((r) => r.headers['x-ratelimit-limit'])).toEqual([
      `${CAP}`,
      `${CAP}`,
      `${CAP}`,
    ]);
    expect([plain, gzip, br].map((r) => Number(r.headers['x-ratelimit-remaining']))).toEqual([
      CAP - 1,
      CAP - 2,
      CAP - 3,
    ]);
    for (const res of [gzip, br]) {
      expect(res.headers['x-ratelimit-reset']).toBe(plain.headers['x-ratelimit-reset']);
      expect(res.headers['ratelimit-policy']).toBe(plain.headers['ratelimit-policy']);
      expect(res.headers.ratelimit).toBeDefined();
      expect(sameDocument(res, plain)).toBe(true);
    }
  });
});

describe('the other doors', () => {
  const toolsList = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
  const mcp = (headers: Record<string, string>) =>
    raw(
      '/mcp',
      { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      { method: 'POST', body: toolsList },
    );

  it('MCP tools/list: compressed when asked, the same JSON-RPC answer either way', async () => {
    const plain = await mcp({});
    const br = await mcp({ 'accept-encoding': 'br' });
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(br.text)).toEqual(JSON.parse(plain.text));
    expect(JSON.parse(br.text).result.tools.length).toBeGreaterThan(0);
  });

  it('/v1/openapi.json and the API reference script are compressed when asked', async () => {
    const docs = await raw('/docs', {}, { token: null });
    const script = /src="(\/docs\/assets\/scalar\.[0-9a-f]+\.js)"/.exec(docs.text)![1]!;
    for (const path of ['/v1/openapi.json', script]) {
      const plain = await raw(path, {}, { token: null });
      const gzip = await raw(path, { 'accept-encoding': 'gzip' }, { token: null });
      expect(gzip.status, path).toBe(200);
      expect(gzip.headers['content-encoding'], path).toBe('gzip');
      expect(sameDocument(gzip, plain), path).toBe(true);
      expect(gzip.wire.length, path).toBeLessThan(plain.wire.length / 2);
      expect(varyOf(plain), path).toContain('accept-encoding');
    }
  });
});
