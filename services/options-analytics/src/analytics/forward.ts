/**
 * The forward an expiry's options are priced off. Where calls and puts of the same strike both traded,
 * put-call parity C − P = df·(F − K) gives F = K + (C − P)/df at each such strike; the strikes where
 * |C − P| is smallest are nearest the money, where both prices are most liquid, and the median of the
 * three nearest is the estimate (one stale print cannot move it). Dividends and the cost of carry are
 * then whatever the market implies. Without any such pair the same-expiry future's close is used;
 * without that, the carry rate ln(F/S)/T implied at the nearest expiry that has a market forward; and
 * with none at all, spot carried at the risk-free rate with no dividend yield.
 */
export type ForwardSource = 'put_call_parity' | 'future' | 'implied_carry' | 'spot_carry';

export interface ParityPair {
  strike: number;
  call: number;
  put: number;
}

const PAIRS_USED = 3;

/** The parity-implied forward from traded call/put pairs, or null without any usable pair. */
export function parityForward(pairs: readonly ParityPair[], df: number): number | null {
  const usable = pairs
    .filter((p) => p.call > 0 && p.put > 0 && p.strike > 0)
    .sort((a, b) => Math.abs(a.call - a.put) - Math.abs(b.call - b.put) || a.strike - b.strike)
    .slice(0, PAIRS_USED)
    .map((p) => p.strike + (p.call - p.put) / df)
    .filter((f) => f > 0)
    .sort((a, b) => a - b);
  if (usable.length === 0) return null;
  const mid = usable.length >> 1;
  return usable.length % 2 === 1 ? usable[mid]! : 0.5 * (usable[mid - 1]! + usable[mid]!);
}

export interface ForwardInput {
  pairs: readonly ParityPair[];
  futureClose: number | null;
  spot: number;
  /** Years to expiry. */
  t: number;
  r: number;
}

/** The forward from this expiry's own prices: parity, else its future; null when it has neither. */
export function marketForward(input: ForwardInput): { forward: number; source: ForwardSource } | null {
  const parity = parityForward(input.pairs, Math.exp(-input.r * input.t));
  if (parity !== null) return { forward: parity, source: 'put_call_parity' };
  if (input.futureClose !== null && input.futureClose > 0)
    return { forward: input.futureClose, source: 'future' };
  return null;
}

/**
 * The forward of an expiry: its market forward, else spot carried at `carry` (the rate ln(F/S)/T of a
 * neighbouring expiry), else spot carried at r.
 */
export function impliedForward(
  input: ForwardInput,
  carry: number | null = null,
): { forward: number; source: ForwardSource } {
  const market = marketForward(input);
  if (market) return market;
  if (carry !== null) return { forward: input.spot * Math.exp(carry * input.t), source: 'implied_carry' };
  return { forward: input.spot * Math.exp(input.r * input.t), source: 'spot_carry' };
}
