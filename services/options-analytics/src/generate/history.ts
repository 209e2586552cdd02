import type { Rng } from '@mdp/market';
import { maxPain, type StrikeOi } from '../analytics/max-pain.ts';
import { CONSTANT_MATURITY_DAYS } from '../analytics/term-structure.ts';
import { monthlyExpiry } from '../calendar/expiries.ts';
import type { DailyRow } from '../domain/daily-row.ts';
import { paise } from './contract-rules.ts';
import { modelSkew25 } from './model-skew.ts';
import { openInterestByStrike, strikeLadder } from './open-interest.ts';
import { surfaceAtmVol } from './surface.ts';
import { surfaceOf, type UnderlyingCharacter, type UnderlyingPath } from './underlying-model.ts';

/** The first monthly expiry after a day (on an expiry day the next month's: today's has expired). */
function frontMonthlyAfter(day: string): string {
  let year = Number(day.slice(0, 4));
  let month = Number(day.slice(5, 7));
  for (;;) {
    const e = monthlyExpiry(year, month);
    if (e > day) return e;
    month++;
    if (month > 12) {
      month = 1;
      year++;
    }
  }
}

export interface HistoryInput {
  symbol: string;
  character: UnderlyingCharacter;
  days: readonly string[];
  path: UnderlyingPath;
  /** Put-call OI ratio and OI centre (a lagged price) on each day. */
  pcr: Float64Array;
  centres: Float64Array;
  strikeStep: (price: number) => number;
  /** Rows for days[0..last], inclusive. */
  last: number;
}

/**
 * An underlying's daily rows straight from its model, without pricing a chain each day: the 30-day ATM
 * IV and 25-delta skew of that day's surface, max pain of an open-interest profile around the lagged
 * price for the front monthly expiry, and the day's put-call ratios. The chain analytics measure the
 * same quantities from priced chains (the generator's tests check they agree).
 */
export function modelHistory(input: HistoryInput, rng: Rng): DailyRow[] {
  const { character: c, days, path } = input;
  const rows: DailyRow[] = [];
  const t30 = CONSTANT_MATURITY_DAYS / 365;
  let expiry = '';
  let expiryMs = 0;
  const oi: StrikeOi[] = [];
  for (let i = 0; i <= input.last; i++) {
    const day = days[i]!;
    if (!(expiry > day)) {
      expiry = frontMonthlyAfter(day);
      expiryMs = Date.parse(expiry);
    }
    const close = path.closes[i]!;
    const surface = surfaceOf(c, path.atmShort[i]!);
    const atmIv = surfaceAtmVol(surface, t30);
    const step = input.strikeStep(close);
    const tFront = Math.max((expiryMs - Date.parse(day)) / 86_400_000, 7) / 365;
    const width = Math.max(4 * step, close * surfaceAtmVol(surface, tFront) * Math.sqrt(tFront));
    const profile = openInterestByStrike(
      strikeLadder(input.centres[i]!, step, 15),
      input.centres[i]!,
      width,
      step,
      1000,
      input.pcr[i]!,
      rng,
      oi,
    );
    const pain = maxPain(profile);
    rows.push({
      underlying: input.symbol,
      tradeDate: day,
      close: paise(close),
      atmIv,
      skew25d: modelSkew25(surface, t30, c.dividendYield),
      pcrOi: input.pcr[i]!,
      pcrVolume: input.pcr[i]! * Math.exp(0.2 * rng.normal()),
      maxPain: pain?.strike ?? null,
      maxPainExpiry: pain ? expiry : null,
      source: 'generated',
    });
  }
  return rows;
}
