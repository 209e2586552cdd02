import { describe, expect, it } from 'vitest';
import {
  black76,
  blackScholes,
  intrinsic,
  normalisedOtmCall,
  normalisedOtmCallGap,
} from '../src/analytics/black.ts';

describe('Black-76 and Black-Scholes prices: published examples', () => {
  it('Hull, Options, Futures and Other Derivatives, Example 15.6: S=42, K=40, r=10%, σ=20%, T=0.5', () => {
    expect(blackScholes(42, 40, 0.5, 0.1, 0, 0.2, 'call')).toBeCloseTo(4.76, 2);
    expect(blackScholes(42, 40, 0.5, 0.1, 0, 0.2, 'put')).toBeCloseTo(0.81, 2);
    // mpmath at 40 digits: 4.759422392871533…, 0.8085993729000936…
    expect(blackScholes(42, 40, 0.5, 0.1, 0, 0.2, 'call')).toBeCloseTo(4.759422392871533, 12);
    expect(blackScholes(42, 40, 0.5, 0.1, 0, 0.2, 'put')).toBeCloseTo(0.8085993729000936, 12);
  });

  it('Hull, the Greeks example: S=49, K=50, r=5%, σ=20%, T=20 weeks gives 2.40', () => {
    expect(blackScholes(49, 50, 0.3846, 0.05, 0, 0.2, 'call')).toBeCloseTo(2.400461086965662, 12);
  });

  it('Haug, The Complete Guide to Option Pricing Formulas: Black-76, Merton-73, BS and Garman-Kohlhagen', () => {
    // Black-76: F=19, K=19, T=0.75, r=10%, σ=28% → 1.7011 for both call and put
    expect(black76(19, 19, 0.75, 0.28, Math.exp(-0.1 * 0.75), 'call')).toBeCloseTo(1.7011, 4);
    expect(black76(19, 19, 0.75, 0.28, Math.exp(-0.1 * 0.75), 'put')).toBeCloseTo(1.7011, 4);
    // Merton-73 put on an index: S=100, K=95, T=0.5, r=10%, q=5%, σ=20% → 2.4648
    expect(blackScholes(100, 95, 0.5, 0.1, 0.05, 0.2, 'put')).toBeCloseTo(2.4648, 4);
    // Black-Scholes call: S=60, K=65, T=0.25, r=8%, σ=30% → 2.1334
    expect(blackScholes(60, 65, 0.25, 0.08, 0, 0.3, 'call')).toBeCloseTo(2.1334, 4);
    // Garman-Kohlhagen: S=1.56, K=1.60, T=0.5, r=6%, rf=8%, σ=12% → 0.0291
    expect(blackScholes(1.56, 1.6, 0.5, 0.06, 0.08, 0.12, 'call')).toBeCloseTo(0.0291, 4);
  });
});

describe('Black-76 structure', () => {
  it('satisfies put-call parity C − P = df·(F − K) across strikes, vols and maturities', () => {
    for (const t of [1 / 365, 0.1, 1, 5])
      for (const v of [0.05, 0.2, 0.8])
        for (const k of [50, 90, 100, 110, 200]) {
          const df = Math.exp(-0.065 * t);
          const diff = black76(100, k, t, v, df, 'call') - black76(100, k, t, v, df, 'put');
          expect(diff).toBeCloseTo(df * (100 - k), 10);
        }
  });

  it('stays within its no-arbitrage bounds and tends to them at σ → 0 and σ → ∞', () => {
    const df = 0.99;
    for (const k of [60, 100, 140]) {
      expect(black76(100, k, 1, 0, df, 'call')).toBe(df * intrinsic(100, k, 'call'));
      if (k !== 100)
        expect(black76(100, k, 1, 1e-9, df, 'put')).toBeCloseTo(df * intrinsic(100, k, 'put'), 12);
      expect(black76(100, k, 1, 60, df, 'call')).toBeCloseTo(df * 100, 8);
      expect(black76(100, k, 1, 60, df, 'put')).toBeCloseTo(df * k, 8);
      for (const v of [0.01, 0.3, 3]) {
        const c = black76(100, k, 1, v, df, 'call');
        expect(c).toBeGreaterThanOrEqual(df * intrinsic(100, k, 'call'));
        expect(c).toBeLessThanOrEqual(df * 100);
      }
    }
    expect(black76(100, 100, 0, 0.3, 1, 'call')).toBe(0);
  });

  it('keeps relative precision for prices far below a unit of the last place of the forward', () => {
    // 10 standard deviations out: the price is ~1e-24 of the forward, far below what F·N(d1) − K·N(d2)
    // could resolve; the normalised evaluation keeps it positive and increasing in σ.
    const a = black76(100, 100 * Math.exp(1), 1, 0.1, 1, 'call');
    const b = black76(100, 100 * Math.exp(1), 1, 0.1001, 1, 'call');
    expect(a).toBeGreaterThan(0);
    expect(a).toBeLessThan(1e-20);
    expect(b).toBeGreaterThan(a);
  });

  it('normalised value and its gap to the bound add up to e^{x/2}', () => {
    for (const x of [-5, -1, -0.1, -1e-4, 0])
      for (const s of [1e-3, 0.1, 1, 5])
        expect(normalisedOtmCall(x, s) + normalisedOtmCallGap(x, s)).toBeCloseTo(Math.exp(x / 2), 14);
  });
});
