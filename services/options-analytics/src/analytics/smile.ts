/** One strike of one expiry with whatever implied volatilities and deltas it has (fractions). */
export interface SmilePoint {
  strike: number;
  callIv: number | null;
  putIv: number | null;
  callDelta: number | null;
  putDelta: number | null;
}

/** The out-of-the-money side's IV at a strike (puts below the forward, calls at and above), else the other. */
function otmIv(p: SmilePoint, forward: number): number | null {
  return p.strike < forward ? (p.putIv ?? p.callIv) : (p.callIv ?? p.putIv);
}

/**
 * ATM implied volatility: the smile interpolated linearly in strike to the forward, between the nearest
 * strikes on each side of it that have an IV (the out-of-the-money option's, which is the liquid one).
 * Null when the forward is not bracketed. Points must be sorted by strike.
 */
export function atmIv(points: readonly SmilePoint[], forward: number): number | null {
  let below: { k: number; iv: number } | null = null;
  let above: { k: number; iv: number } | null = null;
  for (const p of points) {
    const iv = otmIv(p, forward);
    if (iv === null) continue;
    if (p.strike <= forward) below = { k: p.strike, iv };
    if (p.strike >= forward && above === null) above = { k: p.strike, iv };
  }
  if (below === null || above === null) return null;
  if (above.k === below.k) return below.iv;
  return below.iv + ((forward - below.k) * (above.iv - below.iv)) / (above.k - below.k);
}

/** IV at a delta, linear in delta between the two adjacent points that straddle it, walking `ordered`. */
function ivAtDelta(ordered: readonly { delta: number; iv: number }[], target: number): number | null {
  for (let i = 0; i + 1 < ordered.length; i++) {
    const a = ordered[i]!;
    const b = ordered[i + 1]!;
    if ((a.delta - target) * (b.delta - target) <= 0 && a.delta !== b.delta)
      return a.iv + ((target - a.delta) * (b.iv - a.iv)) / (b.delta - a.delta);
  }
  return null;
}

export const SKEW_DELTA = 0.25;

/**
 * 25-delta skew: the put IV at delta −0.25 minus the call IV at delta +0.25, each interpolated linearly
 * in delta between the listed strikes that straddle it (searching outward from the money, so a noisy
 * far wing cannot pick a second crossing). A fraction; positive for the usual equity skew. Null when
 * either side is not bracketed. Points must be sorted by strike.
 */
export function skew25(points: readonly SmilePoint[]): number | null {
  const calls: { delta: number; iv: number }[] = [];
  const puts: { delta: number; iv: number }[] = [];
  for (const p of points) {
    if (p.callIv !== null && p.callDelta !== null) calls.push({ delta: p.callDelta, iv: p.callIv });
    if (p.putIv !== null && p.putDelta !== null) puts.push({ delta: p.putDelta, iv: p.putIv });
  }
  // Call deltas fall with the strike and puts' rise towards zero below it: walk calls upwards from the
  // in-the-money end and puts downwards, so the first crossing found is the one nearest the money.
  const call = ivAtDelta(calls, SKEW_DELTA);
  const put = ivAtDelta(puts.reverse(), -SKEW_DELTA);
  return call === null || put === null ? null : put - call;
}
