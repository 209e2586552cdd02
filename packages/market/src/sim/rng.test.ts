import { describe, expect, it } from 'vitest';
import { Rng } from './rng.ts';

const draws = (rng: Rng, n: number) => Array.from({ length: n }, () => rng.u32());

describe('the seeded generator every data generator shares', () => {
  it('gives the same sequence for a seed on every machine and version, so generated datasets never drift', () => {
    // Pinned: changing these changes every generated dataset (prices, financials, options, filings).
    expect(draws(new Rng(20260101), 3)).toEqual([1885462642, 3459489346, 3121489527]);
    expect(Rng.named(20260101, 'pcr:NIFTY').u32()).toBe(1421054239);
    expect(Rng.named('filings-default', 'RELIANCE:dates').u32()).toBe(2809373971);
  });

  it('keeps streams apart: by number, by name, by seed, and from a fork', () => {
    const sequences = [
      draws(new Rng(7, 0), 8),
      draws(new Rng(7, 1), 8),
      draws(new Rng(8, 0), 8),
      draws(Rng.named(7, 'a'), 8),
      draws(Rng.named(7, 'b'), 8),
      draws(Rng.named(8, 'a'), 8),
      draws(Rng.named('7', 'a'), 8),
      draws(new Rng(7, 0).fork(0), 8),
    ].map((s) => s.join(','));
    expect(new Set(sequences).size).toBe(sequences.length);
  });

  it('derives a named stream from the seed and name alone, however much another stream has drawn', () => {
    const first = draws(Rng.named(11, 'chain:NIFTY'), 20);
    const other = Rng.named(11, 'chain:BANKNIFTY');
    draws(other, 1000);
    expect(draws(Rng.named(11, 'chain:NIFTY'), 20)).toEqual(first);
    expect(draws(Rng.named('seed-text', 'x'), 20)).toEqual(draws(Rng.named('seed-text', 'x'), 20));
  });

  const rng = new Rng(3, 99);
  const N = 200_000;

  it('draws uniforms inside their bounds with the right mean and spread', () => {
    let sum = 0;
    let sq = 0;
    let lo = Infinity;
    let hi = -Infinity;
    for (let i = 0; i < N; i++) {
      const u = rng.uniform(-2, 6);
      lo = Math.min(lo, u);
      hi = Math.max(hi, u);
      sum += u;
      sq += u * u;
    }
    expect(lo).toBeGreaterThanOrEqual(-2);
    expect(lo).toBeLessThan(-1.99);
    expect(hi).toBeLessThan(6);
    expect(hi).toBeGreaterThan(5.99);
    const mean = sum / N;
    expect(mean).toBeCloseTo(2, 1);
    // Variance of U(a, b) is (b - a)^2 / 12.
    expect(sq / N - mean * mean).toBeCloseTo(64 / 12, 1);
  });

  it('draws integers over the whole inclusive range, evenly', () => {
    const counts = new Map<number, number>();
    for (let i = 0; i < N; i++) {
      const k = rng.int(-1, 3);
      counts.set(k, (counts.get(k) ?? 0) + 1);
    }
    expect([...counts.keys()].sort()).toEqual([-1, 0, 1, 2, 3]);
    for (const c of counts.values()) expect(Math.abs(c / N - 0.2)).toBeLessThan(0.01);
  });

  it('draws standard normals', () => {
    let sum = 0;
    let sq = 0;
    let beyond2 = 0;
    for (let i = 0; i < N; i++) {
      const z = rng.normal();
      sum += z;
      sq += z * z;
      if (Math.abs(z) > 2) beyond2++;
    }
    expect(Math.abs(sum / N)).toBeLessThan(0.01);
    expect(sq / N).toBeCloseTo(1, 1);
    expect(beyond2 / N).toBeCloseTo(0.0455, 2);
  });

  it('picks, flips and weighs in proportion', () => {
    let heads = 0;
    const weights = [1, 0, 3];
    const weighted = [0, 0, 0];
    const picked = new Map<string, number>();
    for (let i = 0; i < N; i++) {
      if (rng.chance(0.3)) heads++;
      weighted[rng.weighted(weights)]!++;
      const p = rng.pick(['x', 'y']);
      picked.set(p, (picked.get(p) ?? 0) + 1);
    }
    expect(heads / N).toBeCloseTo(0.3, 2);
    expect(weighted[1]).toBe(0);
    expect(weighted[0]! / N).toBeCloseTo(0.25, 2);
    expect(picked.get('x')! / N).toBeCloseTo(0.5, 2);
  });
  it('skips a normal draw exactly as drawing it would: the same numbers follow, in any pattern', () => {
    for (const pattern of ['dsssss', 'sd', 'ssd', 'dsd', 'sdsdds']) {
      const drawn = new Rng(5, 17);
      const skipped = new Rng(5, 17);
      for (let k = 0; k < 200; k++)
        for (const step of pattern) {
          const z = drawn.normal();
          if (step === 'd') expect(skipped.normal()).toBe(z);
          else skipped.skipNormal();
        }
      expect(draws(skipped, 4)).toEqual(draws(drawn, 4));
    }
  });
});
