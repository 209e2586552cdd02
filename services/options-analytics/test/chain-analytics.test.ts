import { describe, expect, it } from 'vitest';
import { black76, type OptionType } from '../src/analytics/black.ts';
import { analyseExpiries, analyseExpiry, type OptionQuote } from '../src/analytics/chain-analytics.ts';
import { parityForward } from '../src/analytics/forward.ts';
import { greeks } from '../src/analytics/greeks.ts';
import { maxPain } from '../src/analytics/max-pain.ts';
import { marketCloseMs } from '../src/analytics/time.ts';
import { type SurfaceParams, surfaceAtmVol, surfaceVol } from '../src/generate/surface.ts';

const R = 0.065;
const SPOT = 22800;
const TRADE_DATE = '2026-03-27';
const SNAPSHOT = marketCloseMs(TRADE_DATE);
const SURFACE: SurfaceParams = { atmShort: 0.16, atmLong: 0.18, kappa: 3, skew: -0.12, curvature: 0.03 };
const EXPIRY = '2026-04-28'; // 32 days
const T = 32 / 365;
const DIV_YIELD = 0.012;
const FORWARD = SPOT * Math.exp((R - DIV_YIELD) * T);

/** A chain priced exactly (no tick rounding) from the surface, every contract traded. */
function modelChain(step: number, width: number, t = T, forward = FORWARD): OptionQuote[] {
  const quotes: OptionQuote[] = [];
  const atm = Math.round(forward / step) * step;
  for (let k = atm - width * step; k <= atm + width * step; k += step)
    for (const type of ['call', 'put'] as OptionType[]) {
      const price = black76(forward, k, t, surfaceVol(SURFACE, forward, k, t), Math.exp(-R * t), type);
      const oi = Math.round(1e6 * Math.exp(-(((k - atm) / (10 * step)) ** 2)) * (type === 'put' ? 1.2 : 1));
      quotes.push({
        strike: k,
        type,
        close: price,
        last: price,
        bid: null,
        ask: null,
        oi,
        oiChange: 0,
        volume: 100,
        lotSize: 65,
      });
    }
  return quotes;
}

const ctx = { snapshotMs: SNAPSHOT, spot: SPOT, r: R };

describe('one expiry of a model chain', () => {
  const a = analyseExpiry({ expiry: EXPIRY, options: modelChain(50, 40), futureClose: null }, ctx)!;

  it('measures time to the expiry close in ACT/365 and discounts at r', () => {
    expect(a.t).toBeCloseTo(T, 14);
    expect(a.days).toBe(32);
    expect(a.df).toBeCloseTo(Math.exp(-R * T), 14);
  });

  it('implies the forward from put-call parity', () => {
    expect(a.forwardSource).toBe('put_call_parity');
    expect(a.forward / FORWARD - 1).toBeLessThan(1e-12);
  });

  it("recovers every strike's surface volatility to 1e-8, with Greeks at it", () => {
    for (const row of a.strikes)
      for (const side of [row.call, row.put]) {
        const want = surfaceVol(SURFACE, FORWARD, row.strike, T);
        expect(Math.abs(side!.iv! - want)).toBeLessThan(1e-8);
        expect(side!.greeks).toEqual(
          greeks({
            spot: SPOT,
            forward: a.forward,
            strike: row.strike,
            t: a.t,
            r: R,
            sigma: side!.iv!,
            type: side!.quote.type,
          }),
        );
      }
  });

  it('interpolates ATM IV to the forward', () => {
    expect(Math.abs(a.atmIv! - surfaceAtmVol(SURFACE, T))).toBeLessThan(1e-5);
    expect(Math.abs(a.atmStrike - FORWARD)).toBeLessThanOrEqual(25);
  });

  it("measures 25-delta skew as the surface's put-25Δ vol minus its call-25Δ vol", () => {
    const deltaAt = (k: number, type: OptionType) =>
      greeks({
        spot: SPOT,
        forward: FORWARD,
        strike: k,
        t: T,
        r: R,
        sigma: surfaceVol(SURFACE, FORWARD, k, T),
        type,
      })!.delta;
    const solve = (target: number, type: OptionType) => {
      let lo = FORWARD * 0.7;
      let hi = FORWARD * 1.3;
      for (let i = 0; i < 200; i++) {
        const mid = 0.5 * (lo + hi);
        if (deltaAt(mid, type) > target) lo = mid;
        else hi = mid;
      }
      return surfaceVol(SURFACE, FORWARD, 0.5 * (lo + hi), T);
    };
    const want = solve(-0.25, 'put') - solve(0.25, 'call');
    expect(want).toBeGreaterThan(0.005);
    expect(Math.abs(a.skew25d! - want)).toBeLessThan(1e-4);
  });

  it('has max pain and PCRs of its open interest and volume', () => {
    const rows = a.strikes.map((s) => ({
      strike: s.strike,
      callOi: s.call!.quote.oi,
      putOi: s.put!.quote.oi,
    }));
    expect(a.maxPain).toEqual(maxPain(rows));
    const callOi = rows.reduce((n, r) => n + r.callOi, 0);
    const putOi = rows.reduce((n, r) => n + r.putOi, 0);
    expect(a.ratios.oi).toBeCloseTo(putOi / callOi, 14);
    expect(a.ratios.volume).toBe(1);
  });
});

