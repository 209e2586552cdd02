import { day, isTradingDay } from '@mdp/nse-calendar';
import { describe, expect, it } from 'vitest';
import { type BarRow, isConsistentBar } from '../../model.ts';
import { INDEX_FAMILIES } from '../../vocabulary.ts';
import { type GeneratedDataset, generateDataset, latestReportedFiscalYear } from '../dataset.ts';
import { INDEX_DEFINITIONS } from './definitions.ts';
import { type GeneratedIndex, generateIndices } from './index.ts';

const END = day('2026-11-20');
// Large enough that every rank range (up to 750 main-board equities) is filled.
const make = () => generateDataset({ seed: 5, size: 2_000, endDay: END, historyDays: 2_200 });
const ds = make();
const all = generateIndices(ds);
const byName = new Map(all.map((i) => [i.name, i]));
const stockOf = new Map(ds.stocks.map((s) => [s.id, s]));

function barsOf(g: GeneratedDataset, id: number): BarRow[] {
  const out: BarRow[] = [];
  g.emitBars(id, (b) => out.push(b));
  return out;
}

/** Shares in issue on day d, written out from the corporate actions independently of the generator. */
function sharesOn(g: GeneratedDataset, id: number, d: number): number {
  let shares = stockOf.get(id)!.sharesOutstanding!;
  for (const a of g.actions)
    if (a.stockId === id && a.exDate > d) shares = (shares * a.ratioOld) / a.ratioNew;
  return shares;
}

/** Close-to-close changes of an index recomputed from its constituents' bars. */
function recomputedChanges(index: GeneratedIndex, weighting: 'cap' | 'equal'): Map<number, number> {
  const value = new Map<number, Map<number, number>>();
  for (const id of index.constituents)
    value.set(id, new Map(barsOf(ds, id).map((b) => [b.d, b.close * sharesOn(ds, id, b.d)])));
  const out = new Map<number, number>();
  for (let i = 1; i < index.bars.length; i++) {
    const [prev, cur] = [index.bars[i - 1]!.d, index.bars[i]!.d];
    let before = 0;
    let after = 0;
    let n = 0;
    for (const v of value.values()) {
      const a = v.get(prev);
      const b = v.get(cur);
      if (a === undefined || b === undefined) continue;
      n++;
      if (weighting === 'cap') {
        before += a;
        after += b;
      } else {
        before += 1;
        after += b / a;
      }
    }
    if (n > 0) out.set(cur, after / before);
  }
  return out;
}

