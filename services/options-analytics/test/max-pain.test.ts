import { describe, expect, it } from 'vitest';
import { maxPain, type StrikeOi } from '../src/analytics/max-pain.ts';

function naive(rows: StrikeOi[]) {
  let best: { strike: number; payout: number } | null = null;
  for (const { strike } of [...rows].sort((a, b) => a.strike - b.strike)) {
    let payout = 0;
    for (const r of rows)
      payout += r.callOi * Math.max(strike - r.strike, 0) + r.putOi * Math.max(r.strike - strike, 0);
    if (best === null || payout < best.payout) best = { strike, payout };
  }
  return best;
}

describe('max pain', () => {
  it('works a small example by hand', () => {
    // At 100: calls below pay nothing (none below), puts above pay 10·(110−100)+40·(120−100) = 900.
    // At 110: calls 30·10 = 300; puts 40·10 = 400 → 700. At 120: calls 30·20 + 20·10 = 800; puts 0 → 800.
    const rows = [
      { strike: 100, callOi: 30, putOi: 5 },
      { strike: 110, callOi: 20, putOi: 10 },
      { strike: 120, callOi: 10, putOi: 40 },
    ];
    expect(maxPain(rows)).toEqual({ strike: 110, payout: 700 });
  });

  it('equals the direct O(n²) computation on random chains, merging duplicate strikes', () => {
    let seed = 99;
    const rnd = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    for (let trial = 0; trial < 200; trial++) {
      const rows: StrikeOi[] = [];
      const n = 1 + Math.floor(rnd() * 60);
      for (let i = 0; i < n; i++)
        rows.push({
          strike: 20000 + 50 * Math.floor(rnd() * 80),
          callOi: Math.floor(rnd() * 1e6),
          putOi: Math.floor(rnd() * 1e6),
        });
      const merged = new Map<number, StrikeOi>();
      for (const r of rows) {
        const m = merged.get(r.strike) ?? { strike: r.strike, callOi: 0, putOi: 0 };
        merged.set(r.strike, { strike: r.strike, callOi: m.callOi + r.callOi, putOi: m.putOi + r.putOi });
      }
      const expected = naive([...merged.values()]);
      const got = maxPain(rows)!;
      if (expected!.payout === 0 && got.payout === 0) continue;
      expect(got.strike).toBe(expected!.strike);
      expect(got.payout).toBeCloseTo(expected!.payout, 0);
    }
  });

  it('gives ties to the lower strike and null without open interest', () => {
    expect(maxPain([{ strike: 100, callOi: 0, putOi: 0 }])).toBeNull();
    expect(maxPain([])).toBeNull();
    const tie = maxPain([
      { strike: 100, callOi: 10, putOi: 0 },
      { strike: 110, callOi: 0, putOi: 10 },
    ]);
    expect(tie).toEqual({ strike: 100, payout: 100 });
  });
});
