import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { COMPRESSION_THRESHOLD, compressAnswer, constantAnswer, negotiateEncoding } from './compression.ts';

describe('the coding an Accept-Encoding gets (as @fastify/compress negotiated it)', () => {
  it.each([
    ['gzip, deflate, br', 'br'],
    ['br', 'br'],
    ['gzip', 'gzip'],
    ['br;q=0.5, gzip', 'gzip'],
    ['gzip;q=0.8, br;q=0.8', 'br'],
    ['br, gzip;q=1', 'br'],
    ['*', 'gzip'],
    ['x-gzip', 'gzip'],
    ['GZIP', 'gzip'],
    ['deflate', null],
    ['identity', null],
    ['compress', null],
    ['gzip;q=0, br;q=0', null],
    ['gzip;q=0, br;q=0, identity', null],
    ['', null],
  ])('%j: %s', (header, coding) => {
    expect(negotiateEncoding(header)).toBe(coding);
  });
});

/** A reply of a real route, and what `compressAnswer` made of `payload` for a client sending `headers`. */
async function answer(payload: string | Buffer, headers: Record<string, string>, type = 'application/json') {
  const app = Fastify();
  let out: unknown;
  app.get('/', (req, reply) => {
    reply.type(type);
    out = compressAnswer(req, reply, payload);
    reply.send('');
  });
  const res = await app.inject({ method: 'GET', url: '/', headers });
  await app.close();
  return { out, headers: res.headers };
}

describe('compressAnswer', () => {
  const large = JSON.stringify({ rows: Array.from({ length: 200 }, (_, i) => ({ i, name: `row ${i}` })) });

  it('leaves an answer under the threshold as it is, with no Vary', async () => {
    const small = 'x'.repeat(COMPRESSION_THRESHOLD - 1);
    const { out, headers } = await answer(small, { 'accept-encoding': 'br' });
    expect(out).toBe(small);
    expect(headers.vary).toBeUndefined();
  });

  it('varies a large answer by Accept-Encoding even when the client asks for nothing', async () => {
    const { out, headers } = await answer(large, {});
    expect(out).toBe(large);
    expect(headers.vary).toBe('accept-encoding');
  });

  it('compresses with the coding asked for, stating its length', async () => {
    const br = await answer(large, { 'accept-encoding': 'gzip, br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(br.out as Buffer).toString()).toBe(large);
    const gzip = await answer(large, { 'accept-encoding': 'gzip' });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gzip.out as Buffer).toString()).toBe(large);
  });

  it('does not compress what is not JSON, HTML, CSS or JavaScript, nor for X-No-Compression', async () => {
    expect((await answer(large, { 'accept-encoding': 'br' }, 'text/plain')).out).toBe(large);
    expect((await answer(large, { 'accept-encoding': 'br', 'x-no-compression': '1' })).out).toBe(large);
  });

  it('compresses a constant answer once for each coding', async () => {
    const bytes = constantAnswer(Buffer.from(large));
    const first = (await answer(bytes, { 'accept-encoding': 'br' })).out;
    const second = (await answer(bytes, { 'accept-encoding': 'br' })).out;
    expect(second).toBe(first);
    expect(brotliDecompressSync(first as Buffer).toString()).toBe(large);
    const gzip = (await answer(bytes, { 'accept-encoding': 'gzip' })).out;
    expect(gunzipSync(gzip as Buffer).toString()).toBe(large);
  });
});
