import type { OptionType } from './black.ts';
import {
  type ForwardInput,
  type ForwardSource,
  impliedForward,
  marketForward,
  type ParityPair,
} from './forward.ts';
import { type Greeks, greeks } from './greeks.ts';
import { impliedVol } from './implied-vol.ts';
import { type MaxPain, maxPain } from './max-pain.ts';
import { type PutCallRatios, type PutCallTotals, putCallRatios } from './put-call-ratio.ts';
import { atmIv, type SmilePoint, skew25 } from './smile.ts';
import { yearsToExpiry } from './time.ts';

/** One option contract as an end-of-day snapshot holds it. */
export interface OptionQuote {
  strike: number;
  type: OptionType;
  /** The day's closing price; null when the contract did not trade that day (so it carries no IV). */
  close: number | null;
  /** Last traded price; null when it did not trade. */
  last: number | null;
  bid: number | null;
  ask: number | null;
  /** Open interest and its change over the day, in units of the underlying (as NSE reports them). */
  oi: number;
  oiChange: number;
  /** Contracts traded. */
  volume: number;
  lotSize: number;
}

export interface ExpiryQuotes {
  /** YYYY-MM-DD, the actual (holiday-adjusted) expiry day. */
  expiry: string;
  options: readonly OptionQuote[];
  /** The same-expiry future's close, when one traded. */
  futureClose: number | null;
}

export interface MarketContext {
  /** The snapshot's instant (the trade date's close for end-of-day data). */
  snapshotMs: number;
  /** The underlying's price at the snapshot. */
  spot: number;
  /** Continuously compounded risk-free rate, a fraction. */
  r: number;
}

export interface SideAnalytics {
  quote: OptionQuote;
  /** Implied volatility from the close, a fraction; null when there is none. */
  iv: number | null;
  greeks: Greeks | null;
}

interface StrikeAnalytics {
  strike: number;
  call: SideAnalytics | null;
  put: SideAnalytics | null;
}

export interface ExpiryAnalytics {
  expiry: string;
  /** Years to the expiry's close, and the same in whole calendar days. */
  t: number;
  days: number;
  df: number;
  forward: number;
  forwardSource: ForwardSource;
  /** The listed strike nearest the forward. */
  atmStrike: number;
  atmIv: number | null;
  skew25d: number | null;
  maxPain: MaxPain | null;
  totals: PutCallTotals;
  ratios: PutCallRatios;
  /** Sorted by strike. */
  strikes: StrikeAnalytics[];
}

function side(
  quote: OptionQuote | undefined,
  forward: number,
  t: number,
  df: number,
  ctx: MarketContext,
): SideAnalytics | null {
  if (!quote) return null;
  const iv = quote.close === null ? null : impliedVol(quote.close, forward, quote.strike, t, df, quote.type);
  const g =
    iv === null
      ? null
      : greeks({ spot: ctx.spot, forward, strike: quote.strike, t, r: ctx.r, sigma: iv, type: quote.type });
  return { quote, iv, greeks: g };
}

/**
 * Options traded less than this share of their expiry's volume are left out of its smile (ATM IV and
 * skew): a one-lot print hours before the close is not a price the smile should bend to.
 */
const SMILE_MIN_VOLUME_SHARE = 1e-4;

/**
 * The expiry's smile: at each strike one IV, the out-of-the-money option's (puts below the forward,
 * calls above), or the in-the-money one's when only that traded enough; with the call and put deltas
 * both taken at that IV (parity gives them the same one), so that the 25-delta points come from the
 * liquid wings, never from deep in-the-money prices.
 */
function smilePoints(
  strikes: readonly StrikeAnalytics[],
  forward: number,
  t: number,
  ctx: MarketContext,
  minVolume: number,
): SmilePoint[] {
  const liquidIv = (s: SideAnalytics | null) =>
    s && s.iv !== null && s.quote.volume >= minVolume ? s.iv : null;
  return strikes.map(({ strike, call, put }) => {
    const otm = strike < forward ? put : call;
    const itm = strike < forward ? call : put;
    const iv = liquidIv(otm) ?? liquidIv(itm);
    const at = (type: OptionType) =>
      iv === null
        ? null
        : (greeks({ spot: ctx.spot, forward, strike, t, r: ctx.r, sigma: iv, type })?.delta ?? null);
    return { strike, callIv: iv, putIv: iv, callDelta: at('call'), putDelta: at('put') };
  });
}

