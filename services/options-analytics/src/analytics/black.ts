import { erfcx, INV_SQRT_2PI, normCdf } from './normal.ts';

/**
 * Black-76 on the forward, and the normalised form the implied-volatility solver works in.
 *
 * With x = ln(F/K) and s = σ√T, an option's undiscounted value divided by √(FK) depends on x and s
 * only. Put-call parity and the symmetry b(x, s, put) = b(−x, s, call) reduce every option to its
 * intrinsic value plus the value of an out-of-the-money call with x ≤ 0:
 *
 *   b(x, s) = e^{x/2} Φ(x/s + s/2) − e^{−x/2} Φ(x/s − s/2),   0 < b < e^{x/2}.
 *
 * For deep out-of-the-money options both terms are tiny and nearly equal; written with erfcx they
 * become one small factor times a well-conditioned difference, so b keeps its relative precision down
 * to the smallest doubles (and its logarithm beyond them).
 */

export type OptionType = 'call' | 'put';

const SQRT1_2 = Math.SQRT1_2;

/** b(x, s) for x ≤ 0, s ≥ 0: the normalised value of the out-of-the-money call. */
export function normalisedOtmCall(x: number, s: number): number {
  if (!(s > 0)) return 0;
  const h = x / s;
  const t = 0.5 * s;
  if (h + t <= 0) {
    return 0.5 * Math.exp(-0.5 * (h * h + t * t)) * (erfcx(-(h + t) * SQRT1_2) - erfcx(-(h - t) * SQRT1_2));
  }
  return Math.exp(0.5 * x) * normCdf(h + t) - Math.exp(-0.5 * x) * normCdf(h - t);
}

/** e^{x/2} − b(x, s) for x ≤ 0: how far the value is below its upper bound, without cancellation. */
export function normalisedOtmCallGap(x: number, s: number): number {
  const h = x / s;
  const t = 0.5 * s;
  return Math.exp(0.5 * x) * normCdf(-h - t) + Math.exp(-0.5 * x) * normCdf(h - t);
}

/** ∂b/∂s, the normalised vega: φ-like and the same for calls and puts. */
export function normalisedVega(x: number, s: number): number {
  const h = x / s;
  const t = 0.5 * s;
  return INV_SQRT_2PI * Math.exp(-0.5 * (h * h + t * t));
}

/** max(F − K, 0) for a call, max(K − F, 0) for a put. */
export function intrinsic(forward: number, strike: number, type: OptionType): number {
  return Math.max(type === 'call' ? forward - strike : strike - forward, 0);
}

/**
 * The Black-76 value of a European option on a forward: df·(F·N(d1) − K·N(d2)) for a call,
 * df·(K·N(−d2) − F·N(−d1)) for a put, evaluated as intrinsic value plus the out-of-the-money value so
 * that deep in- and out-of-the-money prices keep their precision. σ or T of zero gives the discounted
 * intrinsic value.
 */
export function black76(
  forward: number,
  strike: number,
  t: number,
  sigma: number,
  df: number,
  type: OptionType,
): number {
  const inner = intrinsic(forward, strike, type);
  if (!(t > 0) || !(sigma > 0)) return df * inner;
  const x = -Math.abs(Math.log(forward / strike));
  return df * (inner + Math.sqrt(forward * strike) * normalisedOtmCall(x, sigma * Math.sqrt(t)));
}

/** Black-Scholes-Merton on spot with a continuous dividend yield q, through the forward S·e^{(r−q)T}. */
export function blackScholes(
  spot: number,
  strike: number,
  t: number,
  r: number,
  q: number,
  sigma: number,
  type: OptionType,
): number {
  return black76(spot * Math.exp((r - q) * t), strike, t, sigma, Math.exp(-r * t), type);
}
