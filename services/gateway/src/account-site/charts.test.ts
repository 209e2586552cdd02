import { describe, expect, it } from 'vitest';
import { barChart } from './charts.ts';

const heights = (svg: string) =>
  [...svg.matchAll(/<rect class="bar"[^>]* height="(\d+)"/g)].map((m) => Number(m[1]));

describe('barChart', () => {
  it('scales bars to the largest value and lists every figure in its table', () => {
    const out = barChart('c', 'Units a day', [
      { label: '2026-11-23', value: 5 },
      { label: '2026-11-24', value: 10, tick: '24 Nov' },
    ]).value;
    const [a, b] = heights(out);
    expect(b).toBe(2 * a!);
    expect(out).toContain('<title>2026-11-24: 10 units</title>');
    expect(out).toContain('<td>2026-11-23</td><td class="num">5</td>');
    expect(out.match(/class="tick"/g)).toHaveLength(1);
    expect(out).toContain('>24 Nov</text>');
  });

  it('draws its labels outside any viewBox, so they keep their CSS size at every width', () => {
    const bars = Array.from({ length: 30 }, (_, i) => ({
      label: `day ${i}`,
      value: i,
      ...(i % 5 === 4 ? { tick: `t${i}` } : {}),
    }));
    const out = barChart('w', 'Wide', bars).value;
    // The outer SVG has no viewBox (its user unit is a CSS pixel); only the bars' nested one has.
    expect(/<svg id="w"[^>]*>/.exec(out)![0]).not.toContain('viewBox');
    const plot = /<svg class="plot"[^>]*>([\s\S]*?)<\/svg>/.exec(out)![1]!;
    expect(plot).not.toContain('<text');
    // The last tick ends at the right edge, the others are centred under their bars.
    expect(out).toContain('<text class="tick" x="100%" y="174" text-anchor="end">t29</text>');
    expect(out).toContain('<text class="tick" x="15%" y="174" text-anchor="middle">t4</text>');
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
    expect(barChart('e', '<T>', [{ label: '<b>', value: 1, tick: '<i>' }]).value).not.toMatch(/<b>|<i>/);
  });
});
