import { generateIndices, Rng } from '@mdp/market';
import { day, formatDay, isTradingDay, tradingDays } from '@mdp/nse-calendar';
import { describe, expect, it } from 'vitest';
import { black76, normalisedVega } from '../src/analytics/black.ts';
import { analyseExpiries } from '../src/analytics/chain-analytics.ts';
import { summarise } from '../src/analytics/summary.ts';
import { yearsToExpiry } from '../src/analytics/time.ts';
import { expiryQuotes } from '../src/domain/snapshot.ts';
import { generateChain, listedExpiries } from '../src/generate/chain.ts';
import { stockLotSize, stockStrikeStep, TICK } from '../src/generate/contract-rules.ts';
import { generateDataset, marketOf } from '../src/generate/dataset.ts';
import { modelSkew25 } from '../src/generate/model-skew.ts';
import { type SurfaceParams, surfaceAtmVol, surfaceVol } from '../src/generate/surface.ts';
import { realisedVolatility } from '../src/generate/underlying-model.ts';
import { underlyingSpecs } from '../src/generate/underlyings.ts';
import { fnoStocks, INDEX_UNDERLYINGS } from '../src/generate/universe.ts';

const R = 0.065;
const AS_OF = '2026-11-20';
const SURFACE: SurfaceParams = { atmShort: 0.13, atmLong: 0.15, kappa: 4, skew: -0.11, curvature: 0.03 };
const Q = 0.012;

function niftyChain(surface = SURFACE) {
  return generateChain(
    {
      symbol: 'NIFTY',
      kind: 'index',
      tradeDate: AS_OF,
      spot: 25850,
      surface,
      dividendYield: Q,
      r: R,
      lotSize: 65,
      strikeStep: 50,
      oiCentre: 25700,
      pcr: 1.05,
      peakContracts: 150_000,
    },
    new Rng(7),
  );
}

describe('generated chains are priced from the surface so that the solver recovers it', () => {
  const chain = niftyChain();
  const expiries = analyseExpiries(expiryQuotes(chain), {
    snapshotMs: chain.snapshotMs,
    spot: chain.underlyingPrice,
    r: R,
  });

  it("lists NSE's expiries: NIFTY weeklies, monthlies and quarterlies, holiday-adjusted", () => {
    expect(listedExpiries('NIFTY', AS_OF)).toEqual([
      '2026-11-23', // Tuesday 24 November 2026 is a holiday
      '2026-12-01',
      '2026-12-08',
      '2026-12-15',
      '2026-12-22',
      '2026-12-29',
      '2027-01-26', // on the seed calendar, which ends with 2026 (test/calendar-import.int.test.ts moves it)
      '2027-03-30',
      '2027-06-29',
      '2027-09-28',
    ]);
    expect(listedExpiries('RELIANCE', AS_OF)).toEqual(['2026-11-23', '2026-12-29', '2027-01-26']);
    expect(expiries.map((e) => e.expiry)).toEqual(listedExpiries('NIFTY', AS_OF));
  });

  it('gives back every traded option’s surface volatility up to the ₹0.05 rounding of its price', () => {
    let checked = 0;
    for (const e of expiries) {
      const forward = chain.underlyingPrice * Math.exp((R - Q) * e.t);
      for (const s of e.strikes)
        for (const side of [s.call, s.put]) {
          if (!side || side.quote.close === null) continue;
          const want = surfaceVol(SURFACE, forward, s.strike, e.t);
          const model = black76(forward, s.strike, e.t, want, e.df, side.quote.type);
          expect(Math.abs(side.quote.close - model)).toBeLessThanOrEqual(TICK / 2 + 1e-9);
          // The IV reprices the close exactly, on the forward implied from the chain.
          const repriced = black76(e.forward, s.strike, e.t, side.iv!, e.df, side.quote.type);
          expect(Math.abs(repriced - side.quote.close) / side.quote.close).toBeLessThan(1e-12);
          const vega =
            e.df *
            Math.sqrt(forward * s.strike) *
            normalisedVega(-Math.abs(Math.log(forward / s.strike)), want * Math.sqrt(e.t)) *
            Math.sqrt(e.t);
          if (vega < 100) continue; // under ₹1 a vol point the tick, not the surface, sets the IV
          // Half a tick of price, plus what the forward implied from rounded prices is off by (an
          // in-the-money option moves one for one with it), is all the error there can be.
          const tolerance = (0.5 * TICK + e.df * Math.abs(e.forward - forward)) / vega + 1e-6;
          expect(Math.abs(side.iv! - want), `${e.expiry} ${s.strike} ${side.quote.type}`).toBeLessThan(
            tolerance,
          );
          checked++;
        }
    }
    expect(checked).toBeGreaterThan(1000);
  });

  it('implies the model forward S·e^{(r−q)T} from parity, and the surface’s 30-day ATM IV and skew', () => {
    for (const e of expiries.filter((x) => x.days <= 100)) {
      expect(e.forwardSource).toBe('put_call_parity');
      expect(Math.abs(e.forward / (chain.underlyingPrice * Math.exp((R - Q) * e.t)) - 1)).toBeLessThan(2e-5);
    }
    const summary = summarise(expiries);
    expect(Math.abs(summary.atmIv30! - surfaceAtmVol(SURFACE, 30 / 365))).toBeLessThan(0.002);
    expect(Math.abs(summary.skew30! - modelSkew25(SURFACE, 30 / 365, Q))).toBeLessThan(0.003);
    expect(summary.ratios.oi).toBeCloseTo(1.05, 2);
  });

  it('has a term structure and a smile: ATM IV moves from the short level towards the long one, puts richer than calls', () => {
    const atm = expiries.map((e) => e.atmIv!);
    expect(atm[0]!).toBeLessThan(atm.at(-1)!);
    expect(Math.abs(atm.at(-1)! - surfaceAtmVol(SURFACE, expiries.at(-1)!.t))).toBeLessThan(0.003);
    for (const e of expiries.filter((x) => x.days >= 7 && x.days <= 100))
      expect(e.skew25d!).toBeGreaterThan(0.005);
  });

  it('leaves far-out strikes worth under two ticks untraded (no close, so no IV), with quotes around the value', () => {
    const all = chain.options;
    expect(all.some((o) => o.close === null)).toBe(true);
    for (const o of all) {
      if (o.close !== null) expect(o.close).toBeGreaterThanOrEqual(2 * TICK);
      if (o.bid !== null) expect(o.bid).toBeLessThanOrEqual(o.ask!);
      expect(o.oi % 65).toBe(0);
    }
  });
});

