import type { ExpiryAnalytics, SideAnalytics } from '../analytics/chain-analytics.ts';
import type { AnalysedSnapshot } from './analysed-snapshot.ts';
import { percent, round, significant } from './format.ts';

/** Open interest and volume are served in contracts (NSE reports OI in units of the underlying). */
export const contracts = (units: number, lotSize: number) =>
  lotSize > 0 ? Math.round(units / lotSize) : null;

function sideView(s: SideAnalytics | null) {
  if (!s) return null;
  const q = s.quote;
  const g = s.greeks;
  return {
    ltp: round(q.last, 2),
    close: round(q.close, 2),
    bid: round(q.bid, 2),
    ask: round(q.ask, 2),
    iv: percent(s.iv),
    delta: round(g?.delta, 4),
    gamma: significant(g?.gamma, 6),
    theta: round(g?.theta, 4),
    vega: round(g?.vega, 4),
    rho: round(g?.rho, 4),
    oi: contracts(q.oi, q.lotSize),
    oi_change: contracts(q.oiChange, q.lotSize),
    volume: q.volume,
  };
}

/** The rows to serve: every strike, or `each` strikes either side of the ATM strike. */
function strikeWindow(e: ExpiryAnalytics, each: number | undefined) {
  if (each === undefined) return e.strikes;
  const atm = e.strikes.findIndex((s) => s.strike === e.atmStrike);
  return e.strikes.slice(Math.max(0, atm - each), atm + each + 1);
}

/** The chain document of one expiry. Max pain, PCR and totals are over all its strikes, not the window. */
export function chainView(a: AnalysedSnapshot, e: ExpiryAnalytics, each: number | undefined, r: number) {
  const lot = e.strikes.find((s) => s.call ?? s.put);
  return {
    symbol: a.snapshot.underlying,
    expiry: e.expiry,
    expiries: a.expiries.map((x) => x.expiry),
    snapshot_ts: new Date(a.snapshot.snapshotMs).toISOString(),
    trade_date: a.snapshot.tradeDate,
    underlying_price: round(a.snapshot.underlyingPrice, 2),
    forward: round(e.forward, 2),
    forward_source: e.forwardSource,
    days_to_expiry: e.days,
    time_to_expiry_years: round(e.t, 8),
    risk_free_rate: percent(r, 4),
    lot_size: (lot?.call ?? lot?.put)?.quote.lotSize ?? null,
    atm_strike: e.atmStrike,
    atm_iv: percent(e.atmIv),
    skew_25d: percent(e.skew25d),
    max_pain: e.maxPain?.strike ?? null,
    pcr: { oi: round(e.ratios.oi, 4), volume: round(e.ratios.volume, 4) },
    strikes_each_side: each ?? null,
    strikes: strikeWindow(e, each).map((s) => ({
      strike: s.strike,
      call: sideView(s.call),
      put: sideView(s.put),
    })),
  };
}
