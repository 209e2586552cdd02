/**
 * The volatility surface the generated dataset is priced from: an ATM term structure that mean-reverts
 * in variance from a short-dated level to a long-run one, times a smile in standardised moneyness
 * z = ln(K/F)/(σ_atm(T)·√T) with a (negative, equity-like) slope and a convexity, flat beyond
 * |z| = 3.5 so the wings stay bounded. Options priced from it with Black-76 give back exactly these
 * volatilities through the solver, which is what the generated chains are tested for.
 */
export interface SurfaceParams {
  /** ATM volatility of the shortest expiries (a fraction): today's level. */
  atmShort: number;
  /** ATM volatility the term structure tends to at long maturities. */
  atmLong: number;
  /** Speed (per year) at which the term structure moves from the short level to the long one. */
  kappa: number;
  /** dσ/σ per unit of z: negative for the usual equity skew (puts richer than calls). */
  skew: number;
  /** d²σ/σ per unit of z², the smile's convexity. */
  curvature: number;
}

const Z_CAP = 3.5;
const MIN_FACTOR = 0.3;

/** ATM volatility at maturity t (years): σ²(t) = σ∞² + (σ0² − σ∞²)·(1 − e^{−κt})/(κt). */
export function surfaceAtmVol(p: SurfaceParams, t: number): number {
  const kt = p.kappa * t;
  const weight = kt < 1e-8 ? 1 - 0.5 * kt : (1 - Math.exp(-kt)) / kt;
  return Math.sqrt(p.atmLong * p.atmLong + (p.atmShort * p.atmShort - p.atmLong * p.atmLong) * weight);
}

/** The smile as a multiple of the ATM volatility, at standardised moneyness z. */
export function smileFactor(p: SurfaceParams, z: number): number {
  const capped = Math.max(-Z_CAP, Math.min(Z_CAP, z));
  return Math.max(MIN_FACTOR, 1 + p.skew * capped + p.curvature * capped * capped);
}

/** The surface's implied volatility for a strike at maturity t, given the forward. */
export function surfaceVol(p: SurfaceParams, forward: number, strike: number, t: number): number {
  const atm = surfaceAtmVol(p, t);
  return atm * smileFactor(p, Math.log(strike / forward) / (atm * Math.sqrt(t)));
}