describe('the generated default dataset', () => {
  // A smaller market than the default (same rules): enough companies for every F&O slot.
  const opts = { seed: 20_260_101, asOf: AS_OF, r: R, marketSize: 3_000, historyDays: 500 };
  const market = marketOf(opts);
  const days = tradingDays(market.options.endDay - 500, day(AS_OF)).map(formatDay);
  const specs = underlyingSpecs(market, days);
  const { current, former } = fnoStocks(market);
  const biggest = current[0]!;
  const mid = current[100]!;
  const gone = former[0]!;
  const subset = ['NIFTY', biggest.nseSymbol!, mid.nseSymbol!, gone.nseSymbol!];
  const bundles = [...generateDataset(opts, subset)];
  const bundle = (symbol: string) => bundles.find((b) => b.underlying.symbol === symbol)!;
  const closesOf = (stockId: number) => {
    const closes = new Map<string, number>();
    market.emitBars(stockId, (b) => closes.set(formatDay(b.d), b.close / 100));
    return closes;
  };

  it('covers 556 underlyings: 5 indices and 208 stocks with F&O, 343 whose F&O has ended', () => {
    expect(specs).toHaveLength(556);
    expect(new Set(specs.map((u) => u.symbol)).size).toBe(556);
    expect(specs.filter((u) => u.kind === 'index').map((u) => u.symbol)).toEqual(
      INDEX_UNDERLYINGS.map((u) => u.symbol),
    );
    expect(specs.filter((u) => u.derivativesUntil === null)).toHaveLength(213);
    for (const u of specs.filter((x) => x.derivativesUntil !== null)) {
      expect(u.derivativesUntil! > days[0]! && u.derivativesUntil! < AS_OF).toBe(true);
      expect(isTradingDay(day(u.derivativesUntil!))).toBe(true);
    }
  });

  it('takes its stocks from the market: listed NSE companies, the largest by market value having F&O', () => {
    const stocks = [...current, ...former];
    for (const s of stocks) expect(s).toMatchObject({ status: 'listed', stockType: 'equity', board: 'main' });
    const caps = stocks.map((s) => market.plans.get(s.id)!.marketCapCr);
    expect(caps).toEqual([...caps].sort((a, b) => b - a));
    const names = new Map(specs.map((u) => [u.symbol, u.name]));
    for (const s of stocks) expect(names.get(s.nseSymbol!)).toBe(s.name);
  });

  it("prices every underlying at the market's own closes, day by day", () => {
    for (const stock of [biggest, mid, gone]) {
      const closes = closesOf(stock.id);
      const b = bundle(stock.nseSymbol!);
      for (const row of b.rows)
        expect(row.close, `${stock.nseSymbol} ${row.tradeDate}`).toBe(closes.get(row.tradeDate));
    }
    const last = closesOf(biggest.id).get(AS_OF)!;
    expect(bundle(biggest.nseSymbol!).snapshot!.underlyingPrice).toBe(last);
    const [nifty50] = generateIndices(market, ['NIFTY 50']);
    const levels = new Map(nifty50!.bars.map((b) => [formatDay(b.d), b.close]));
    for (const row of bundle('NIFTY').rows) expect(row.close).toBeCloseTo(levels.get(row.tradeDate)!, 2);
    expect(bundle('NIFTY').snapshot!.underlyingPrice).toBeCloseTo(levels.get(AS_OF)!, 2);
  });

  it('quotes implied volatility above what the prices realised (the variance risk premium), tracking it', () => {
    for (const spec of specs) {
      const ivs = bundles.find((b) => b.underlying.symbol === spec.symbol)?.rows.map((r) => r.atmIv!);
      if (!ivs) continue;
      const meanIv = ivs.reduce((a, b) => a + b, 0) / ivs.length;
      const realised = realisedVolatility(spec.returns);
      expect(meanIv / realised, spec.symbol).toBeGreaterThan(1);
      expect(meanIv / realised, spec.symbol).toBeLessThan(1.45);
    }
  });

  it('is a pure function of its options: the same seed gives the same data, another seed other data', () => {
    const again = [...generateDataset(opts, subset)];
    expect(JSON.stringify(again)).toBe(JSON.stringify(bundles));
    const other = [...generateDataset({ ...opts, seed: 1 }, ['NIFTY'])];
    expect(other[0]!.rows.at(-1)!.atmIv).not.toBe(bundle('NIFTY').rows.at(-1)!.atmIv);
  });

  it('has a daily row for every trading day, ending with the chain’s own analytics, and no NaN', () => {
    const nifty = bundle('NIFTY');
    expect(nifty.rows.map((r) => r.tradeDate)).toEqual(days);
    expect(nifty.snapshot!.tradeDate).toBe(AS_OF);
    expect(nifty.lotSizes.map((l) => l.lotSize)).toEqual([65, 65, 65]);
    for (const b of bundles)
      for (const r of b.rows) {
        expect(JSON.stringify(r)).not.toMatch(/NaN|Infinity/);
        expect(r.atmIv!).toBeGreaterThan(0.03);
        expect(r.atmIv!).toBeLessThan(1.5);
        expect(r.pcrOi!).toBeGreaterThan(0);
        expect(r.maxPain!).toBeGreaterThan(0);
      }
    // The model's row of the day before and the chain-measured row of the last day are one surface apart.
    const [prev, last] = nifty.rows.slice(-2);
    expect(Math.abs(last!.atmIv! - prev!.atmIv!)).toBeLessThan(0.03);
  });

  it('gives a stock whose F&O ended an IV history up to that day and no chain', () => {
    const b = bundle(gone.nseSymbol!);
    expect(b.snapshot).toBeNull();
    expect(b.lotSizes).toEqual([]);
    expect(b.rows.at(-1)!.tradeDate).toBe(b.underlying.derivativesUntil);
  });

  it('sizes stock contracts like NSE: strike steps growing with the price, lots worth about ₹15 lakh', () => {
    const snapshot = bundle(mid.nseSymbol!).snapshot!;
    const spot = snapshot.underlyingPrice;
    const strikes = [
      ...new Set(snapshot.options.filter((o) => o.expiry === '2026-12-29').map((o) => o.strike)),
    ];
    expect(strikes.length).toBeGreaterThan(5);
    expect(
      strikes.every(
        (k) => Math.abs(k / stockStrikeStep(spot) - Math.round(k / stockStrikeStep(spot))) < 1e-9,
      ),
    ).toBe(true);
    expect(stockStrikeStep(1348)).toBe(20);
    expect(stockStrikeStep(3500)).toBe(50);
    for (const price of [45, 300, 1348, 3500, 12000, 38000]) {
      const value = stockLotSize(price) * price;
      expect(value).toBeGreaterThan(1_000_000);
      expect(value).toBeLessThan(2_300_000);
    }
    expect(yearsToExpiry(snapshot.snapshotMs, '2026-11-23')).toBeCloseTo(3 / 365, 12);
  });
});
