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

function candidates(points: readonly TermPoint[]): { days: number; value: number }[] {
  const usable = points
    .filter((p): p is { days: number; value: number } => p.value !== null && p.days > 0)
    .sort((a, b) => a.days - b.days);
  const later = usable.filter((p) => p.days >= MIN_INTERPOLATION_DAYS);
  return later.length > 0 ? later : usable;
}

function bracket(points: { days: number; value: number }[], target: number) {
  let lo: { days: number; value: number } | null = null;
  let hi: { days: number; value: number } | null = null;
  for (const p of points) {
    if (p.days <= target) lo = p;
    if (p.days >= target && hi === null) hi = p;
  }
  return { lo, hi };
}

/**
 * ATM implied volatility at a constant maturity: linear in total variance σ²T between the expiries on
 * either side, flat in volatility beyond the first or last. Null without any ATM IV.
 */
export function constantMaturityVol(
  points: readonly TermPoint[],
  days = CONSTANT_MATURITY_DAYS,
): number | null {
  const { lo, hi } = bracket(candidates(points), days);
  if (lo === null && hi === null) return null;
  if (lo === null) return hi!.value;
  if (hi === null || hi.days === lo.days) return lo.value;
  const w1 = lo.value * lo.value * lo.days;
  const w2 = hi.value * hi.value * hi.days;
  const w = w1 + ((w2 - w1) * (days - lo.days)) / (hi.days - lo.days);
  // A calendar-arbitrage inversion can make the interpolated variance non-positive: fall back to vols.
  if (!(w > 0)) return lo.value + ((hi.value - lo.value) * (days - lo.days)) / (hi.days - lo.days);
  return Math.sqrt(w / days);
}

/** Any other term quantity (skew) at a constant maturity: linear in time, flat beyond the ends. */
export function constantMaturityValue(
  points: readonly TermPoint[],
  days = CONSTANT_MATURITY_DAYS,
): number | null {
  const { lo, hi } = bracket(candidates(points), days);
  if (lo === null && hi === null) return null;
  if (lo === null) return hi!.value;
  if (hi === null || hi.days === lo.days) return lo.value;
  return lo.value + ((hi.value - lo.value) * (days - lo.days)) / (hi.days - lo.days);
}
