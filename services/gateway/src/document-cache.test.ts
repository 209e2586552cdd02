import { createRegistry } from '@mdp/telemetry';
import { describe, expect, it } from 'vitest';
import { DocumentCache } from './document-cache.ts';
import { type AnswerDocument, answerDocument } from './envelope.ts';

/** The cache key as it was first written (entries, filter, sort, map, join): keys must not change. */
function canonicalBefore(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalBefore).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return `{${entries
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([k, v]) => `${JSON.stringify(k)}:${canonicalBefore(v)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

describe('document cache keys', () => {
  const cache = new DocumentCache({ maxBytes: 1024, ttlMs: 1_000, registry: createRegistry('gateway') });
  it.each([
    [{ symbol: 'TCS' }, {}],
    [{}, { days: 365, end_date: '2026-01-02', interval: undefined }],
    [{ symbol: 'M&M' }, { symbols: ['TCS', 'INFY'], z: 1, a: 'é', b: null, c: true }],
    [
      { b: 2, a: 1 },
      { list: [1, undefined, { y: 2, x: [3] }], empty: [] },
    ],
  ])('%j %j: as before, whatever the order of the parameters', (params, query) => {
    const before = `getStockQuote\u0000${canonicalBefore(params)}\u0000${canonicalBefore(query)}`;
    expect(cache.key('getStockQuote', params, query)).toBe(before);
    const reversed = Object.fromEntries(Object.entries(query).reverse());
    expect(cache.key('getStockQuote', params, reversed)).toBe(before);
  });
});

describe('document cache lookups', () => {
  it('misses at once share one load, a hit asks nothing, and a data change drops the entry', async () => {
    const cache = new DocumentCache({
      maxBytes: 1 << 20,
      ttlMs: 60_000,
      registry: createRegistry('gateway'),
    });
    const doc: AnswerDocument = answerDocument({
      data_json: Buffer.from('{"symbol":"ARAVALIHOU"}'),
      meta_json: Buffer.alloc(0),
    });
    let loads = 0;
    const load = async () => {
      loads++;
      return doc;
    };
    const key = cache.key('getStockQuote', { symbol: 'ARAVALIHOU' }, {});
    const get = (): AnswerDocument | Promise<AnswerDocument> =>
      cache.hit(key) ?? cache.load(key, 'equities', load);
    expect(cache.hit(key)).toBeUndefined();
    const [first, second] = await Promise.all([get(), get()]);
    expect([first, second, loads]).toEqual([doc, doc, 1]);
    expect(cache.hit(key)).toBe(doc);
    expect(loads).toBe(1);
    cache.dropUpstream('options');
    expect(cache.hit(key)).toBe(doc);
    cache.dropUpstream('equities');
    expect(cache.hit(key)).toBeUndefined();
    expect(await get()).toBe(doc);
    expect(loads).toBe(2);
  });
});
