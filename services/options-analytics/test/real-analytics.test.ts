import { describe, expect, it } from 'vitest';
import { analyseExpiries, analyseExpiry } from '../src/analytics/chain-analytics.ts';
import { ivStandings } from '../src/analytics/iv-rank.ts';
import { dailyRowFromSnapshot } from '../src/domain/daily-row.ts';
import { expiryQuotes } from '../src/domain/snapshot.ts';
import { parseUdiff } from '../src/import/udiff.ts';
import { rollingRealisedVol } from '../src/service/iv-history.ts';
import { NIFTY_BANKNIFTY_DIR, niftyBankniftyFiles, readReal } from './realdata.ts';

const R = 0.065;

/**
 * Max pain and PCR straight from the raw CSV lines, with nothing of the importer or the analytics: the
 * hand computation, as a program. Pain at each listed strike is Σ callOI·max(K − k, 0) + putOI·max(k − K, 0).
 */
function byHand(csv: string, expiry: string) {
  const [header, ...lines] = csv.trim().split('\n');
  const col = Object.fromEntries(header!.split(',').map((h, i) => [h, i]));
  const calls = new Map<number, number>();
  const puts = new Map<number, number>();
  let callVolume = 0;
  let putVolume = 0;
  for (const line of lines) {
    const f = line.split(',');
    if (f[col.FinInstrmTp!] !== 'IDO' || f[col.FininstrmActlXpryDt!] !== expiry) continue;
    const k = Number(f[col.StrkPric!]);
    const oi = Number(f[col.OpnIntrst!]);
    const side = f[col.OptnTp!] === 'CE' ? calls : puts;
    side.set(k, (side.get(k) ?? 0) + oi);
    if (f[col.OptnTp!] === 'CE') callVolume += Number(f[col.TtlTradgVol!]);
    else putVolume += Number(f[col.TtlTradgVol!]);
  }
  let best = { strike: 0, pain: Number.POSITIVE_INFINITY };
  for (const k of [...new Set([...calls.keys(), ...puts.keys()])].sort((a, b) => a - b)) {
    let pain = 0;
    for (const [s, oi] of calls) pain += oi * Math.max(k - s, 0);
    for (const [s, oi] of puts) pain += oi * Math.max(s - k, 0);
    if (pain < best.pain) best = { strike: k, pain };
  }
  const sum = (m: Map<number, number>) => [...m.values()].reduce((a, b) => a + b, 0);
  return { maxPain: best.strike, pcrOi: sum(puts) / sum(calls), pcrVolume: putVolume / callVolume };
}

describe('max pain and PCR on a real day, checked by hand (NIFTY and BANKNIFTY, 27 March 2026)', () => {
  for (const [symbol, expiry, maxPain, pcrOi, pcrVolume] of [
    // Worked out from the raw file independently (a short Python script over the CSV), then here again.
    ['NIFTY', '2026-03-30', 23150, 141_580_830 / 160_725_320, 43_089_453 / 35_158_203],
    ['NIFTY', '2026-04-07', 23600, 28_183_025 / 31_009_225, 1_140_377 / 1_370_715],
    ['BANKNIFTY', '2026-03-30', 54300, 14_923_725 / 18_337_465, 4_119_061 / 4_024_423],
  ] as const) {
    it(`${symbol} ${expiry}: max pain ${maxPain}, PCR(OI) ${pcrOi.toFixed(4)}`, () => {
      const csv = readReal(`${NIFTY_BANKNIFTY_DIR}${symbol}_2026-03-27.csv`);
      const hand = byHand(csv, expiry);
      expect(hand.maxPain).toBe(maxPain);
      expect(hand.pcrOi).toBeCloseTo(pcrOi, 12);
      expect(hand.pcrVolume).toBeCloseTo(pcrVolume, 12);
      const [snapshot] = parseUdiff(csv);
      const e = analyseExpiry(expiryQuotes(snapshot!).find((q) => q.expiry === expiry)!, {
        snapshotMs: snapshot!.snapshotMs,
        spot: snapshot!.underlyingPrice,
        r: R,
      })!;
      expect(e.maxPain!.strike).toBe(maxPain);
      expect(e.ratios.oi).toBeCloseTo(pcrOi, 12);
      expect(e.ratios.volume).toBeCloseTo(pcrVolume, 12);
    });
  }
});

