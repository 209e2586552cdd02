import { describe, expect, it } from 'vitest';
import { envelope } from './envelope.ts';

const doc = (data: unknown, meta?: unknown) => ({
  data_json: Buffer.from(JSON.stringify(data)),
  meta_json: meta === undefined ? Buffer.alloc(0) : Buffer.from(JSON.stringify(meta)),
});

describe('envelope', () => {
  const now = Date.parse('2026-01-02T03:04:05.678Z');
  it('wraps the document with as_of and route', () => {
    expect(JSON.parse(envelope(doc([{ a: 1 }]), 'searchStocks', now).toString())).toEqual({
      data: [{ a: 1 }],
      meta: { as_of: '2026-01-02T03:04:05.678Z', route: 'searchStocks' },
    });
  });
  it('merges the service meta keys after as_of and route', () => {
    const out = JSON.parse(
      envelope(doc({ x: 'y' }, { total: 3, limit: 10, offset: 0 }), 'searchStocks', now).toString(),
    );
    expect(out.meta).toEqual({
      as_of: '2026-01-02T03:04:05.678Z',
      route: 'searchStocks',
      total: 3,
      limit: 10,
      offset: 0,
    });
  });
  it("keeps the document's bytes as sent, multi-byte characters included", () => {
    const out = envelope(doc({ name: 'नर्मदा ₹ Ltd', n: 1 }), 'getStockProfile', now);
    expect(JSON.parse(out.toString('utf8')).data).toEqual({ name: 'नर्मदा ₹ Ltd', n: 1 });
  });
  it('an empty meta object adds nothing, an empty document is null', () => {
    const out = JSON.parse(
      envelope({ data_json: Buffer.alloc(0), meta_json: Buffer.from('{}') }, 'r', now).toString(),
    );
    expect(out).toEqual({ data: null, meta: { as_of: '2026-01-02T03:04:05.678Z', route: 'r' } });
  });
});

/** The envelope as it was first written: as strings, then encoded. The bytes must not change. */
function asStrings(d: { data_json: Buffer; meta_json: Buffer }, route: string, now: number): Buffer {
  const data = d.data_json.length > 0 ? d.data_json.toString('utf8') : 'null';
  const extra = d.meta_json.length > 2 ? `,${d.meta_json.toString('utf8', 1, d.meta_json.length - 1)}` : '';
  const meta = `,"meta":{"as_of":"${new Date(now).toISOString()}","route":${JSON.stringify(route)}${extra}}}`;
  return Buffer.from(`{"data":${data}${meta}`);
}

describe('envelope bytes', () => {
  it.each([
    ['a document and meta keys', doc({ a: [1, 2], s: 'x' }, { window: { from: 'a' }, has_more: true })],
    ['multi-byte text in both', doc({ name: 'नर्मदा ₹' }, { note: 'é' })],
    ['no meta', doc([])],
    ['empty meta', { data_json: Buffer.from('{}'), meta_json: Buffer.from('{}') }],
    ['no document', { data_json: Buffer.alloc(0), meta_json: Buffer.from('{"k":1}') }],
  ])('%s: as assembled from strings', (_name, d) => {
    for (const now of [Date.parse('2026-01-02T03:04:05.678Z'), Date.parse('2026-01-02T03:04:05.679Z')])
      for (const route of ['getStockQuote', 'searchStocks'])
        expect(envelope(d, route, now).equals(asStrings(d, route, now))).toBe(true);
  });
});
