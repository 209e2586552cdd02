/** Number formatting for responses: no NaN or Infinity ever reaches JSON (they become null). */

export function round(x: number | null | undefined, decimals: number): number | null {
  if (x === null || x === undefined || !Number.isFinite(x)) return null;
  const f = 10 ** decimals;
  return Math.round(x * f) / f;
}

/** `digits` significant digits, for quantities spanning many magnitudes (gamma). */
export function significant(x: number | null | undefined, digits: number): number | null {
  if (x === null || x === undefined || !Number.isFinite(x)) return null;
  if (x === 0) return 0;
  return Number(x.toPrecision(digits));
}

/** A fraction as a percent (IV fields are percents): 0.1523 → 15.23. */
export function percent(x: number | null | undefined, decimals = 4): number | null {
  return x === null || x === undefined ? null : round(x * 100, decimals);
}
