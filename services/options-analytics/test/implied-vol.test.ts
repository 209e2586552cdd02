import { describe, expect, it } from 'vitest';
import { black76, blackScholes, intrinsic, normalisedVega, type OptionType } from '../src/analytics/black.ts';
import { impliedVol } from '../src/analytics/implied-vol.ts';

const EPS = Number.EPSILON;
const R = 0.065;
const MINUTE = 1 / (365 * 24 * 60);
const EXPIRIES = [15 * MINUTE, 60 * MINUTE, 1 / 365, 2 / 365, 7 / 365, 30 / 365, 91 / 365, 1, 2, 5];
const VOLS = [0.01, 0.03, 0.05, 0.1, 0.15, 0.2, 0.3, 0.5, 0.75, 1, 1.5, 2, 3];
/** Standardised moneyness ln(K/F)/(σ√T) from −6 to +6, and fixed strike ratios out to 5x either way. */
const Z = Array.from({ length: 49 }, (_, i) => -6 + i * 0.25);
const RATIOS = [0.2, 0.5, 0.8, 0.95, 1, 1.05, 1.25, 2, 5];
const TYPES: OptionType[] = ['call', 'put'];

/** ∂price/∂σ, to judge how well a price can pin a volatility down at all. */
function vega(f: number, k: number, t: number, sigma: number, df: number): number {
  const x = -Math.abs(Math.log(f / k));
  return df * Math.sqrt(f * k) * normalisedVega(x, sigma * Math.sqrt(t)) * Math.sqrt(t);
}

/**
 * A price whose time value rounded away, or is down to its last few bits (deep in the money), or that
 * underflowed, or that sits on its upper bound (volatility so high the option is worth the forward),
 * has no IV to find: the solver may say null, or give any positive finite volatility.
 */
function timeValueLost(price: number, f: number, k: number, df: number, type: OptionType): boolean {
  const undiscounted = price / df;
  const timeValue = undiscounted - intrinsic(f, k, type);
  return !(timeValue > 1024 * EPS * undiscounted && timeValue < Math.min(f, k) * (1 - 1024 * EPS));
}

function acceptableWithoutTimeValue(iv: number | null): boolean {
  return iv === null || (iv > 0 && Number.isFinite(iv));
}

/**
 * The IV is right when it is within 1e-8 of the volatility that made the price, or, where the price
 * cannot tell volatilities that close apart (deep in the money: the time value is a few bits of the
 * price), when it reprices to the last bits.
 */
function roundTrips(
  iv: number,
  sigma: number,
  price: number,
  f: number,
  k: number,
  t: number,
  df: number,
  type: OptionType,
): boolean {
  if (Math.abs(iv - sigma) < 1e-8) return true;
  return Math.abs(black76(f, k, t, iv, df, type) - price) <= 64 * EPS * price;
}

interface Case {
  f: number;
  k: number;
  t: number;
  sigma: number;
  type: OptionType;
}

function* grid(): Generator<Case> {
  for (const f of [100, 22819.6])
    for (const t of EXPIRIES)
      for (const sigma of VOLS) {
        const strikes = [
          ...Z.map((z) => f * Math.exp(z * sigma * Math.sqrt(t))),
          ...RATIOS.map((r) => f * r),
        ];
        for (const k of strikes) for (const type of TYPES) yield { f, k, t, sigma, type };
      }
}

describe('implied volatility: price → IV → price round trip over a grid', () => {
  it('recovers σ to 1e-8 wherever the price determines it to that accuracy, and reprices every point', () => {
    let checked = 0;
    let wellConditioned = 0;
    let worst = 0;
    for (const { f, k, t, sigma, type } of grid()) {
      const df = Math.exp(-R * t);
      const price = black76(f, k, t, sigma, df, type);
      const iv = impliedVol(price, f, k, t, df, type);
      const label = `F=${f} K=${k} T=${t} σ=${sigma} ${type} price=${price}`;
      if (timeValueLost(price, f, k, df, type)) {
        expect(acceptableWithoutTimeValue(iv), label).toBe(true);
        continue;
      }
      checked++;
      expect(iv, label).not.toBeNull();
      expect(Number.isFinite(iv)).toBe(true);
      expect(roundTrips(iv!, sigma, price, f, k, t, df, type), label).toBe(true);
      // The volatility an error of a few units in the last place of the price stands for.
      const resolution = (4 * EPS * price) / vega(f, k, t, sigma, df);
      if (resolution < 1e-10) {
        wellConditioned++;
        const err = Math.abs(iv! - sigma);
        worst = Math.max(worst, err);
        expect(err, label).toBeLessThan(1e-8);
      }
    }
    expect(checked).toBeGreaterThan(14_000);
    expect(wellConditioned / checked).toBeGreaterThan(0.85);
    expect(worst).toBeLessThan(1e-9);
  });

  it('is robust on random inputs: 15 minutes to 10 years, 0.5% to 500% vol, ±8 standard deviations', () => {
    let seed = 20260327;
    const rnd = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    for (let i = 0; i < 50_000; i++) {
      const t = Math.exp(Math.log(15 * MINUTE) + rnd() * (Math.log(10) - Math.log(15 * MINUTE)));
      const sigma = Math.exp(Math.log(0.005) + rnd() * (Math.log(5) - Math.log(0.005)));
      const k = 100 * Math.exp((rnd() * 2 - 1) * 8 * sigma * Math.sqrt(t));
      const type: OptionType = rnd() < 0.5 ? 'call' : 'put';
      const df = Math.exp(-R * t);
      const price = black76(100, k, t, sigma, df, type);
      const iv = impliedVol(price, 100, k, t, df, type);
      if (timeValueLost(price, 100, k, df, type)) {
        expect(acceptableWithoutTimeValue(iv)).toBe(true);
        continue;
      }
      expect(iv).not.toBeNull();
      expect(roundTrips(iv!, sigma, price, 100, k, t, df, type), `K=${k} T=${t} σ=${sigma} ${type}`).toBe(
        true,
      );
    }
  });
});

