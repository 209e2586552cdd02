import { describe, expect, it } from 'vitest';
import { erf, erfc, erfcx, inverseNormCdf, normCdf, normPdf } from '../src/analytics/normal.ts';

// Reference values computed with mpmath at 40 significant digits (mp.dps = 40), rounded to 20.
const ERFC: [number, number][] = [
  [0.3, 0.6713732405408726],
  [1, 0.15729920705028513],
  [2, 0.004677734981047266],
  [4, 1.541725790028002e-8],
  [10, 2.088487583762545e-45],
];
const ERFCX: [number, number][] = [
  [0.3, 0.7345993345676551],
  [1, 0.427583576155807],
  [2, 0.25539567631050575],
  [4, 0.13699945762506138],
  [10, 0.05614099274382259],
  [30, 0.01879588886141675],
  [-3, 16205.988853999586],
];
const PHI: [number, number][] = [
  [-1, 0.15865525393145705],
  [-5, 2.866515718791939e-7],
  [-10, 7.619853024160525e-24],
  [-20, 2.7536241186062337e-89],
  [-37, 5.725571222524577e-300],
];

const rel = (a: number, b: number) => Math.abs(a - b) / Math.abs(b);

describe('error function and normal distribution', () => {
  it('erfc and erfcx match high-precision references to near machine precision', () => {
    for (const [x, v] of ERFC) expect(rel(erfc(x), v), `erfc(${x})`).toBeLessThan(5e-15);
    for (const [x, v] of ERFCX) expect(rel(erfcx(x), v), `erfcx(${x})`).toBeLessThan(5e-15);
  });

  it('Φ keeps its relative precision deep in the lower tail', () => {
    // Φ(z) = erfc(−z/√2)/2: rounding z/√2 costs about z²·ε relative, hence the looser bound far out.
    for (const [z, v] of PHI) expect(rel(normCdf(z), v), `Φ(${z})`).toBeLessThan(2e-15 * Math.max(1, z * z));
  });

  it('is consistent: erf + erfc = 1, symmetry, Φ(−z) + Φ(z) = 1, φ integrates Φ', () => {
    for (let x = -6; x <= 6; x += 0.173) {
      expect(erf(x) + erfc(x)).toBeCloseTo(1, 15);
      expect(erf(-x)).toBe(-erf(x));
      expect(normCdf(x) + normCdf(-x)).toBeCloseTo(1, 15);
      const h = 1e-5;
      expect((normCdf(x + h) - normCdf(x - h)) / (2 * h)).toBeCloseTo(normPdf(x), 9);
    }
  });

  it('erfc underflows to 0 and erfcx to 1/(x√π) without NaN at the extremes', () => {
    expect(erfc(30)).toBe(0);
    expect(erfc(-30)).toBe(2);
    expect(erfcx(1e9)).toBeCloseTo(1 / (1e9 * Math.sqrt(Math.PI)), 20);
    expect(erfcx(-30)).toBe(Number.POSITIVE_INFINITY);
    expect(normCdf(-40)).toBe(0);
    expect(normCdf(40)).toBe(1);
  });

  it('Φ⁻¹ inverts Φ to near machine precision, including the far tail', () => {
    for (const p of [1e-300, 1e-100, 1e-20, 1e-10, 1e-4, 0.01, 0.02425, 0.1, 0.3, 0.5, 0.7, 0.9, 0.99]) {
      expect(rel(normCdf(inverseNormCdf(p)), p), `p=${p}`).toBeLessThan(1e-13);
    }
    expect(inverseNormCdf(0)).toBe(Number.NEGATIVE_INFINITY);
    expect(inverseNormCdf(1)).toBe(Number.POSITIVE_INFINITY);
    expect(inverseNormCdf(1.5)).toBeNaN();
  });
});
