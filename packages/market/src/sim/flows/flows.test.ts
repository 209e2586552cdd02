import { createHash } from 'node:crypto';
import { day, formatDay, tradingDays } from '@mdp/nse-calendar';
import { describe, expect, it } from 'vitest';
import { PARTICIPANTS } from '../../vocabulary.ts';
import { generateDataset } from '../dataset.ts';
import { SECTORS } from '../taxonomy.ts';
import { apportion } from './apportion.ts';
import { fortnightEnds } from './fpi.ts';
import { generateMarketFlows } from './index.ts';
import { marketReturns } from './market-returns.ts';
import { INSTRUMENT_SIDES } from './model.ts';

const END = day('2026-11-20');
const dataset = (seed: number, historyDays = 900) =>
  generateDataset({ seed, size: 300, endDay: END, historyDays });
const fingerprint = (seed: number) =>
  createHash('sha256')
    .update(JSON.stringify(generateMarketFlows(dataset(seed))))
    .digest('hex');

function correlation(a: readonly number[], b: readonly number[]): number {
  const mean = (x: readonly number[]) => x.reduce((s, v) => s + v, 0) / x.length;
  const [ma, mb] = [mean(a), mean(b)];
  let ab = 0;
  let aa = 0;
  let bb = 0;
  for (let i = 0; i < a.length; i++) {
    ab += (a[i]! - ma) * (b[i]! - mb);
    aa += (a[i]! - ma) ** 2;
    bb += (b[i]! - mb) ** 2;
  }
  return ab / Math.sqrt(aa * bb);
}

describe('apportion', () => {
  it('splits a total into parts proportional to the weights that add up to it exactly', () => {
    expect(apportion(10, [1, 1, 1])).toEqual([4, 3, 3]);
    expect(apportion(10_000, [1, 2, 7])).toEqual([1000, 2000, 7000]);
    const parts = apportion(9_999, [0.3, 0.1, 0.77, 0.005]);
    expect(parts.reduce((a, b) => a + b, 0)).toBe(9_999);
    expect(apportion(5, [0, 0])).toEqual([5, 0]);
  });
});

describe('fortnight ends', () => {
  it('are the 15th and the last day of each month', () => {
    expect(fortnightEnds(day('2024-01-20'), day('2024-03-15')).map(formatDay)).toEqual([
      '2024-01-31',
      '2024-02-15',
      '2024-02-29',
      '2024-03-15',
    ]);
  });
});

