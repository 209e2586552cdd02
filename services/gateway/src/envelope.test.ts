import { describe, expect, it } from 'vitest';
import { answerDocument, bodyText, dataText, envelope, TEXT_MOST } from './envelope.ts';

const sent = (data: unknown, meta?: unknown) => ({
  data_json: Buffer.from(JSON.stringify(data)),
  meta_json: meta === undefined ? Buffer.alloc(0) : Buffer.from(JSON.stringify(meta)),
});
const doc = (data: unknown, meta?: unknown) => answerDocument(sent(data, meta));
const read = (body: string | Buffer) => JSON.parse(bodyText(body));
/** A document of about `bytes` bytes of JSON data, multi-byte text included. */
const sized = (bytes: number) => ({ name: 'नर्मदा ₹', pad: 'x'.repeat(Math.max(0, bytes - 40)) });

describe('envelope', () => {
  const now = Date.parse('2026-01-02T03:04:05.678Z');
  it('wraps the document with as_of and route', () => {
    expect(read(envelope(doc([{ a: 1 }]), 'searchStocks', now))).toEqual({
      data: [{ a: 1 }],
      meta: { as_of: '2026-01-02T03:04:05.678Z', route: 'searchStocks' },
    });
  });
  it('merges the service meta keys after as_of and route', () => {
    const out = read(envelope(doc({ x: 'y' }, { total: 3, limit: 10, offset: 0 }), 'searchStocks', now));
    expect(out.meta).toEqual({
      as_of: '2026-01-02T03:04:05.678Z',
      route: 'searchStocks',
      total: 3,
      limit: 10,
      offset: 0,
    });
  });
  it("keeps the document's text as sent, multi-byte characters included", () => {
    const out = envelope(doc({ name: 'नर्मदा ₹ Ltd', n: 1 }), 'getStockProfile', now);
    expect(read(out).data).toEqual({ name: 'नर्मदा ₹ Ltd', n: 1 });
  });
  it('an empty meta object adds nothing, an empty document is null', () => {
    const out = read(
      envelope(answerDocument({ data_json: Buffer.alloc(0), meta_json: Buffer.from('{}') }), 'r', now),
    );
    expect(out).toEqual({ data: null, meta: { as_of: '2026-01-02T03:04:05.678Z', route: 'r' } });
  });
  it('a small document goes as text, a large one as bytes (TEXT_MOST)', () => {
    expect(typeof envelope(doc(sized(TEXT_MOST - 100)), 'getPriceHistory', now)).toBe('string');
    expect(Buffer.isBuffer(envelope(doc(sized(TEXT_MOST + 100)), 'getPriceHistory', now))).toBe(true);
    const large = sized(3 * TEXT_MOST);
    expect(read(envelope(doc(large, { has_more: true }), 'getPriceHistory', now))).toEqual({
      data: large,
      meta: { as_of: '2026-01-02T03:04:05.678Z', route: 'getPriceHistory', has_more: true },
    });
  });
  it("reads the document's data as text, small or large, and null for none", () => {
    for (const data of [sized(100), sized(3 * TEXT_MOST)])
      expect(JSON.parse(dataText(doc(data)))).toEqual(data);
    expect(dataText(answerDocument({ data_json: Buffer.alloc(0), meta_json: Buffer.from('{}') }))).toBe(
      'null',
    );
  });
});

/** The envelope as it was first written: as strings, then encoded. The bytes sent must not change. */
function asStrings(d: { data_json: Buffer; meta_json: Buffer }, route: string, now: number): Buffer {
  const data = d.data_json.length > 0 ? d.data_json.toString('utf8') : 'null';
  const extra = d.meta_json.length > 2 ? `,${d.meta_json.toString('utf8', 1, d.meta_json.length - 1)}` : '';
  const meta = `,"meta":{"as_of":"${new Date(now).toISOString()}","route":${JSON.stringify(route)}${extra}}}`;
  return Buffer.from(`{"data":${data}${meta}`);
}

describe('envelope bytes, as text or as bytes', () => {
  it.each([
    ['a document and meta keys', sent({ a: [1, 2], s: 'x' }, { window: { from: 'a' }, has_more: true })],
    ['multi-byte text in both', sent({ name: 'नर्मदा ₹' }, { note: 'é' })],
    ['no meta', sent([])],
    ['empty meta', { data_json: Buffer.from('{}'), meta_json: Buffer.from('{}') }],
    ['no document', { data_json: Buffer.alloc(0), meta_json: Buffer.from('{"k":1}') }],
    ['a large document and meta keys', sent(sized(2 * TEXT_MOST), { window: { from: 'a' }, note: 'é' })],
    ['a large document, no meta', sent(sized(2 * TEXT_MOST))],
  ])('%s: as assembled from strings', (_name, d) => {
    for (const now of [Date.parse('2026-01-02T03:04:05.678Z'), Date.parse('2026-01-02T03:04:05.679Z')])
      for (const route of ['getStockQuote', 'searchStocks'])
        expect(Buffer.from(envelope(answerDocument(d), route, now)).equals(asStrings(d, route, now))).toBe(
          true,
        );
  });
});
