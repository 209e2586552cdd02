import { Rng } from './rng.ts';
import type { SurfaceParams } from './surface.ts';

/** What the generator knows about one underlying before simulating it. */
export interface UnderlyingSpec {
  symbol: string;
  name: string | null;
  kind: 'index' | 'stock';
  /** The close on the last generated day. */
  level: number;
  /** Last trading day of its derivatives, for underlyings whose F&O has been discontinued. */
  derivativesUntil: string | null;
}

/** The seeded character of an underlying: its volatility level, smile and positioning. */
export interface UnderlyingCharacter {
  /** Long-run ATM implied volatility (a fraction). */
  volLevel: number;
  /** Realised over implied volatility: below one (the variance risk premium). */
  realisedRatio: number;
  /** Continuous dividend yield, which sets forward over spot. */
  dividendYield: number;
  skew: number;
  curvature: number;
  /** Loading on the market factor of returns and of volatility. */
  beta: number;
  /** Typical put-call OI ratio. */
  pcrLevel: number;
}

const INDEX_VOLS: Record<string, number> = {
  NIFTY: 0.14,
  BANKNIFTY: 0.17,
  FINNIFTY: 0.16,
  MIDCPNIFTY: 0.19,
  NIFTYNXT50: 0.17,
};

export function characterOf(spec: UnderlyingSpec, seed: number): UnderlyingCharacter {
  const rng = Rng.named(seed, `character:${spec.symbol}`);
  if (spec.kind === 'index')
    return {
      volLevel: INDEX_VOLS[spec.symbol] ?? 0.17,
      realisedRatio: rng.uniform(0.82, 0.92),
      dividendYield: rng.uniform(0.01, 0.014),
      skew: rng.uniform(-0.13, -0.09),
      curvature: rng.uniform(0.025, 0.04),
      beta: 1,
      pcrLevel: rng.uniform(0.85, 1.15),
    };
  return {
    volLevel: Math.min(0.7, Math.max(0.18, 0.3 * Math.exp(0.25 * rng.normal()))),
    realisedRatio: rng.uniform(0.8, 0.95),
    dividendYield: rng.uniform(0, 0.02),
    skew: rng.uniform(-0.09, -0.03),
    curvature: rng.uniform(0.03, 0.06),
    beta: rng.uniform(0.6, 1.3),
    pcrLevel: rng.uniform(0.45, 0.8),
  };
}

/** The surface of an underlying on a day, given that day's short-dated ATM volatility. */
export function surfaceOf(c: UnderlyingCharacter, atmShort: number): SurfaceParams {
  return { atmShort, atmLong: c.volLevel * 1.04, kappa: 4, skew: c.skew, curvature: c.curvature };
}

/** Market-wide shocks shared by every underlying: one return factor and one volatility factor per day. */
export interface MarketFactors {
  returns: Float64Array;
  vol: Float64Array;
}

const VOL_MEMORY_DAYS = 40;
const VOL_OF_VOL = 0.28;

/** Stationary AR(1) in log-volatility with unit variance: the shape every volatility path follows. */
function ar1(rng: Rng, n: number, memoryDays: number): Float64Array {
  const a = Math.exp(-1 / memoryDays);
  const b = Math.sqrt(1 - a * a);
  const out = new Float64Array(n);
  let y = rng.normal();
  for (let i = 0; i < n; i++) {
    y = a * y + b * rng.normal();
    out[i] = y;
  }
  return out;
}

export function marketFactors(seed: number, days: number): MarketFactors {
  const rng = Rng.named(seed, 'market');
  const returns = new Float64Array(days);
  for (let i = 0; i < days; i++) returns[i] = rng.normal();
  return { returns, vol: ar1(rng, days, VOL_MEMORY_DAYS) };
}

export interface UnderlyingPath {
  /** Closes on each trading day, the last equal to the spec's level. */
  closes: Float64Array;
  /** Short-dated ATM implied volatility on each day. */
  atmShort: Float64Array;
}

/**
 * Simulates an underlying over the trading days: log-volatility mean-reverting around its level with
 * a market component; daily log returns with that volatility times the realised/implied ratio, loaded
 * on the market return factor; scaled at the end so the last close is the spec's level.
 */
export function simulatePath(
  spec: UnderlyingSpec,
  c: UnderlyingCharacter,
  market: MarketFactors,
  seed: number,
): UnderlyingPath {
  const n = market.returns.length;
  const rng = Rng.named(seed, `path:${spec.symbol}`);
  const own = ar1(rng, n, VOL_MEMORY_DAYS);
  const atmShort = new Float64Array(n);
  const closes = new Float64Array(n);
  const rho = spec.kind === 'index' ? 0.9 : Math.min(0.8, 0.45 * c.beta);
  const volLoad = spec.kind === 'index' ? 0.85 : 0.6;
  let logPrice = 0;
  for (let i = 0; i < n; i++) {
    const y = volLoad * market.vol[i]! + Math.sqrt(1 - volLoad * volLoad) * own[i]!;
    const sigma = c.volLevel * Math.exp(VOL_OF_VOL * y - 0.5 * VOL_OF_VOL * VOL_OF_VOL);
    atmShort[i] = sigma;
    if (i > 0) {
      const daily = (sigma * c.realisedRatio) / Math.sqrt(252);
      const shock = rho * market.returns[i]! + Math.sqrt(1 - rho * rho) * rng.normal();
      logPrice += 0.08 / 252 - 0.5 * daily * daily + daily * shock;
    }
    closes[i] = logPrice;
  }
  const shift = Math.log(spec.level) - logPrice;
  for (let i = 0; i < n; i++) closes[i] = Math.exp(closes[i]! + shift);
  return { closes, atmShort };
}
