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