type ByStrike = [number, { call?: OptionQuote; put?: OptionQuote }][];

function byStrike(quotes: ExpiryQuotes): ByStrike {
  const map = new Map<number, { call?: OptionQuote; put?: OptionQuote }>();
  for (const q of quotes.options) {
    const e = map.get(q.strike) ?? {};
    e[q.type] = q;
    map.set(q.strike, e);
  }
  return [...map.entries()].sort((a, b) => a[0] - b[0]);
}

function forwardInput(quotes: ExpiryQuotes, ordered: ByStrike, t: number, ctx: MarketContext): ForwardInput {
  const pairs: ParityPair[] = [];
  for (const [strike, { call, put }] of ordered) {
    if (call?.close != null && put?.close != null && call.volume > 0 && put.volume > 0)
      pairs.push({ strike, call: call.close, put: put.close });
  }
  return { pairs, futureClose: quotes.futureClose, spot: ctx.spot, t, r: ctx.r };
}

/**
 * Everything one expiry's quotes say: the implied forward, each option's IV and Greeks, ATM IV, 25-delta
 * skew, max pain, put-call ratios. Null for an expiry at or before the snapshot (nothing left to price).
 * `carry` is the fallback carry rate when the expiry has no market forward of its own.
 */
export function analyseExpiry(
  quotes: ExpiryQuotes,
  ctx: MarketContext,
  carry: number | null = null,
): ExpiryAnalytics | null {
  const t = yearsToExpiry(ctx.snapshotMs, quotes.expiry);
  if (!(t > 0)) return null;
  const df = Math.exp(-ctx.r * t);
  const ordered = byStrike(quotes);
  const { forward, source } = impliedForward(forwardInput(quotes, ordered, t, ctx), carry);

  const strikes: StrikeAnalytics[] = [];
  const totals: PutCallTotals = { callOi: 0, putOi: 0, callVolume: 0, putVolume: 0 };
  let atmStrike = ordered[0]?.[0] ?? forward;
  for (const [strike, { call, put }] of ordered) {
    strikes.push({ strike, call: side(call, forward, t, df, ctx), put: side(put, forward, t, df, ctx) });
    totals.callOi += call?.oi ?? 0;
    totals.putOi += put?.oi ?? 0;
    totals.callVolume += call?.volume ?? 0;
    totals.putVolume += put?.volume ?? 0;
    if (Math.abs(strike - forward) < Math.abs(atmStrike - forward)) atmStrike = strike;
  }
  const smile = smilePoints(
    strikes,
    forward,
    t,
    ctx,
    Math.max(1, SMILE_MIN_VOLUME_SHARE * (totals.callVolume + totals.putVolume)),
  );
  return {
    expiry: quotes.expiry,
    t,
    days: Math.round(t * 365),
    df,
    forward,
    forwardSource: source,
    atmStrike,
    atmIv: atmIv(smile, forward),
    skew25d: skew25(smile),
    maxPain: maxPain(
      ordered.map(([strike, { call, put }]) => ({ strike, callOi: call?.oi ?? 0, putOi: put?.oi ?? 0 })),
    ),
    totals,
    ratios: putCallRatios(totals),
    strikes,
  };
}

/**
 * Every expiry of a snapshot still alive at it, nearest first. An expiry without a market forward takes
 * the carry rate implied at the nearest expiry (in time) that has one.
 */
export function analyseExpiries(expiries: readonly ExpiryQuotes[], ctx: MarketContext): ExpiryAnalytics[] {
  const carries: { t: number; carry: number }[] = [];
  for (const e of expiries) {
    const t = yearsToExpiry(ctx.snapshotMs, e.expiry);
    if (!(t > 0)) continue;
    const market = marketForward(forwardInput(e, byStrike(e), t, ctx));
    if (market && ctx.spot > 0) carries.push({ t, carry: Math.log(market.forward / ctx.spot) / t });
  }
  return expiries
    .map((e) => {
      const t = yearsToExpiry(ctx.snapshotMs, e.expiry);
      let nearest: { t: number; carry: number } | null = null;
      for (const c of carries)
        if (nearest === null || Math.abs(c.t - t) < Math.abs(nearest.t - t)) nearest = c;
      return analyseExpiry(e, ctx, nearest?.carry ?? null);
    })
    .filter((e): e is ExpiryAnalytics => e !== null)
    .sort((a, b) => a.t - b.t);
}
