import { Rng } from '@mdp/market';
import type { SurfaceParams } from './surface.ts';

/** What the generator knows about one underlying before modelling its options. */
export interface UnderlyingSpec {
  symbol: string;
  name: string | null;
  kind: 'index' | 'stock';
  /** Closes on each trading day of the history, in rupees as traded: the market's own prices. */
  closes: Float64Array;
  /** Daily log returns free of split and bonus jumps (the first is zero). */
  returns: Float64Array;
  /** Dividend yield (a fraction) from the market's latest dividends and the last close. */
  dividendYield: number;
  /** Last trading day of its derivatives, for underlyings whose F&O has been discontinued. */
  derivativesUntil: string | null;
}

/** The seeded character of an underlying: its volatility level, smile and positioning. */
export interface UnderlyingCharacter {
  /** Long-run ATM implied volatility (a fraction). */
  volLevel: number;
  /** Realised over implied volatility: below one (the variance risk premium). */
  realisedRatio: number;
  /** Continuous dividend yield, which sets forward over spot (the underlying's own). */
  dividendYield: number;
  skew: number;
  curvature: number;
  /** Typical put-call OI ratio. */
  pcrLevel: number;
}

const TRADING_DAYS_A_YEAR = 252;

/** Annualised close-to-close volatility of a return series (its first element is not a return). */
export function realisedVolatility(returns: Float64Array): number {
  let sum = 0;
  let sq = 0;
  const n = returns.length - 1;
  for (let i = 1; i < returns.length; i++) {
    sum += returns[i]!;
    sq += returns[i]! ** 2;
  }
  return n < 2 ? 0 : Math.sqrt(((sq - (sum * sum) / n) / (n - 1)) * TRADING_DAYS_A_YEAR);
}

/**
 * The seeded character of an underlying. Its long-run implied volatility is what its prices realised
 * over the history, grossed up by the variance risk premium (implied trades above realised).
 */
export function characterOf(spec: UnderlyingSpec, seed: number): UnderlyingCharacter {
  const rng = Rng.named(seed, `character:${spec.symbol}`);
  const realised = realisedVolatility(spec.returns);
  const implied = (ratio: number) => Math.min(1.2, Math.max(0.08, realised / ratio));
  if (spec.kind === 'index') {
    const realisedRatio = rng.uniform(0.82, 0.92);
    return {
      volLevel: implied(realisedRatio),
      realisedRatio,
      dividendYield: spec.dividendYield,
      skew: rng.uniform(-0.13, -0.09),
      curvature: rng.uniform(0.025, 0.04),
      pcrLevel: rng.uniform(0.85, 1.15),
    };
  }
  const realisedRatio = rng.uniform(0.8, 0.95);
  return {
    volLevel: implied(realisedRatio),
    realisedRatio,
    dividendYield: spec.dividendYield,
    skew: rng.uniform(-0.09, -0.03),
    curvature: rng.uniform(0.03, 0.06),
    pcrLevel: rng.uniform(0.45, 0.8),
  };
}

/** The surface of an underlying on a day, given that day's short-dated ATM volatility. */
export function surfaceOf(c: UnderlyingCharacter, atmShort: number): SurfaceParams {
  return { atmShort, atmLong: c.volLevel * 1.04, kappa: 4, skew: c.skew, curvature: c.curvature };
}

/** Market-wide swings of implied volatility over realised, shared by every underlying, one per day. */
export interface MarketFactors {
  vol: Float64Array;
}

const VOL_MEMORY_DAYS = 40;
/** How far implied volatility strays from the realised-volatility estimate, in log terms. */
const VOL_NOISE = 0.12;
/** RiskMetrics' decay of the exponentially weighted variance of daily returns. */
const EWMA_DECAY = 0.94;

/** Stationary AR(1) with unit variance: the shape every volatility noise path follows. */
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
  return { vol: ar1(Rng.named(seed, 'market'), days, VOL_MEMORY_DAYS) };
}

export interface UnderlyingPath {
  /** Closes on each trading day (the spec's). */
  closes: Float64Array;
  /** Short-dated ATM implied volatility on each day. */
  atmShort: Float64Array;
}

/**
 * Implied volatility that follows the underlying's own prices: the exponentially weighted realised
 * volatility of its returns up to each day, grossed up by the variance risk premium, times a slow
 * noise partly common to the whole market. Calm and turbulent spells of the prices are calm and
 * turbulent spells of the options.
 */
export function impliedVolPath(
  spec: UnderlyingSpec,
  c: UnderlyingCharacter,
  market: MarketFactors,
  seed: number,
): UnderlyingPath {
  const n = spec.closes.length;
  const own = ar1(Rng.named(seed, `path:${spec.symbol}`), n, VOL_MEMORY_DAYS);
  const volLoad = spec.kind === 'index' ? 0.85 : 0.6;
  const atmShort = new Float64Array(n);
  let variance = (c.volLevel * c.realisedRatio) ** 2 / TRADING_DAYS_A_YEAR;
  for (let i = 0; i < n; i++) {
    if (i > 0) variance = EWMA_DECAY * variance + (1 - EWMA_DECAY) * spec.returns[i]! ** 2;
    const y = volLoad * market.vol[i]! + Math.sqrt(1 - volLoad * volLoad) * own[i]!;
    const sigma = Math.sqrt(variance * TRADING_DAYS_A_YEAR) / c.realisedRatio;
    atmShort[i] = Math.min(2, Math.max(0.04, sigma * Math.exp(VOL_NOISE * y - 0.5 * VOL_NOISE * VOL_NOISE)));
  }
  return { closes: spec.closes, atmShort };
}
