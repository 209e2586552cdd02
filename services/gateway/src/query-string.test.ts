import { describe, expect, it } from 'vitest';
import { MALFORMED, parseQueryString } from './query-string.ts';

describe('parseQueryString', () => {
  it('decodes names and values, + as space', () => {
    expect({ ...parseQueryString('q=tata+motors&sym=M%26M&x=') }).toEqual({
      q: 'tata motors',
      sym: 'M&M',
      x: '',
    });
  });
  it('keeps every value of a repeated name', () => {
    expect({ ...parseQueryString('a=1&a=2&a=3') }).toEqual({ a: ['1', '2', '3'] });
  });
  it('reports malformed escapes instead of passing them through', () => {
    expect(parseQueryString('ok=1&q=%E0%A4')[MALFORMED]).toBe('q');
    expect(parseQueryString('%zz=1')[MALFORMED]).toBe('%zz');
  });
  it('cannot be polluted through __proto__', () => {
    const parsed = parseQueryString('__proto__=x&constructor=y');
    expect(Object.getPrototypeOf(parsed)).toBeNull();
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });
});