describe('implied volatility: known values', () => {
  it('inverts published Black-Scholes prices', () => {
    // Hull Example 15.6: c = 4.759422392871533 at σ = 20% (S=42, K=40, r=10%, T=0.5)
    const f = 42 * Math.exp(0.1 * 0.5);
    const df = Math.exp(-0.1 * 0.5);
    expect(impliedVol(4.759422392871533, f, 40, 0.5, df, 'call')).toBeCloseTo(0.2, 12);
    expect(impliedVol(0.8085993729000936, f, 40, 0.5, df, 'put')).toBeCloseTo(0.2, 12);
    // Haug's Black-76 example: 1.7011 on F=K=19, T=0.75, r=10% is σ ≈ 28%
    expect(impliedVol(1.7011, 19, 19, 0.75, Math.exp(-0.075), 'call')).toBeCloseTo(0.28, 4);
    // Merton-73: the 2.4648 put (S=100, K=95, T=0.5, r=10%, q=5%) is σ ≈ 20%
    const fm = 100 * Math.exp((0.1 - 0.05) * 0.5);
    expect(impliedVol(2.4648, fm, 95, 0.5, Math.exp(-0.05), 'put')).toBeCloseTo(0.2, 4);
    expect(
      impliedVol(
        blackScholes(60, 65, 0.25, 0.08, 0, 0.3, 'call'),
        60 * Math.exp(0.02),
        65,
        0.25,
        Math.exp(-0.02),
        'call',
      ),
    ).toBeCloseTo(0.3, 12);
  });

  it('at the money the price is linear in σ to first order: C ≈ 0.4·F·σ√T', () => {
    const iv = impliedVol(0.4 * 22800 * 0.15 * Math.sqrt(7 / 365), 22800, 22800, 7 / 365, 1, 'call');
    expect(iv).toBeCloseTo(0.15 * (0.4 / (0.3989422804014327 * 1.000001)), 2);
  });
});

describe('implied volatility: no IV rather than nonsense', () => {
  const f = 22800;
  const t = 7 / 365;
  const df = Math.exp(-R * t);

  it('is null for a price at or below the discounted intrinsic value', () => {
    expect(impliedVol(df * 800, f, 22000, t, df, 'call')).toBeNull();
    expect(impliedVol(df * 800 - 0.05, f, 22000, t, df, 'call')).toBeNull();
    expect(impliedVol(df * 200, 22800, 23000, t, df, 'put')).toBeNull();
    expect(impliedVol(df * 800 + 0.05, f, 22000, t, df, 'call')).toBeGreaterThan(0);
  });

  it('is null for a price at or above the discounted upper bound (F for a call, K for a put)', () => {
    expect(impliedVol(df * f, f, 22000, t, df, 'call')).toBeNull();
    expect(impliedVol(df * f + 1, f, 22000, t, df, 'call')).toBeNull();
    expect(impliedVol(df * 23000, f, 23000, t, df, 'put')).toBeNull();
  });

  it('is null for expired, zero, negative and non-finite inputs, and never NaN', () => {
    expect(impliedVol(100, f, 22800, 0, df, 'call')).toBeNull();
    expect(impliedVol(100, f, 22800, -1, df, 'call')).toBeNull();
    expect(impliedVol(0, f, 22800, t, df, 'call')).toBeNull();
    expect(impliedVol(-5, f, 22800, t, df, 'call')).toBeNull();
    expect(impliedVol(Number.NaN, f, 22800, t, df, 'call')).toBeNull();
    expect(impliedVol(Number.POSITIVE_INFINITY, f, 22800, t, df, 'call')).toBeNull();
    expect(impliedVol(100, 0, 22800, t, df, 'call')).toBeNull();
    expect(impliedVol(100, f, -1, t, df, 'call')).toBeNull();
    expect(impliedVol(100, f, 22800, t, 0, 'call')).toBeNull();
    expect(impliedVol(100, f, 22800, Number.NaN, df, 'call')).toBeNull();
    let seed = 7;
    const rnd = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const pick = () => [0, -1, 1e-300, 1e300, Number.NaN, 0.05, 100, 1e5][Math.floor(rnd() * 8)]!;
    for (let i = 0; i < 20_000; i++) {
      const iv = impliedVol(
        pick() * rnd(),
        pick(),
        pick(),
        pick() * rnd(),
        rnd(),
        rnd() < 0.5 ? 'call' : 'put',
      );
      if (iv !== null) expect(iv > 0 && Number.isFinite(iv)).toBe(true);
    }
  });

  it('answers a tick-sized price far out of the money near expiry with a finite (if large) IV', () => {
    const iv = impliedVol(0.05, 22800, 25000, 1 / 365, Math.exp(-R / 365), 'call');
    expect(iv).not.toBeNull();
    expect(iv!).toBeGreaterThan(0.5);
    expect(iv!).toBeLessThan(5);
  });
});
