/** The maturity of the daily ATM IV and skew series: 30 calendar days. */
export const CONSTANT_MATURITY_DAYS = 30;
/** Expiries closer than this are left out of the interpolation when any later one exists (their IVs are noisy). */
const MIN_INTERPOLATION_DAYS = 7;

export interface TermPoint {
  /** Calendar days to expiry. */
  days: number;
  /** Value at that expiry (a fraction), or null. */
  value: number | null;
}

/** An expiry with a value. */
type Expiry = { days: number; value: number };

function candidates(points: readonly TermPoint[]): Expiry[] {
  const usable = points
    .filter((p): p is Expiry => p.value !== null && p.days > 0)
    .sort((a, b) => a.days - b.days);
  const later = usable.filter((p) => p.days >= MIN_INTERPOLATION_DAYS);
  return later.length > 0 ? later : usable;
}

function bracket(points: Expiry[], target: number) {
  let lo: Expiry | null = null;
  let hi: Expiry | null = null;
  for (const p of points) {
    if (p.days <= target) lo = p;
    if (p.days >= target && hi === null) hi = p;
  }
  return { lo, hi };
}

/**
 * A term quantity at `days`: null without any point, flat beyond the first or last expiry (or at one),
 * else `between` the expiries on either side.
 */
function atMaturity(
  points: readonly TermPoint[],
  days: number,
  between: (lo: Expiry, hi: Expiry, days: number) => number,
): number | null {
  const { lo, hi } = bracket(candidates(points), days);
  if (lo === null && hi === null) return null;
  if (lo === null) return hi!.value;
  if (hi === null || hi.days === lo.days) return lo.value;
  return between(lo, hi, days);
}

/** Linear in time between two expiries. */
function linear(lo: Expiry, hi: Expiry, days: number): number {
  return lo.value + ((hi.value - lo.value) * (days - lo.days)) / (hi.days - lo.days);
}

/** Linear in total variance σ²T between two expiries' vols. */
function linearVariance(lo: Expiry, hi: Expiry, days: number): number {
  const w1 = lo.value * lo.value * lo.days;
  const w2 = hi.value * hi.value * hi.days;
  const w = w1 + ((w2 - w1) * (days - lo.days)) / (hi.days - lo.days);
  // A calendar-arbitrage inversion can make the interpolated variance non-positive: fall back to vols.
  if (!(w > 0)) return linear(lo, hi, days);
  return Math.sqrt(w / days);
}

/**
 * ATM implied volatility at a constant maturity: linear in total variance σ²T between the expiries on
 * either side, flat in volatility beyond the first or last. Null without any ATM IV.
 */
export function constantMaturityVol(
  points: readonly TermPoint[],
  days = CONSTANT_MATURITY_DAYS,
): number | null {
  return atMaturity(points, days, linearVariance);
}

/** Any other term quantity (skew) at a constant maturity: linear in time, flat beyond the ends. */
export function constantMaturityValue(
  points: readonly TermPoint[],
  days = CONSTANT_MATURITY_DAYS,
): number | null {
  return atMaturity(points, days, linear);
}