describe('generated indices', () => {
  it('has about 140 uniquely named indices in all four families, every one generated', () => {
    expect(INDEX_DEFINITIONS.length).toBeGreaterThanOrEqual(130);
    expect(INDEX_DEFINITIONS.length).toBeLessThanOrEqual(150);
    expect(new Set(INDEX_DEFINITIONS.map((d) => d.name.toUpperCase())).size).toBe(INDEX_DEFINITIONS.length);
    expect(all.map((i) => i.name)).toEqual(INDEX_DEFINITIONS.map((d) => d.name));
    for (const f of INDEX_FAMILIES) expect(all.filter((i) => i.family === f).length).toBeGreaterThan(10);
    for (const name of [
      'NIFTY 50',
      'NIFTY NEXT 50',
      'NIFTY BANK',
      'NIFTY FINANCIAL SERVICES',
      'NIFTY MIDCAP SELECT',
    ])
      expect(byName.get(name)?.constituents.length).toBeGreaterThan(0);
  });

  it('is deterministic, and `only` gives exactly the same indices as the whole family', () => {
    const again = generateIndices(make(), ['nifty bank', 'NIFTY 50', 'NIFTY200 MOMENTUM 30']);
    expect(again).toEqual([
      byName.get('NIFTY BANK'),
      byName.get('NIFTY 50'),
      byName.get('NIFTY200 MOMENTUM 30'),
    ]);
    expect(() => generateIndices(ds, ['NIFTY 51'])).toThrow(/NIFTY 51/);
  });

  it('picks constituents by rule: NIFTY 50 is the 50 largest listed main-board equities, sectorals their sector', () => {
    const cap = new Map(
      ds.stocks.map((s) => [s.id, (barsOf(ds, s.id).at(-1)?.close ?? 0) * sharesOn(ds, s.id, END)]),
    );
    const mcap = (id: number) => cap.get(id)!;
    const eligible = ds.stocks
      .filter(
        (s) => s.stockType === 'equity' && s.status === 'listed' && s.board === 'main' && ds.plans.has(s.id),
      )
      .sort((a, b) => mcap(b.id) - mcap(a.id));
    expect(new Set(byName.get('NIFTY 50')!.constituents)).toEqual(
      new Set(eligible.slice(0, 50).map((s) => s.id)),
    );
    expect(new Set(byName.get('NIFTY NEXT 50')!.constituents)).toEqual(
      new Set(eligible.slice(50, 100).map((s) => s.id)),
    );
    const top500 = new Set(eligible.slice(0, 500).map((s) => s.id));
    for (const id of byName.get('NIFTY BANK')!.constituents) {
      expect(stockOf.get(id)!.industry).toBe('Banks');
      expect(top500.has(id)).toBe(true);
    }
    for (const id of byName.get('NIFTY IT')!.constituents)
      expect(stockOf.get(id)!.sector).toBe('Information Technology');
    // Strategy: the low-volatility 30 are the NIFTY 100 members with the lowest daily volatility of the year.
    const vol = (id: number) => {
      const b = barsOf(ds, id).slice(-251);
      const r = b
        .slice(1)
        .map((x, i) =>
          Math.log((x.close * sharesOn(ds, id, x.d)) / (b[i]!.close * sharesOn(ds, id, b[i]!.d))),
        );
      const mean = r.reduce((x, y) => x + y, 0) / r.length;
      return Math.sqrt(r.reduce((x, y) => x + (y - mean) ** 2, 0) / (r.length - 1));
    };
    const calmest = [...byName.get('NIFTY 100')!.constituents].sort((a, b) => vol(a) - vol(b)).slice(0, 30);
    expect(new Set(byName.get('NIFTY100 LOW VOLATILITY 30')!.constituents)).toEqual(new Set(calmest));
  });

  it('moves as its constituents’ market value does, across splits and bonuses', () => {
    for (const [name, weighting] of [
      ['NIFTY 500', 'cap'],
      ['NIFTY50 EQUAL WEIGHT', 'equal'],
    ] as const) {
      const index = byName.get(name)!;
      const expected = recomputedChanges(index, weighting);
      expect(expected.size).toBe(index.bars.length - 1);
      for (let i = 1; i < index.bars.length; i++) {
        // Both levels are rounded to the paisa: the recomputed close is within a paisa or so.
        const [before, now] = [index.bars[i - 1]!, index.bars[i]!];
        expect(Math.abs(now.close - before.close * expected.get(now.d)!)).toBeLessThan(0.011);
      }
    }
    // The check above spans ex-dates: some NIFTY 500 company split or issued bonus shares in the history.
    const members = new Set(byName.get('NIFTY 500')!.constituents);
    const first = byName.get('NIFTY 500')!.bars[0]!.d;
    expect(ds.actions.some((a) => members.has(a.stockId) && a.exDate > first)).toBe(true);
  });

  it('has a bar on every session with consistent OHLC, and ratios from the constituents’ results', () => {
    const nifty = byName.get('NIFTY 50')!;
    expect(nifty.bars.every((b) => isTradingDay(b.d) && isConsistentBar(b))).toBe(true);
    expect(nifty.bars.at(-1)!.d).toBe(END);
    for (const b of nifty.bars)
      for (const v of [b.open, b.high, b.low, b.close]) expect(Math.round(v * 100) / 100).toBe(v);
    // P/E, P/B and dividend yield on the last day, by hand: total value over total profit, book, dividend.
    const fy = latestReportedFiscalYear(END);
    let value = 0;
    let profit = 0;
    let book = 0;
    let dividend = 0;
    for (const id of nifty.constituents) {
      const r = ds.annual.find((a) => a.stockId === id && a.fiscalYear === fy)!;
      value += (barsOf(ds, id).at(-1)!.close / 100) * stockOf.get(id)!.sharesOutstanding!;
      profit += r.netProfit * 1e7;
      book += r.equity * 1e7;
      dividend += r.dividendPs * stockOf.get(id)!.sharesOutstanding!;
    }
    const last = nifty.bars.at(-1)!;
    expect(last.pe).toBeCloseTo(value / profit, 2);
    expect(last.pb).toBeCloseTo(value / book, 2);
    expect(last.divYield).toBeCloseTo((100 * dividend) / value, 2);
  });
});
