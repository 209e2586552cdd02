/**
 * The normal distribution and the error functions it is built on, to full double precision in both
 * tails. erf/erfc/erfcx follow W. J. Cody's rational Chebyshev approximations ("Rational Chebyshev
 * approximations for the error function", Math. Comp. 23, 1969; netlib specfun CALERF), whose relative
 * error is below 1e-16 on the whole line. The tails matter here: an out-of-the-money option's value is a
 * difference of two tail probabilities, and the implied-volatility solver works with its logarithm.
 */

const SQRT_2 = Math.SQRT2;
const SQRT_2PI = 2.5066282746310002;
export const INV_SQRT_2PI = 0.3989422804014327;
const INV_SQRT_PI = 0.5641895835477563;
const THRESHOLD = 0.46875;
/** erfc(x) underflows to 0 beyond this. */
const ERFC_ZERO = 26.543;
/** erfcx(x) = 1/(x√π) to double precision beyond this. */
const ERFCX_ASYMPTOTIC = 67100000;
/** erfcx(x) overflows below this. */
const ERFCX_OVERFLOW = -26.628;

/** erf(x) for |x| ≤ 0.46875. */
function erfSmall(x: number): number {
  const y = x * x;
  const num =
    (((0.18577770618460315 * y + 3.1611237438705655) * y + 113.86415415105016) * y + 377.485237685302) * y +
    3209.3775891384694;
  const den =
    (((y + 23.601290952344122) * y + 244.02463793444417) * y + 1282.6165260773723) * y + 2844.236833439171;
  return (x * num) / den;
}

/** erfcx(y) for 0.46875 < y ≤ 4. */
function erfcxMiddle(y: number): number {
  const num =
    (((((((2.1531153547440383e-8 * y + 0.5641884969886701) * y + 8.883149794388377) * y + 66.11919063714163) *
      y +
      298.6351381974001) *
      y +
      881.952221241769) *
      y +
      1712.0476126340707) *
      y +
      2051.0783778260716) *
      y +
    1230.3393547979972;
  const den =
    (((((((y + 15.744926110709835) * y + 117.6939508913125) * y + 537.1811018620099) * y +
      1621.3895745666903) *
      y +
      3290.7992357334597) *
      y +
      4362.619090143247) *
      y +
      3439.3676741437216) *
      y +
    1230.3393548037495;
  return num / den;
}

/** erfcx(y) for y > 4. */
function erfcxLarge(y: number): number {
  if (y >= ERFCX_ASYMPTOTIC) return INV_SQRT_PI / y;
  const z = 1 / (y * y);
  const num =
    ((((0.016315387137302097 * z + 0.30532663496123236) * z + 0.36034489994980445) * z +
      0.12578172611122926) *
      z +
      0.016083785148742275) *
      z +
    0.0006587491615298378;
  const den =
    ((((z + 2.568520192289822) * z + 1.8729528499234604) * z + 0.5279051029514285) * z +
      0.06051834131244132) *
      z +
    0.0023352049762686918;
  return (INV_SQRT_PI - (z * num) / den) / y;
}

/**
 * exp(-y²) without the relative error of rounding y² first: y is split into a part with four
 * fractional bits, whose square is exact, and the rest (Cody's device).
 */
function expMinusSquare(y: number): number {
  const head = Math.trunc(y * 16) / 16;
  return Math.exp(-head * head) * Math.exp(-(y - head) * (y + head));
}

export function erf(x: number): number {
  const y = Math.abs(x);
  if (y <= THRESHOLD) return erfSmall(x);
  const r = 1 - (y <= 4 ? erfcxMiddle(y) : erfcxLarge(y)) * expMinusSquare(y);
  return x < 0 ? -r : r;
}

/** The complementary error function 1 − erf(x), accurate relative to its own size for large x. */
export function erfc(x: number): number {
  const y = Math.abs(x);
  if (y <= THRESHOLD) return 1 - erfSmall(x);
  let r: number;
  if (y >= ERFC_ZERO) r = 0;
  else r = (y <= 4 ? erfcxMiddle(y) : erfcxLarge(y)) * expMinusSquare(y);
  return x < 0 ? 2 - r : r;
}

/** The scaled complementary error function exp(x²)·erfc(x), which never underflows for x > 0. */
export function erfcx(x: number): number {
  const y = Math.abs(x);
  if (y <= THRESHOLD) return Math.exp(x * x) * (1 - erfSmall(x));
  if (x > 0) return y <= 4 ? erfcxMiddle(y) : erfcxLarge(y);
  if (x < ERFCX_OVERFLOW) return Number.POSITIVE_INFINITY;
  const r = y <= 4 ? erfcxMiddle(y) : erfcxLarge(y);
  return 2 / expMinusSquare(y) - r;
}

/** Φ(z), the standard normal distribution function, accurate relative to its size for z < 0. */
export function normCdf(z: number): number {
  return 0.5 * erfc(-z / SQRT_2);
}

/** φ(z), the standard normal density. */
export function normPdf(z: number): number {
  return INV_SQRT_2PI * Math.exp(-0.5 * z * z);
}

// Acklam's rational approximation of Φ⁻¹ (relative error below 1.2e-9), refined by one Halley step
// against the accurate Φ above, which brings it to about machine precision.
const IA = [
  -39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716,
  2.506628277459239,
] as const;
const IB = [
  -54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572,
] as const;
const IC = [
  -0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968,
  2.938163982698783,
] as const;
const ID = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416] as const;
const P_LOW = 0.02425;

function acklam(p: number): number {
  if (p < P_LOW) {
    const q = Math.sqrt(-2 * Math.log(p));
    return (
      (((((IC[0] * q + IC[1]) * q + IC[2]) * q + IC[3]) * q + IC[4]) * q + IC[5]) /
      ((((ID[0] * q + ID[1]) * q + ID[2]) * q + ID[3]) * q + 1)
    );
  }
  if (p <= 1 - P_LOW) {
    const q = p - 0.5;
    const r = q * q;
    return (
      ((((((IA[0] * r + IA[1]) * r + IA[2]) * r + IA[3]) * r + IA[4]) * r + IA[5]) * q) /
      (((((IB[0] * r + IB[1]) * r + IB[2]) * r + IB[3]) * r + IB[4]) * r + 1)
    );
  }
  return -acklam(1 - p);
}

/** Φ⁻¹(p) for 0 < p < 1; −∞ and +∞ at the ends, NaN outside. */
export function inverseNormCdf(p: number): number {
  if (!(p >= 0 && p <= 1)) return Number.NaN;
  if (p === 0) return Number.NEGATIVE_INFINITY;
  if (p === 1) return Number.POSITIVE_INFINITY;
  if (p > 0.5) return -inverseNormCdf(1 - p);
  const x = acklam(p);
  const e = normCdf(x) - p;
  const u = e * SQRT_2PI * Math.exp(0.5 * x * x);
  return x - u / (1 + 0.5 * x * u);
}
