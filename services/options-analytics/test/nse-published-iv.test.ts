import { describe, expect, it } from 'vitest';
import { analyseExpiry, type OptionQuote } from '../src/analytics/chain-analytics.ts';
import { readReal } from './realdata.ts';

/** NSE's option-chain API records of 21 July 2025 (strike, expiry, and each side as a Python dict). */
function nseChain() {
  const sides: (OptionQuote & { expiry: string; nseIv: number; spot: number })[] = [];
  for (const line of readReal('nse_option_chain_snapshots_2025-07/NIFTY_2025-07-21.csv')
    .split('\n')
    .slice(1)) {
    for (const m of line.matchAll(/"(\{.*?\})"/g)) {
      const o = JSON.parse(m[1]!.replace(/'/g, '"'));
      const type = /PE[\d.]+$/.test(o.identifier) ? 'put' : 'call';
      sides.push({
        expiry: o.expiryDate,
        strike: o.strikePrice,
        type,
        close: o.lastPrice > 0 ? o.lastPrice : null,
        last: o.lastPrice,
        bid: o.bidprice,
        ask: o.askPrice,
        oi: o.openInterest,
        oiChange: 0,
        volume: o.totalTradedVolume,
        lotSize: 75,
        nseIv: o.impliedVolatility / 100,
        spot: o.underlyingValue,
      });
    }
  }
  return sides;
}

describe("IVs against NSE's published ones (NIFTY option chain, 21 July 2025)", () => {
  const chain = nseChain();
  const spot = chain[0]!.spot;
  const analyse = (nseExpiry: string, iso: string) =>
    analyseExpiry(
      { expiry: iso, options: chain.filter((o) => o.expiry === nseExpiry), futureClose: null },
      { snapshotMs: Date.parse('2025-07-21T10:00:00Z'), spot, r: 0.065 },
    )!;

  it('agree to a third of a vol point on the out-of-the-money options of the nearest expiry', () => {
    const e = analyse('24-Jul-2025', '2025-07-24');
    let compared = 0;
    for (const s of e.strikes.filter((k) => Math.abs(k.strike - e.forward) < 400)) {
      const otm = s.strike >= e.forward ? s.call : s.put;
      const nse = chain.find(
        (o) => o.expiry === '24-Jul-2025' && o.strike === s.strike && o.type === otm?.quote.type,
      );
      if (!otm?.iv || !nse?.nseIv) continue;
      compared++;
      expect(Math.abs(otm.iv - nse.nseIv), `${s.strike} ${otm.quote.type}`).toBeLessThan(0.0033);
    }
    expect(compared).toBeGreaterThan(10);
  });

  it('price later expiries off the parity forward, where calls and puts agree (NSE, off spot, has them apart)', () => {
    const e = analyse('28-Aug-2025', '2025-08-28');
    const atm = e.strikes.find((s) => s.strike === e.atmStrike)!;
    expect(Math.abs(atm.call!.iv! - atm.put!.iv!)).toBeLessThan(0.005);
    const nseCall = chain.find(
      (o) => o.expiry === '28-Aug-2025' && o.strike === e.atmStrike && o.type === 'call',
    )!;
    const nsePut = chain.find(
      (o) => o.expiry === '28-Aug-2025' && o.strike === e.atmStrike && o.type === 'put',
    )!;
    expect(Math.abs(nseCall.nseIv - nsePut.nseIv)).toBeGreaterThan(0.02);
  });
});