describe('generated market flows', () => {
  const ds = dataset(5);
  const flows = generateMarketFlows(ds);
  const sessions = tradingDays(END - 900, END);

  it('are deterministic for a seed and differ for another', () => {
    expect(fingerprint(9)).toBe(fingerprint(9));
    expect(fingerprint(10)).not.toBe(fingerprint(9));
  });

  it('have one cash row per NSE session of the history, with gross amounts of plausible size', () => {
    expect(flows.cash.map((r) => r.d)).toEqual(sessions);
    expect(flows.cash.every((r) => r.period === 'day')).toBe(true);
    for (const r of flows.cash) {
      for (const v of [r.fiiBuy, r.fiiSell, r.diiBuy, r.diiSell]) {
        expect(Number.isInteger(v)).toBe(true);
        // 1,000 to 60,000 crore a session, in hundredths of a crore.
        expect(v).toBeGreaterThan(100_000);
        expect(v).toBeLessThan(6_000_000);
      }
    }
    const fiiNet = flows.cash.map((r) => (r.fiiBuy - r.fiiSell) / 100);
    const typical = fiiNet.reduce((a, b) => a + Math.abs(b), 0) / fiiNet.length;
    expect(typical).toBeGreaterThan(800);
    expect(typical).toBeLessThan(6_000);
    // DIIs are net buyers over time (steady domestic inflows).
    expect(flows.cash.reduce((a, r) => a + r.diiBuy - r.diiSell, 0)).toBeGreaterThan(0);
  });

  it('move with the market: FII net buying rises with the day’s return, DIIs lean the other way', () => {
    const { returns } = marketReturns(ds);
    const fii = flows.cash.map((r) => r.fiiBuy - r.fiiSell);
    const dii = flows.cash.map((r) => r.diiBuy - r.diiSell);
    expect(correlation(fii, [...returns])).toBeGreaterThan(0.3);
    expect(correlation(fii, dii)).toBeLessThan(-0.3);
  });

  it('balance participant positions: per instrument the longs and the shorts add up to the same total', () => {
    const days = new Set(flows.participants.map((r) => r.d));
    expect([...days]).toEqual(sessions);
    for (const d of sessions.slice(-40))
      for (const kind of ['oi', 'volume'] as const) {
        const rows = flows.participants.filter((r) => r.d === d && r.kind === kind);
        expect(rows.map((r) => r.participant)).toEqual([...PARTICIPANTS, 'total']);
        const total = rows.find((r) => r.participant === 'total')!.positions;
        for (const [long, short] of Object.values(INSTRUMENT_SIDES)) {
          const parts = rows.filter((r) => r.participant !== 'total');
          expect(parts.reduce((a, r) => a + r.positions[long], 0)).toBe(total[long]);
          expect(parts.reduce((a, r) => a + r.positions[short], 0)).toBe(total[short]);
          expect(total[long]).toBe(total[short]);
          expect(total[long]).toBeGreaterThan(0);
        }
      }
  });

  it('lean FIIs long index futures after they have been buying cash', () => {
    const recent: number[] = [];
    const lean: number[] = [];
    for (let t = 10; t < flows.cash.length; t++) {
      recent.push(flows.cash.slice(t - 9, t + 1).reduce((a, r) => a + r.fiiBuy - r.fiiSell, 0));
      const fii = flows.participants.find(
        (r) => r.d === sessions[t] && r.kind === 'oi' && r.participant === 'fii',
      )!;
      lean.push(Math.log(fii.positions.futIdxLong / fii.positions.futIdxShort));
    }
    expect(correlation(recent, lean)).toBeGreaterThan(0.3);
  });

  it('give FII derivatives statistics that agree with the FII participant rows', () => {
    const d = sessions.at(-1)!;
    const fiiVol = flows.participants.find(
      (r) => r.d === d && r.kind === 'volume' && r.participant === 'fii',
    )!;
    const fiiOi = flows.participants.find((r) => r.d === d && r.kind === 'oi' && r.participant === 'fii')!;
    const stats = flows.fiiDerivatives.filter((r) => r.d === d);
    expect(stats.map((r) => r.instrument)).toEqual([
      'index_futures',
      'index_options',
      'stock_futures',
      'stock_options',
    ]);
    const idx = stats[0]!;
    expect(idx.buyContracts).toBe(fiiVol.positions.futIdxLong);
    expect(idx.sellContracts).toBe(fiiVol.positions.futIdxShort);
    expect(idx.oiContracts).toBe(fiiOi.positions.futIdxLong + fiiOi.positions.futIdxShort);
    expect(idx.buyAmount).toBeGreaterThan(0);
  });

  it('hold FPI assets for every sector of the taxonomy, with sector flows adding up to the FII flow', () => {
    const ends = [...new Set(flows.fpiSectors.map((r) => r.periodEnd))];
    expect(ends).toEqual(fortnightEnds(sessions[0]!, END));
    let previous = sessions[0]! - 1;
    for (const end of ends) {
      const rows = flows.fpiSectors.filter((r) => r.periodEnd === end);
      expect(rows.map((r) => r.sector)).toEqual(SECTORS.map((s) => s.sector));
      expect(rows.every((r) => r.aum > 0)).toBe(true);
      const fii = flows.cash
        .filter((r) => r.d > previous && r.d <= end)
        .reduce((a, r) => a + r.fiiBuy - r.fiiSell, 0);
      expect(rows.reduce((a, r) => a + r.flow, 0)).toBe(fii);
      previous = end;
    }
  });
});
