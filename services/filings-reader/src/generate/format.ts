/** Indian digit grouping: 1234567 -> "12,34,567". */
export function inr(n: number): string {
  const s = Math.abs(n).toFixed(0);
  const last3 = s.slice(-3);
  const rest = s.slice(0, -3).replace(/\B(?=(\d{2})+(?!\d))/g, ',');
  return `${n < 0 ? '-' : ''}${rest ? `${rest},${last3}` : last3}`;
}

/** `x` to `digits` decimals, as a number: what a document prints is also what its arithmetic uses. */
export function round(x: number, digits = 1): number {
  return Number(x.toFixed(digits));
}
