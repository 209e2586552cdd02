import type { Rng } from '@mdp/market';
import type { StrikeOi } from '../analytics/max-pain.ts';

/**
 * Open interest across strikes the way it usually sits: call writers' OI peaking a little above the
 * centre, put writers' a little below, more of both on round strikes, a thin tail far out. `centre` is a
 * lagged price (positions are built over weeks), which is what makes max pain trail the underlying.
 * Puts are scaled so that total put OI is `pcr` times total call OI. In contracts, in the rows max pain
 * reads, written into `out` when given (its rows reused, its length set): the model's daily rows need
 * only the day's max pain of it, and a fresh row per strike of every day of every underlying was much
 * of the load's garbage.
 */
export function openInterestByStrike(
  strikes: readonly number[],
  centre: number,
  width: number,
  step: number,
  peakContracts: number,
  pcr: number,
  rng: Rng,
  out: StrikeOi[] = [],
): StrikeOi[] {
  const putScale = shapeProfile(strikes, centre, width, step, pcr, rng);
  const n = strikes.length;
  for (let i = 0; i < n; i++) {
    const strike = strikes[i]!;
    const callOi = Math.round(callShare[i]! * peakContracts);
    const putOi = Math.round(putShare[i]! * putScale * peakContracts);
    const row = out[i];
    if (row) {
      row.strike = strike;
      row.callOi = callOi;
      row.putOi = putOi;
    } else out[i] = { strike, callOi, putOi };
  }
  out.length = n;
  return out;
}

// Scratch arrays of shapeProfile, reused across calls: it runs for every generated day of every
// underlying, and its results are read before the next call.
let callShare = new Float64Array(64);
let putShare = new Float64Array(64);
let callShape = new Float64Array(64);
let putShape = new Float64Array(64);
let tailShape = new Float64Array(64);

/** Fills callShare and putShare (per contract at the peak) for the strikes; returns the puts' scale. */
function shapeProfile(
  strikes: readonly number[],
  centre: number,
  width: number,
  step: number,
  pcr: number,
  rng: Rng,
): number {
  const n = strikes.length;
  if (callShare.length < n) {
    callShare = new Float64Array(n);
    putShare = new Float64Array(n);
    callShape = new Float64Array(n);
    putShape = new Float64Array(n);
    tailShape = new Float64Array(n);
  }
  gaussian(callShape, strikes, centre, width, 0.6, 0.9);
  gaussian(putShape, strikes, centre, width, -0.6, 0.9);
  gaussian(tailShape, strikes, centre, width, 0, 3);
  let callSum = 0;
  let putSum = 0;
  for (let i = 0; i < n; i++) {
    const strike = strikes[i]!;
    const round = strike % (step * 10) === 0 ? 2.2 : strike % (step * 2) === 0 ? 1.3 : 1;
    const tail = 0.08 * tailShape[i]!;
    const c = (callShape[i]! + tail) * round * (0.7 + 0.6 * rng.next());
    const p = (putShape[i]! + tail) * round * (0.7 + 0.6 * rng.next());
    callShare[i] = c;
    putShare[i] = p;
    callSum += c;
    putSum += p;
  }
  return putSum > 0 ? (pcr * callSum) / putSum : 0;
}

/**
 * exp(−½((x_i − mean)/sd)²) at each strike into `out`, where x_i = (strike − centre)/width. Ladders
 * are evenly spaced, where consecutive values differ by a ratio that itself changes by a constant
 * factor: two multiplications a strike instead of an exponential.
 */
function gaussian(
  out: Float64Array,
  strikes: readonly number[],
  centre: number,
  width: number,
  mean: number,
  sd: number,
): void {
  const n = strikes.length;
  if (n === 0) return;
  const a = 0.5 / (sd * sd);
  const x0 = (strikes[0]! - centre) / width;
  const h = n > 1 ? (strikes[1]! - centre) / width - x0 : 0;
  const even =
    n < 3 || Math.abs(strikes[n - 1]! - strikes[0]! - (n - 1) * (strikes[1]! - strikes[0]!)) < 1e-6;
  if (!even) {
    for (let i = 0; i < n; i++) out[i] = Math.exp(-a * ((strikes[i]! - centre) / width - mean) ** 2);
    return;
  }
  const d0 = x0 - mean;
  let value = Math.exp(-a * d0 * d0);
  let ratio = Math.exp(-a * (2 * d0 * h + h * h));
  const factor = Math.exp(-2 * a * h * h);
  for (let i = 0; i < n; i++) {
    out[i] = value;
    value *= ratio;
    ratio *= factor;
  }
}

/** `count` strikes each side of the one nearest `around`, on multiples of `step`, all positive. */
export function strikeLadder(around: number, step: number, count: number): number[] {
  const atm = Math.round(around / step) * step;
  const out: number[] = [];
  for (let i = -count; i <= count; i++) {
    const k = Math.round((atm + i * step) * 100) / 100;
    if (k > 0) out.push(k);
  }
  return out;
}
