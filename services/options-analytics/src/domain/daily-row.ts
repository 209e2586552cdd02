import { analyseExpiries } from '../analytics/chain-analytics.ts';
import { summarise } from '../analytics/summary.ts';
import { expiryQuotes, type Snapshot } from './snapshot.ts';

/** One underlying on one trading day: what its IV history is made of. Volatilities are fractions. */
export interface DailyRow {
  underlying: string;
  /** YYYY-MM-DD */
  tradeDate: string;
  /** The underlying's close. */
  close: number;
  /** 30-day constant-maturity ATM implied volatility. */
  atmIv: number | null;
  /** 30-day 25-delta skew: put IV minus call IV. */
  skew25d: number | null;
  /** Over every expiry. */
  pcrOi: number | null;
  pcrVolume: number | null;
  /** Max pain of the front monthly expiry. */
  maxPain: number | null;
  maxPainExpiry: string | null;
  source: string;
}

/** The day's row of an end-of-day snapshot, through the same analytics the chain route serves. */
export function dailyRowFromSnapshot(snapshot: Snapshot, r: number, source: string): DailyRow {
  const expiries = analyseExpiries(expiryQuotes(snapshot), {
    snapshotMs: snapshot.snapshotMs,
    spot: snapshot.underlyingPrice,
    r,
  });
  const s = summarise(expiries);
  return {
    underlying: snapshot.underlying,
    tradeDate: snapshot.tradeDate,
    close: snapshot.underlyingPrice,
    atmIv: s.atmIv30,
    skew25d: s.skew30,
    pcrOi: s.ratios.oi,
    pcrVolume: s.ratios.volume,
    maxPain: s.maxPain?.strike ?? null,
    maxPainExpiry: s.maxPainExpiry,
    source,
  };
}
