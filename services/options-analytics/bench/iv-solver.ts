// Implied-volatility solves per second on one core: figures, not assertions.
// Run: npx tsx services/options-analytics/bench/iv-solver.ts   (IV_BENCH_N, IV_BENCH_REPS to change the size)
import { Rng } from '@mdp/market';
import { black76, type OptionType } from '../src/analytics/black.ts';
import { analyseExpiry, type OptionQuote } from '../src/analytics/chain-analytics.ts';
import { impliedVol } from '../src/analytics/implied-vol.ts';
import { marketCloseMs } from '../src/analytics/time.ts';

const N = Number(process.env.IV_BENCH_N ?? 1_000_000);
const REPS = Number(process.env.IV_BENCH_REPS ?? 7);

interface Batch {
  name: string;
  price: Float64Array;
  strike: Float64Array;
  t: Float64Array;
  df: Float64Array;
  call: Uint8Array;
}

/** `n` options on a forward of 100 drawn from the given ranges, priced exactly with Black-76. */
function batch(
  name: string,
  n: number,
  days: [number, number],
  vols: [number, number],
  sds: number,
  rng: Rng,
): Batch {
  const b: Batch = {
    name,
    price: new Float64Array(n),
    strike: new Float64Array(n),
    t: new Float64Array(n),
    df: new Float64Array(n),
    call: new Uint8Array(n),
  };
  for (let i = 0; i < n; i++) {
    const t = rng.uniform(days[0], days[1]) / 365;
    const sigma = Math.exp(rng.uniform(Math.log(vols[0]), Math.log(vols[1])));
    const k = 100 * Math.exp(rng.uniform(-sds, sds) * sigma * Math.sqrt(t));
    const type: OptionType = rng.chance(0.5) ? 'call' : 'put';
    b.t[i] = t;
    b.strike[i] = k;
    b.df[i] = Math.exp(-0.065 * t);
    b.call[i] = type === 'call' ? 1 : 0;
    b.price[i] = black76(100, k, t, sigma, b.df[i]!, type);
  }
  return b;
}

function solveAll(b: Batch): { ms: number; nulls: number; sum: number } {
  const n = b.price.length;
  let nulls = 0;
  let sum = 0;
  const start = performance.now();
  for (let i = 0; i < n; i++) {
    const iv = impliedVol(b.price[i]!, 100, b.strike[i]!, b.t[i]!, b.df[i]!, b.call[i] ? 'call' : 'put');
    if (iv === null) nulls++;
    else sum += iv;
  }
  return { ms: performance.now() - start, nulls, sum };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

export function benchSolver(): string[] {
  const rng = new Rng(20260327);
  const batches = [
    batch('market mix: 1-365 days, 5-100% vol, ±3 sd', N, [1, 365], [0.05, 1], 3, rng),
    batch('wings: 1-365 days, 5-100% vol, ±8 sd', N, [1, 365], [0.05, 1], 8, rng),
    batch('near expiry: 15 min-2 days, 5-150% vol, ±4 sd', N, [1 / 96, 2], [0.05, 1.5], 4, rng),
  ];
  const lines: string[] = [];
  for (const b of batches) {
    solveAll(b); // warm-up: JIT
    const runs = Array.from({ length: REPS }, () => solveAll(b));
    const rates = runs.map((r) => N / (r.ms / 1000));
    lines.push(
      `${b.name.padEnd(48)} ${(median(rates) / 1e6).toFixed(2).padStart(6)} M solves/s median, ${(Math.max(...rates) / 1e6).toFixed(2)} best, ${runs[0]!.nulls} without IV`,
    );
  }
  return lines;
}

/** Whole-chain analytics: forward, IV and Greeks of every option, ATM IV, skew, max pain, PCR. */
export function benchChainAnalytics(): string {
  const rng = new Rng(7);
  const options: OptionQuote[] = [];
  for (let k = 20000; k <= 26000; k += 50)
    for (const type of ['call', 'put'] as const) {
      const price = black76(23000, k, 11 / 365, 0.15 + 0.2 * ((k - 23000) / 23000) ** 2, 0.998, type);
      options.push({
        strike: k,
        type,
        close: Math.max(0.05, Math.round(price * 20) / 20),
        last: price,
        bid: null,
        ask: null,
        oi: Math.round(rng.uniform(1e4, 1e6)) * 65,
        oiChange: 0,
        volume: 1000,
        lotSize: 65,
      });
    }
  const ctx = { snapshotMs: marketCloseMs('2026-03-27'), spot: 22990, r: 0.065 };
  const q = { expiry: '2026-04-07', options, futureClose: null };
  for (let i = 0; i < 200; i++) analyseExpiry(q, ctx);
  const reps = 2000;
  const start = performance.now();
  for (let i = 0; i < reps; i++) analyseExpiry(q, ctx);
  const us = ((performance.now() - start) * 1000) / reps;
  return `one expiry of ${options.length} options analysed in ${us.toFixed(0)} µs (${(((options.length / us) * 1e6) / 1e6).toFixed(2)} M options/s with Greeks)`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(
    `Black-76 implied volatility, ${N.toLocaleString('en-US')} options a batch, ${REPS} runs, one core\n`,
  );
  for (const line of benchSolver()) console.log(line);
  console.log(`\n${benchChainAnalytics()}`);
}
