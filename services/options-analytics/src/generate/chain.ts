import type { Rng } from '@mdp/market';
import { black76 } from '../analytics/black.ts';
import { marketCloseMs, yearsToExpiry } from '../analytics/time.ts';
import { nextMonthlyExpiries, nextQuarterlyExpiries, nextWeeklyExpiries } from '../calendar/expiries.ts';
import type { FutureQuote, OptionContractQuote, Snapshot } from '../domain/snapshot.ts';
import { TICK, toTick } from './contract-rules.ts';
import { openInterestByStrike, strikeLadder } from './open-interest.ts';
import { type SurfaceParams, surfaceAtmVol, surfaceVol } from './surface.ts';

export interface ChainInput {
  symbol: string;
  kind: 'index' | 'stock';
  tradeDate: string;
  spot: number;
  surface: SurfaceParams;
  dividendYield: number;
  r: number;
  lotSize: number;
  strikeStep: number;
  /** Where positions are centred (a lagged price) and the day's put-call OI ratio. */
  oiCentre: number;
  pcr: number;
  /** Open interest at the peak strike of the front expiry, in contracts. */
  peakContracts: number;
}

/** The expiries listed on a day: NIFTY weeklies, three monthlies for all, quarterlies for the big two. */
export function listedExpiries(symbol: string, tradeDate: string): string[] {
  const set = new Set(nextMonthlyExpiries(tradeDate, 3));
  if (symbol === 'NIFTY') {
    for (const e of nextWeeklyExpiries(tradeDate, 5)) set.add(e);
    for (const e of nextQuarterlyExpiries(tradeDate, 4)) set.add(e);
  } else if (symbol === 'BANKNIFTY') {
    for (const e of nextQuarterlyExpiries(tradeDate, 3)) set.add(e);
  }
  return [...set].sort();
}

/**
 * One underlying's end-of-day chain priced from its surface: every option's close is its Black-76 value
 * on the forward S·e^{(r−q)T}, rounded to the ₹0.05 tick, so the solver gives back the surface up to
 * that rounding. Far-out strikes worth less than two ticks, and a few others, do not trade (no close, no
 * IV), as on a real day; bid and ask straddle the model value with a spread that widens in the wings.
 */
export function generateChain(input: ChainInput, rng: Rng): Snapshot {
  const snapshotMs = marketCloseMs(input.tradeDate);
  const options: OptionContractQuote[] = [];
  const futures: FutureQuote[] = [];
  const expiries = listedExpiries(input.symbol, input.tradeDate);
  const monthlies = new Set(nextMonthlyExpiries(input.tradeDate, 3));
  expiries.forEach((expiry, rank) => {
    const t = yearsToExpiry(snapshotMs, expiry);
    const forward = input.spot * Math.exp((input.r - input.dividendYield) * t);
    const df = Math.exp(-input.r * t);
    const atm = surfaceAtmVol(input.surface, t);
    const far = t > 100 / 365;
    const step = far ? input.strikeStep * (input.kind === 'index' ? 4 : 2) : input.strikeStep;
    const wanted = input.kind === 'index' ? (far ? 20 : 40) : far ? 8 : rank === 0 ? 15 : 10;
    const bound = 5 * atm * Math.sqrt(t) + 0.03;
    const strikes = strikeLadder(forward, step, wanted).filter(
      (k) => Math.abs(Math.log(k / forward)) <= bound,
    );
    const scale = input.peakContracts * (rank === 0 ? 1 : rank === 1 ? 0.6 : far ? 0.08 : 0.3);
    const width = Math.max(4 * step, input.spot * atm * Math.sqrt(Math.max(t, 7 / 365)));
    const turnover = rank === 0 ? 2.5 : rank === 1 ? 0.8 : 0.15;
    const profile = openInterestByStrike(strikes, input.oiCentre, width, step, scale, input.pcr, rng);
    for (const { strike, callOi: calls, putOi: puts } of profile) {
      const vol = surfaceVol(input.surface, forward, strike, t);
      const z = Math.log(strike / forward) / (atm * Math.sqrt(t));
      for (const [type, contracts] of [
        ['call', calls],
        ['put', puts],
      ] as const) {
        const value = black76(forward, strike, t, vol, df, type);
        const itm = type === 'call' ? strike < forward : strike > forward;
        const traded =
          value >= 2 * TICK && Math.abs(z) <= 3.5 && rng.chance(itm && Math.abs(z) > 1.5 ? 0.6 : 0.97);
        const half = Math.max(TICK, value * (0.002 + 0.003 * Math.abs(z)));
        const volume = traded ? Math.max(1, Math.round(contracts * turnover * rng.uniform(0.4, 1.6))) : 0;
        options.push({
          expiry,
          strike,
          type,
          close: traded ? toTick(value) : null,
          last: traded ? toTick(value * (1 + 0.002 * rng.normal())) : null,
          bid: value - half >= TICK ? toTick(value - half) : null,
          ask: toTick(value + half),
          oi: contracts * input.lotSize,
          oiChange: Math.round(contracts * 0.15 * rng.normal()) * input.lotSize,
          volume,
          lotSize: input.lotSize,
        });
      }
    }
    if (monthlies.has(expiry)) {
      const contracts = Math.round(input.peakContracts * (rank === 0 ? 8 : 2) * rng.uniform(0.8, 1.2));
      futures.push({
        expiry,
        close: toTick(forward * (1 + 0.0002 * rng.normal())),
        oi: contracts * input.lotSize,
        oiChange: Math.round(contracts * 0.05 * rng.normal()) * input.lotSize,
        volume: Math.round(contracts * 0.3),
        lotSize: input.lotSize,
      });
    }
  });
  return {
    underlying: input.symbol,
    kind: input.kind,
    tradeDate: input.tradeDate,
    snapshotMs,
    underlyingPrice: Math.round(input.spot * 100) / 100,
    options,
    futures,
  };
}
