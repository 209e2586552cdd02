import { createHash } from 'node:crypto';
import { day, isTradingDay } from '@mdp/nse-calendar';
import { describe, expect, it } from 'vitest';
import { isValidIsin } from '../isin.ts';
import { type BarRow, isConsistentBar } from '../model.ts';
import { DEFAULT_SEED, DEFAULT_SIZE, generateDataset } from './dataset.ts';
import { symbolCandidates } from './names.ts';

const END = day('2026-11-20');

function fingerprint(seed: number) {
  const g = generateDataset({ seed, size: 150, endDay: END, historyDays: 400 });
  const hash = createHash('sha256').update(JSON.stringify([g.stocks, g.aliases, g.actions, g.annual]));
  for (const id of g.stocksWithBars) g.emitBars(id, (b) => hash.update(JSON.stringify(b)));
  return hash.digest('hex');
}

describe('the default-dataset generator', () => {
  it('finds every company a unique symbol of at most ten characters, whatever the history length', () => {
    const candidates = [...symbolCandidates('Bharat Heavy Electricals Limited')];
    expect(candidates.length).toBeGreaterThan(900);
    expect(candidates.every((c) => /^[A-Z0-9]{3,10}$/.test(c))).toBe(true);
    // The default universe with a short history once ran out of candidates for one name.
    const g = generateDataset({ seed: DEFAULT_SEED, size: DEFAULT_SIZE, endDay: END, historyDays: 60 });
    expect(new Set(g.stocks.map((s) => s.symbol)).size).toBe(DEFAULT_SIZE);
  });

  it('is deterministic: the same seed gives the same data, another seed other data', () => {
    expect(fingerprint(11)).toBe(fingerprint(11));
    expect(fingerprint(12)).not.toBe(fingerprint(11));
  });

  const g = generateDataset({ seed: 3, size: 800, endDay: END, historyDays: 2_200 });
  const bars = new Map<number, BarRow[]>();
  for (const id of g.stocksWithBars) {
    const list: BarRow[] = [];
    g.emitBars(id, (b) => list.push(b));
    bars.set(id, list);
  }
  const listedEquities = g.stocks.filter((s) => s.status === 'listed' && s.stockType === 'equity');

  it('has the shape of the real universe: kinds, exchanges, listed and delisted', () => {
    expect(g.stocks).toHaveLength(800);
    const types = new Set(g.stocks.map((s) => s.stockType));
    for (const t of ['equity', 'etf', 'index_fund', 'bond', 'reit', 'invit', 'closed_end_fund'])
      expect(types).toContain(t);
    const delisted = g.stocks.filter((s) => s.status === 'delisted');
    expect(delisted.length / g.stocks.length).toBeGreaterThan(0.1);
    expect(delisted.every((s) => s.delistedOn !== null && s.delistingReason)).toBe(true);
    expect(g.stocks.some((s) => s.nseSymbol && s.bseCode)).toBe(true);
    expect(g.stocks.some((s) => s.nseSymbol && !s.bseCode)).toBe(true);
    expect(g.stocks.some((s) => !s.nseSymbol && s.bseCode && s.symbol === s.bseCode)).toBe(true);
    expect(g.stocks.some((s) => s.board === 'sme')).toBe(true);
  });

  it('gives valid, unique ISINs, symbols and BSE codes', () => {
    expect(g.stocks.every((s) => s.isin && isValidIsin(s.isin))).toBe(true);
    expect(new Set(g.stocks.map((s) => s.isin)).size).toBe(g.stocks.length);
    expect(new Set(g.stocks.map((s) => s.symbol)).size).toBe(g.stocks.length);
    expect(g.stocks.every((s) => /^[A-Z0-9&._-]{1,10}$/.test(s.symbol))).toBe(true);
    const codes = g.stocks.flatMap((s) => (s.bseCode ? [s.bseCode] : []));
    expect(new Set(codes).size).toBe(codes.length);
    expect(codes.every((c) => /^5\d{5}$/.test(c))).toBe(true);
    const former = g.aliases.filter((a) => a.kind === 'former_symbol').map((a) => a.alias);
    expect(former.some((f) => g.stocks.some((s) => s.symbol === f))).toBe(false);
  });

  it('lists every stock on a trading day and describes it in plain words', () => {
    for (const s of g.stocks) if (s.listedOn !== null) expect(isTradingDay(s.listedOn), s.symbol).toBe(true);
    const etf = g.stocks.find((s) => s.stockType === 'etf')!;
    expect(etf.about).toMatch(/ is an ETF traded on /);
    const invit = g.stocks.find((s) => s.stockType === 'invit')!;
    expect(invit.about).toMatch(/ is an InvIT traded on /);
  });

  it('classifies every equity (macro sector, sector, industry) and gives brands and post-rename aliases', () => {
    expect(listedEquities.every((s) => s.macroSector && s.sector && s.industry)).toBe(true);
    expect(new Set(listedEquities.map((s) => s.sector)).size).toBeGreaterThan(15);
    const kinds = new Set(g.aliases.map((a) => a.kind));
    expect([...kinds].sort()).toEqual(['brand', 'former_name', 'former_symbol']);
    expect(g.aliases.filter((a) => a.kind !== 'brand').every((a) => a.until !== null && a.until < END)).toBe(
      true,
    );
  });

  const last = (s: { id: number }) => bars.get(s.id)!.at(-1)!.close;

  it('skews market caps like a real market: a few giants, a long tail of small companies', () => {
    const caps = listedEquities
      .map((s) => (s.sharesOutstanding! * bars.get(s.id)!.at(-1)!.close) / 1e9)
      .sort((a, b) => b - a);
    const total = caps.reduce((a, b) => a + b, 0);
    const top = caps.slice(0, Math.ceil(caps.length * 0.02)).reduce((a, b) => a + b, 0);
    expect(top / total).toBeGreaterThan(0.25);
    expect(caps[0]! / caps[Math.floor(caps.length / 2)]!).toBeGreaterThan(500);
  });

  it('gives larger companies dearer shares, so share counts stay realistic', () => {
    const bySize = [...listedEquities].sort(
      (a, b) => b.sharesOutstanding! * last(b) - a.sharesOutstanding! * last(a),
    );
    const q = Math.floor(bySize.length / 4);
    const median = (list: typeof bySize) => list.map(last).sort((a, b) => a - b)[list.length >> 1]! / 100;
    expect(median(bySize.slice(0, q))).toBeGreaterThan(2 * median(bySize.slice(-q)));
    expect(median(listedEquities)).toBeGreaterThan(50);
    expect(median(listedEquities)).toBeLessThan(800);
  });

  it('writes at least 2,000 calendar days of daily bars on the trading calendar, prices always consistent', () => {
    let count = 0;
    for (const [id, list] of bars) {
      const stock = g.stocks[id - 1]!;
      if (stock.status === 'listed' && stock.listedOn! < END - 2_200)
        expect(list.at(-1)!.d - list[0]!.d).toBeGreaterThanOrEqual(2_000);
      for (const b of list) {
        count++;
        if (
          !isTradingDay(b.d) ||
          !isConsistentBar(b) ||
          b.volume < 1 ||
          b.deliveryQty! > b.volume ||
          b.low < 1
        )
          throw new Error(`bad bar ${JSON.stringify(b)}`);
      }
    }
    expect(count).toBeGreaterThan(500_000);
  });

  it('applies splits and bonuses on their ex-dates: the traded price drops by the ratio', () => {
    expect(g.actions.length).toBeGreaterThan(10);
    expect(new Set(g.actions.map((a) => a.kind))).toEqual(new Set(['split', 'bonus']));
    for (const a of g.actions) {
      const list = bars.get(a.stockId)!;
      const i = list.findIndex((b) => b.d === a.exDate);
      const ratio = list[i]!.open / list[i - 1]!.close;
      expect(ratio / (a.ratioOld / a.ratioNew)).toBeGreaterThan(0.85);
      expect(ratio / (a.ratioOld / a.ratioNew)).toBeLessThan(1.15);
      // Adjusted for the action, the series has no jump.
      const adjusted = (list[i - 1]!.close * (a.ratioOld / a.ratioNew)) / list[i]!.open;
      expect(adjusted).toBeGreaterThan(0.85);
      expect(adjusted).toBeLessThan(1.15);
    }
  });

  it('correlates returns within a sector more than across sectors, and small companies swing more', () => {
    const rets = new Map<number, Map<number, number>>();
    for (const s of listedEquities) {
      const list = bars.get(s.id)!.slice(-250);
      const m = new Map<number, number>();
      for (let i = 1; i < list.length; i++) m.set(list[i]!.d, Math.log(list[i]!.close / list[i - 1]!.close));
      rets.set(s.id, m);
    }
    const corr = (a: Map<number, number>, b: Map<number, number>) => {
      const xs: number[] = [];
      const ys: number[] = [];
      for (const [d, x] of a) {
        if (!b.has(d)) continue;
        xs.push(x);
        ys.push(b.get(d)!);
      }
      const mean = (v: number[]) => v.reduce((p, q) => p + q, 0) / v.length;
      const [mx, my] = [mean(xs), mean(ys)];
      let sxy = 0;
      let sxx = 0;
      let syy = 0;
      for (let i = 0; i < xs.length; i++) {
        sxy += (xs[i]! - mx) * (ys[i]! - my);
        sxx += (xs[i]! - mx) ** 2;
        syy += (ys[i]! - my) ** 2;
      }
      return sxy / Math.sqrt(sxx * syy);
    };
    const sample = listedEquities.slice(0, 160);
    let same = 0;
    let sameN = 0;
    let other = 0;
    let otherN = 0;
    for (let i = 0; i < sample.length; i++)
      for (let j = i + 1; j < sample.length; j++) {
        const c = corr(rets.get(sample[i]!.id)!, rets.get(sample[j]!.id)!);
        if (sample[i]!.sector === sample[j]!.sector) {
          same += c;
          sameN++;
        } else {
          other += c;
          otherN++;
        }
      }
    expect(other / otherN).toBeGreaterThan(0.05);
    expect(same / sameN).toBeGreaterThan(other / otherN + 0.05);

    const vol = (id: number) => {
      const v = [...rets.get(id)!.values()];
      const m = v.reduce((a, b) => a + b, 0) / v.length;
      return Math.sqrt(v.reduce((a, b) => a + (b - m) ** 2, 0) / v.length);
    };
    const bySize = [...listedEquities].sort(
      (a, b) =>
        b.sharesOutstanding! * bars.get(b.id)!.at(-1)!.close -
        a.sharesOutstanding! * bars.get(a.id)!.at(-1)!.close,
    );
    const q = Math.floor(bySize.length / 4);
    const avgVol = (list: typeof bySize) => list.reduce((a, s) => a + vol(s.id), 0) / list.length;
    expect(avgVol(bySize.slice(-q))).toBeGreaterThan(avgVol(bySize.slice(0, q)) * 1.3);
  });

  it('gives listed companies consistent annual results and some credit ratings', () => {
    const withResults = new Set(g.annual.map((r) => r.stockId));
    expect(listedEquities.filter((s) => !withResults.has(s.id))).toHaveLength(0);
    expect(g.annual.every((r) => r.sales > 0 && r.equity > 0 && Number.isFinite(r.netProfit))).toBe(true);
    expect(g.ratings.length).toBeGreaterThan(listedEquities.length * 0.3);
  });
});
