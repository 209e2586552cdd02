import { describe, expect, it } from 'vitest';
import { blackScholes, type OptionType } from '../src/analytics/black.ts';
import { greeks } from '../src/analytics/greeks.ts';

const at = (spot: number, strike: number, t: number, r: number, q: number, sigma: number, type: OptionType) =>
  greeks({ spot, forward: spot * Math.exp((r - q) * t), strike, t, r, sigma, type })!;

describe('Greeks', () => {
  it("match Hull's worked example (S=49, K=50, r=5%, σ=20%, T=20 weeks)", () => {
    // Hull: Δ = 0.522, Γ = 0.066, vega = 12.1 per unit σ, Θ = −4.31 per year, ρ = 8.91 per unit r.
    // mpmath at 40 digits: 0.5216016339715761, 0.06554537725247866, 12.105242754243845,
    // −4.305389964546104, 8.9065740988009474.
    const g = at(49, 50, 0.3846, 0.05, 0, 0.2, 'call');
    expect(g.delta).toBeCloseTo(0.5216016339715761, 12);
    expect(g.gamma).toBeCloseTo(0.06554537725247866, 12);
    expect(g.vega).toBeCloseTo(12.105242754243845 / 100, 12);
    expect(g.theta).toBeCloseTo(-4.305389964546105 / 365, 12);
    expect(g.rho).toBeCloseTo(8.906574098800947 / 100, 12);
    expect(g.delta).toBeCloseTo(0.522, 3);
    expect(g.gamma).toBeCloseTo(0.066, 3);
  });

  it('agree with finite differences of the price, with a dividend yield, for calls and puts', () => {
    for (const type of ['call', 'put'] as const)
      for (const [s, k, t, r, q, v] of [
        [22800, 23000, 7 / 365, 0.065, 0.012, 0.14],
        [1348, 1200, 60 / 365, 0.065, 0.004, 0.3],
        [100, 130, 1.5, 0.05, 0.03, 0.45],
      ] as const) {
        const g = at(s, k, t, r, q, v, type);
        const price = (dS = 0, dT = 0, dR = 0, dV = 0) =>
          blackScholes(s + dS, k, t + dT, r + dR, q, v + dV, type);
        const near = (a: number, b: number) =>
          expect(Math.abs(a - b)).toBeLessThan(1e-6 * Math.max(1, Math.abs(b)));
        const hs = s * 1e-4;
        near(g.delta, (price(hs) - price(-hs)) / (2 * hs));
        near(g.gamma, (price(hs) - 2 * price() + price(-hs)) / (hs * hs));
        const ht = t * 1e-5;
        near(g.theta, -(price(0, ht) - price(0, -ht)) / (2 * ht) / 365);
        const hv = 1e-5;
        near(g.vega, (price(0, 0, 0, hv) - price(0, 0, 0, -hv)) / (2 * hv) / 100);
        const hr = 1e-5;
        near(g.rho, (price(0, 0, hr) - price(0, 0, -hr)) / (2 * hr) / 100);
      }
  });

  it('satisfy the put-call relations: Δc − Δp = e^{−qT}, equal gamma and vega', () => {
    const c = at(22800, 23000, 30 / 365, 0.065, 0.012, 0.15, 'call');
    const p = at(22800, 23000, 30 / 365, 0.065, 0.012, 0.15, 'put');
    expect(c.delta - p.delta).toBeCloseTo(Math.exp(-0.012 * (30 / 365)), 14);
    expect(c.gamma).toBeCloseTo(p.gamma, 15);
    expect(c.vega).toBeCloseTo(p.vega, 15);
    expect(c.theta).toBeLessThan(0);
    expect(p.rho).toBeLessThan(0);
  });

  it('are null when expired or without a volatility', () => {
    const base = {
      spot: 100,
      forward: 100,
      strike: 100,
      t: 0.1,
      r: 0.065,
      sigma: 0.2,
      type: 'call' as const,
    };
    expect(greeks({ ...base, t: 0 })).toBeNull();
    expect(greeks({ ...base, sigma: 0 })).toBeNull();
    expect(greeks({ ...base, spot: Number.NaN })).toBeNull();
  });
});