describe('forward and IV fallbacks', () => {
  it('falls back to the future, then to spot carried at r, when no strike traded on both sides', () => {
    const calls = modelChain(50, 10).filter((q) => q.type === 'call');
    const withFuture = analyseExpiry({ expiry: EXPIRY, options: calls, futureClose: 22950 }, ctx)!;
    expect(withFuture.forwardSource).toBe('future');
    expect(withFuture.forward).toBe(22950);
    const bare = analyseExpiry({ expiry: EXPIRY, options: calls, futureClose: null }, ctx)!;
    expect(bare.forwardSource).toBe('spot_carry');
    expect(bare.forward).toBeCloseTo(SPOT * Math.exp(R * T), 8);
  });

  it('takes the median of the three pairs nearest the money, so one bad print cannot move it', () => {
    const df = 0.99;
    const pairs = [22700, 22750, 22800, 22850, 22900].map((k) => ({
      strike: k,
      call: Math.max(22810 - k, 0) * df + 100,
      put: Math.max(k - 22810, 0) * df + 100,
    }));
    pairs[2] = { strike: 22800, call: 500, put: 90 }; // a stale print at the money
    const f = parityForward(pairs, df)!;
    expect(Math.abs(f - 22810)).toBeLessThan(1);
  });

  it('gives no IV (and no Greeks) for a contract that did not trade, and drops expired expiries', () => {
    const quotes = modelChain(50, 5).map((q, i) =>
      i === 0 ? { ...q, close: null, last: null, volume: 0 } : q,
    );
    const a = analyseExpiry({ expiry: EXPIRY, options: quotes, futureClose: null }, ctx)!;
    const first = a.strikes[0]!;
    const untraded = quotes[0]!.type === 'call' ? first.call! : first.put!;
    expect(untraded.iv).toBeNull();
    expect(untraded.greeks).toBeNull();
    expect(analyseExpiry({ expiry: TRADE_DATE, options: quotes, futureClose: null }, ctx)).toBeNull();
    const both = analyseExpiries(
      [
        { expiry: EXPIRY, options: quotes, futureClose: null },
        { expiry: '2026-03-27', options: quotes, futureClose: null },
        { expiry: '2026-03-30', options: modelChain(50, 5, 3 / 365, SPOT), futureClose: null },
      ],
      ctx,
    );
    expect(both.map((e) => e.expiry)).toEqual(['2026-03-30', EXPIRY]);
  });
});
