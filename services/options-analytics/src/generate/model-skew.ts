import { inverseNormCdf } from '../analytics/normal.ts';
import { SKEW_DELTA } from '../analytics/smile.ts';
import { type SurfaceParams, smileFactor, surfaceAtmVol } from './surface.ts';

/**
 * The surface's own 25-delta skew at maturity t: the volatility at the strike whose (spot,
 * dividend-adjusted) put delta is −0.25 minus the one at the strike whose call delta is +0.25. The same
 * quantity the chain analytics measure from listed strikes, without the interpolation between them.
 *
 * In standardised moneyness z = ln(K/F)/(σ_atm√t), with the smile σ = σ_atm·g(z), d1 depends on z
 * alone: d1(z) = −z/g(z) + σ_atm√t·g(z)/2, and a delta of ±0.25 means e^{−qt}N(±d1) = 0.25. So both
 * strikes are roots of one decreasing function of z, found by bisection with plain arithmetic.
 */
export function modelSkew25(p: SurfaceParams, t: number, q: number): number {
  const atm = surfaceAtmVol(p, t);
  const sd = atm * Math.sqrt(t);
  const d1Call = inverseNormCdf(SKEW_DELTA / Math.exp(-q * t));
  // Call: N(d1) = 0.25/e^{−qt}; put: N(−d1) = 0.25/e^{−qt}, i.e. d1 = −d1Call.
  return atm * (smileAtD1(p, sd, -d1Call) - smileAtD1(p, sd, d1Call));
}

/** g(z) at the z where d1(z) = target. */
function smileAtD1(p: SurfaceParams, sd: number, target: number): number {
  let lo = -8;
  let hi = 8;
  for (let i = 0; i < 40; i++) {
    const mid = 0.5 * (lo + hi);
    const g = smileFactor(p, mid);
    if (-mid / g + 0.5 * sd * g > target) lo = mid;
    else hi = mid;
  }
  return smileFactor(p, 0.5 * (lo + hi));
}
