import { ivStandings } from '../analytics/iv-rank.ts';
import type { DailyRow } from '../domain/daily-row.ts';
import type { AnalysedSnapshot } from './analysed-snapshot.ts';
import { contracts } from './chain-view.ts';
import { percent, round } from './format.ts';
import { rollingRealisedVol } from './iv-history.ts';

const RV_WINDOWS = [10, 20, 60] as const;

/**
 * Per-stock derivatives analytics: the underlying's 30-day ATM IV with its IV rank and percentile over
 * the trailing year, realised volatility, PCRs over all expiries, and per expiry ATM IV, 25-delta skew,
 * max pain, PCRs and open interest by strike (in contracts).
 */
export function stockOptionsView(a: AnalysedSnapshot, history: readonly DailyRow[], r: number) {
  const standings = ivStandings(history.map((h) => ({ date: h.tradeDate, iv: h.atmIv })));
  const last = history.length - 1;
  const lastRow = history[last];
  const standing = lastRow?.tradeDate === a.snapshot.tradeDate ? standings[last] : undefined;
  const realised = Object.fromEntries(
    RV_WINDOWS.map((w) => [
      `${w}d`,
      lastRow?.tradeDate === a.snapshot.tradeDate ? percent(rollingRealisedVol(history, w)[last]) : null,
    ]),
  );
  const s = a.summary;
  return {
    symbol: a.snapshot.underlying,
    kind: a.snapshot.kind,
    snapshot_ts: new Date(a.snapshot.snapshotMs).toISOString(),
    trade_date: a.snapshot.tradeDate,
    underlying_price: round(a.snapshot.underlyingPrice, 2),
    lot_size: a.lotSize,
    risk_free_rate: percent(r, 4),
    atm_iv_30d: percent(s.atmIv30),
    skew_25d_30d: percent(s.skew30),
    iv_rank: round(standing?.rank, 2),
    iv_percentile: round(standing?.percentile, 2),
    realised_vol: realised,
    pcr: { oi: round(s.ratios.oi, 4), volume: round(s.ratios.volume, 4) },
    max_pain: s.maxPain?.strike ?? null,
    max_pain_expiry: s.maxPainExpiry,
    expiries: a.expiries.map((e) => {
      let callOi = 0;
      let putOi = 0;
      const byStrike = e.strikes.map((k) => {
        const c = k.call ? contracts(k.call.quote.oi, k.call.quote.lotSize) : null;
        const p = k.put ? contracts(k.put.quote.oi, k.put.quote.lotSize) : null;
        callOi += c ?? 0;
        putOi += p ?? 0;
        return {
          strike: k.strike,
          call_oi: c,
          put_oi: p,
          call_oi_change: k.call ? contracts(k.call.quote.oiChange, k.call.quote.lotSize) : null,
          put_oi_change: k.put ? contracts(k.put.quote.oiChange, k.put.quote.lotSize) : null,
        };
      });
      return {
        expiry: e.expiry,
        days_to_expiry: e.days,
        forward: round(e.forward, 2),
        forward_source: e.forwardSource,
        atm_strike: e.atmStrike,
        atm_iv: percent(e.atmIv),
        skew_25d: percent(e.skew25d),
        max_pain: e.maxPain?.strike ?? null,
        pcr: { oi: round(e.ratios.oi, 4), volume: round(e.ratios.volume, 4) },
        call_oi: callOi,
        put_oi: putOi,
        call_volume: e.totals.callVolume,
        put_volume: e.totals.putVolume,
        oi_by_strike: byStrike,
      };
    }),
  };
}