describe('analytics over every real NIFTY and BANKNIFTY day (January 2025, January-March 2026)', () => {
  const days = niftyBankniftyFiles().map((f) => {
    const [snapshot] = parseUdiff(readReal(f.path));
    const expiries = analyseExpiries(expiryQuotes(snapshot!), {
      snapshotMs: snapshot!.snapshotMs,
      spot: snapshot!.underlyingPrice,
      r: R,
    });
    return { ...f, snapshot: snapshot!, expiries, row: dailyRowFromSnapshot(snapshot!, R, 'nse_udiff') };
  });

  it('covers 66 trading days of each index', () => {
    expect(days.filter((d) => d.symbol === 'NIFTY')).toHaveLength(66);
    expect(days.filter((d) => d.symbol === 'BANKNIFTY')).toHaveLength(66);
  });

  it('implies each near expiry’s forward from put-call parity, next to the future and the spot', () => {
    for (const d of days) {
      const near = d.expiries.filter((e) => e.days <= 40);
      expect(near.length).toBeGreaterThan(0);
      for (const e of near) {
        // A thinly traded weekly may have no strike traded on both sides: its carry comes from the others.
        expect(['put_call_parity', 'implied_carry'], `${d.path} ${e.expiry}`).toContain(e.forwardSource);
        expect(Math.abs(e.forward / d.snapshot.underlyingPrice - 1), `${d.path} ${e.expiry}`).toBeLessThan(
          0.012,
        );
        const future = d.snapshot.futures.find((f) => f.expiry === e.expiry)?.close;
        if (future) expect(Math.abs(e.forward / future - 1), `${d.path} ${e.expiry}`).toBeLessThan(0.0035);
      }
    }
  });

  it('gives calls and puts of the same near-the-money strike the same IV (median gap under 0.1 vol point)', () => {
    const gaps: number[] = [];
    for (const d of days)
      for (const e of d.expiries.filter((x) => x.days >= 2 && x.days <= 40))
        for (const s of e.strikes.filter((k) => Math.abs(k.strike / e.forward - 1) < 0.01)) {
          if (s.call?.iv == null || s.put?.iv == null) continue;
          if (s.call.quote.volume < 1000 || s.put.quote.volume < 1000) continue;
          gaps.push(Math.abs(s.call.iv - s.put.iv));
          // Closes are end-of-day averages of each leg on its own; they never disagree by 3 vol points.
          expect(gaps.at(-1)!, `${d.path} ${e.expiry} ${s.strike}`).toBeLessThan(0.03);
        }
    expect(gaps.length).toBeGreaterThan(2000);
    gaps.sort((a, b) => a - b);
    expect(gaps[Math.floor(gaps.length * 0.5)]!).toBeLessThan(0.001);
    expect(gaps[Math.floor(gaps.length * 0.9)]!).toBeLessThan(0.005);
  });

  it('has a plausible, complete daily row every day: 30-day ATM IV, positive index skew, PCR, max pain', () => {
    for (const { row, path, snapshot } of days) {
      expect(row.atmIv, path).not.toBeNull();
      expect(row.atmIv!, path).toBeGreaterThan(0.06);
      expect(row.atmIv!, path).toBeLessThan(0.45);
      expect(row.skew25d!, path).toBeGreaterThan(0);
      expect(row.pcrOi!, path).toBeGreaterThan(0.4);
      expect(row.pcrOi!, path).toBeLessThan(2);
      expect(Math.abs(row.maxPain! / snapshot.underlyingPrice - 1), path).toBeLessThan(0.08);
      expect(row.maxPainExpiry! > row.tradeDate).toBe(true);
    }
  });

  it('ranks the IVs and measures realised volatility across the days, breaking at the gap in the data', () => {
    const nifty = days.filter((d) => d.symbol === 'NIFTY').map((d) => d.row);
    const standings = ivStandings(nifty.map((r) => ({ date: r.tradeDate, iv: r.atmIv })));
    expect(standings.slice(0, 19).every((s) => s.rank === null)).toBe(true);
    // From the 20th observation in a trailing year on, every day has a rank and a percentile.
    for (const s of standings.slice(-35)) {
      expect(s.rank!).toBeGreaterThanOrEqual(0);
      expect(s.rank!).toBeLessThanOrEqual(100);
      expect(s.percentile!).toBeGreaterThanOrEqual(0);
      expect(s.percentile!).toBeLessThanOrEqual(100);
    }
    const rv = rollingRealisedVol(nifty, 20);
    const firstOf2026 = nifty.findIndex((r) => r.tradeDate >= '2026-01-01');
    expect(rv.slice(0, firstOf2026 + 20).every((v) => v === null)).toBe(true); // 2025-01-10 → 2026-01-01 is no return
    expect(rv.at(-1)!).toBeGreaterThan(0.05);
    expect(rv.at(-1)!).toBeLessThan(0.6);
  });
});
