import type { OptionType } from './black.ts';
import { normCdf, normPdf } from './normal.ts';

/**
 * Black-Scholes Greeks of a European option, taken with respect to spot with the dividend yield q that
 * makes the market forward consistent with spot: F = S·e^{(r−q)T}. These are the Greeks a screen shows
 * for an index or stock option (Hull's conventions), and with q = 0 they are the textbook ones.
 *
 * - delta: ∂V/∂S;  gamma: ∂²V/∂S² (per 1 unit of the underlying)
 * - theta: ∂V/∂t per calendar day (÷365), spot, rates and q held fixed; negative for a long option
 * - vega: ∂V/∂σ per 1 volatility point (σ + 0.01)
 * - rho: ∂V/∂r per 1 percentage point of the rate (r + 0.01), spot and q held fixed
 */
export interface Greeks {
  delta: number;
  gamma: number;
  theta: number;
  vega: number;
  rho: number;
}

export interface GreeksInput {
  spot: number;
  forward: number;
  strike: number;
  /** Years to expiry. */
  t: number;
  /** Continuously compounded risk-free rate, a fraction. */
  r: number;
  /** Volatility, a fraction. */
  sigma: number;
  type: OptionType;
}

/** The Greeks, or null when any input makes them meaningless (expired, zero volatility, bad prices). */
export function greeks({ spot, forward, strike, t, r, sigma, type }: GreeksInput): Greeks | null {
  if (!(spot > 0 && forward > 0 && strike > 0 && t > 0 && sigma > 0)) return null;
  const sqrtT = Math.sqrt(t);
  const sd = sigma * sqrtT;
  const d1 = Math.log(forward / strike) / sd + 0.5 * sd;
  const d2 = d1 - sd;
  const df = Math.exp(-r * t);
  const carry = (forward * df) / spot; // e^{−qT}
  const q = r - Math.log(forward / spot) / t;
  const pdf = normPdf(d1);
  const gamma = (carry * pdf) / (spot * sd);
  const vega = (forward * df * pdf * sqrtT) / 100;
  const decay = (-forward * df * pdf * sigma) / (2 * sqrtT);
  if (type === 'call') {
    const nd1 = normCdf(d1);
    const nd2 = normCdf(d2);
    return {
      delta: carry * nd1,
      gamma,
      theta: (decay - r * strike * df * nd2 + q * forward * df * nd1) / 365,
      vega,
      rho: (strike * t * df * nd2) / 100,
    };
  }
  const nmd1 = normCdf(-d1);
  const nmd2 = normCdf(-d2);
  return {
    delta: -carry * nmd1,
    gamma,
    theta: (decay + r * strike * df * nmd2 - q * forward * df * nmd1) / 365,
    vega,
    rho: (-strike * t * df * nmd2) / 100,
  };
}
