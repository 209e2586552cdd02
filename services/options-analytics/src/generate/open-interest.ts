import type { Rng } from '@mdp/market';

export interface StrikeContracts {
  strike: number;
  /** Open interest in contracts. */
  calls: number;
  puts: number;
}

/**
 * Open interest across strikes the way it usually sits: call writers' OI peaking a little above the
 * centre, put writers' a little below, more of both on round strikes, a thin tail far out. `centre` is a
 * lagged price (positions are built over weeks), which is what makes max pain trail the underlying.
 * Puts are scaled so that total put OI is `pcr` times total call OI.
 */
export function openInterestProfile(
  strikes: readonly number[],
  centre: number,
  width: number,
  step: number,
  peakContracts: number,
  pcr: number,
  rng: Rng,
): StrikeContracts[] {
  const n = strikes.length;
  const x = (i: number) => (strikes[i]! - centre) / width;
  const callShape = gaussian(strikes, x, 0.6, 0.9);
  const putShape = gaussian(strikes, x, -0.6, 0.9);
  const tailShape = gaussian(strikes, x, 0, 3);
  const calls = new Float64Array(n);
  const puts = new Float64Array(n);
  let callSum = 0;
  let putSum = 0;
  for (let i = 0; i < n; i++) {
    const strike = strikes[i]!;
    const round = strike % (step * 10) === 0 ? 2.2 : strike % (step * 2) === 0 ? 1.3 : 1;
    const tail = 0.08 * tailShape[i]!;
    const c = (callShape[i]! + tail) * round * (0.7 + 0.6 * rng.next());
    const p = (putShape[i]! + tail) * round * (0.7 + 0.6 * rng.next());
    calls[i] = c;
    puts[i] = p;
    callSum += c;
    putSum += p;
  }
  const putScale = putSum > 0 ? (pcr * callSum) / putSum : 0;
  const out: StrikeContracts[] = new Array(n);
  for (let i = 0; i < n; i++)
    out[i] = {
      strike: strikes[i]!,
      calls: Math.round(calls[i]! * peakContracts),
      puts: Math.round(puts[i]! * putScale * peakContracts),
    };
  return out;
}

/**
 * exp(−½((x_i − mean)/sd)²) at each strike. Ladders are evenly spaced, where consecutive values differ
 * by a ratio that itself changes by a constant factor: two multiplications a strike instead of an
 * exponential (this runs for every generated day of every underlying).
 */
function gaussian(
  strikes: readonly number[],
  x: (i: number) => number,
  mean: number,
  sd: number,
): Float64Array {
  const n = strikes.length;
  const out = new Float64Array(n);
  if (n === 0) return out;
  const a = 0.5 / (sd * sd);
  const h = n > 1 ? x(1) - x(0) : 0;
  const even =
    n < 3 || Math.abs(strikes[n - 1]! - strikes[0]! - (n - 1) * (strikes[1]! - strikes[0]!)) < 1e-6;
  if (!even) {
    for (let i = 0; i < n; i++) out[i] = Math.exp(-a * (x(i) - mean) ** 2);
    return out;
  }
  const d0 = x(0) - mean;
  let value = Math.exp(-a * d0 * d0);
  let ratio = Math.exp(-a * (2 * d0 * h + h * h));
  const factor = Math.exp(-2 * a * h * h);
  for (let i = 0; i < n; i++) {
    out[i] = value;
    value *= ratio;
    ratio *= factor;
  }
  return out;
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
