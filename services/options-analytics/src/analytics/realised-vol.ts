/** Trading days in a year, the annualisation of close-to-close volatility. */
export const TRADING_DAYS_PER_YEAR = 252;

/**
 * Close-to-close realised volatility of the last `window` daily log returns of `closes` (consecutive
 * trading days, oldest first): the sample standard deviation (mean removed, n − 1) annualised by
 * √252, as a fraction. Null with fewer than window + 1 closes or any close that is not positive.
 */
export function realisedVol(closes: readonly number[], window = 20): number | null {
  if (window < 2 || closes.length < window + 1) return null;
  const start = closes.length - window - 1;
  let sum = 0;
  let sumSq = 0;
  for (let i = start + 1; i < closes.length; i++) {
    const a = closes[i - 1]!;
    const b = closes[i]!;
    if (!(a > 0 && b > 0)) return null;
    const r = Math.log(b / a);
    sum += r;
    sumSq += r * r;
  }
  const mean = sum / window;
  const variance = Math.max(sumSq - window * mean * mean, 0) / (window - 1);
  return Math.sqrt(variance * TRADING_DAYS_PER_YEAR);
}
