import { describe, expect, it } from 'vitest';
import { barChart } from './charts.ts';

const heights = (svg: string) =>
  [...svg.matchAll(/<rect class="bar"[^>]* height="(\d+)"/g)].map((m) => Number(m[1]));

describe('barChart', () => {
  it('scales bars to the largest value and lists every figure in its table', () => {
    const out = barChart('c', 'Units a day', [
      { label: '2026-11-23', value: 5 },
      { label: '2026-11-24', value: 10, tick: true },
    ]).value;
    const [a, b] = heights(out);
    expect(b).toBe(2 * a!);
    expect(out).toContain('<title>2026-11-24: 10 units</title>');
    expect(out).toContain('<td>2026-11-23</td><td class="num">5</td>');
    expect(out.match(/class="tick"/g)).toHaveLength(1);
  });

  it('draws all-zero data as flat bars', () => {
    const out = barChart('z', 'Nothing', [
      { label: 'a', value: 0 },
      { label: 'b', value: 0 },
    ]).value;
    expect(heights(out)).toEqual([1, 1]);
    expect(out).not.toContain('NaN');
  });

  it('escapes labels', () => {
    expect(barChart('e', '<T>', [{ label: '<b>', value: 1, tick: true }]).value).not.toContain('<b>');
  });
});
