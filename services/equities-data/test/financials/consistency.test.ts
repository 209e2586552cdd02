import { FLOW_ROWS, financialsByCompany, periodLabel, quarterEnd } from '@mdp/market';
import { day } from '@mdp/nse-calendar';
import { describe, expect, it } from 'vitest';
import { financialsDocument, pctChange, type SectionDocument } from '../../src/areas/financials/document.ts';
import { yearRatios } from '../../src/areas/financials/ratios.ts';
import { profile } from '../../src/areas/stocks/documents.ts';
import { smallDataset } from '../support.ts';

// The whole generated universe of an 800-stock dataset: every listed equity is checked, not a sample.
const mem = smallDataset(800, day('2026-11-20'), 5, 200);
const TODAY = day('2026-11-22');
const entryOf = new Map(mem.dataset.entries.map((e) => [e.row.id, e]));
const docs = [...financialsByCompany(mem.generated)].map((rows) => ({
  stockId: rows[0]!.stockId,
  doc: financialsDocument(rows, TODAY),
}));

const close = (a: number | null | undefined, b: number | null | undefined, tol = 0.011) =>
  a !== null && a !== undefined && b !== null && b !== undefined && Math.abs(a - b) <= tol;
const col = (s: SectionDocument, row: string, period: string) => s.data[row]?.[period] ?? undefined;
const valuesOf = (s: SectionDocument, period: string) =>
  Object.fromEntries(s.row_order.map((r) => [r, s.data[r]![period]!])) as Record<string, number>;

describe('financials of the whole generated universe', () => {
  it('exist for every listed equity', () => {
    const listed = mem.generated.stocks.filter((s) => s.stockType === 'equity' && s.status === 'listed');
    expect(docs.map((d) => d.stockId)).toEqual(listed.map((s) => s.id));
    for (const { doc } of docs) {
      expect(doc.profit_loss!.periods.length).toBe(10);
      expect(doc.quarterly!.periods.length).toBeGreaterThanOrEqual(13);
    }
  });

  it('quarters add up to their fiscal year', () => {
    let years = 0;
    for (const { doc } of docs) {
      const q = doc.quarterly!;
      for (const fy of doc.profit_loss!.periods) {
        const labels = [1, 2, 3, 4].map((n) => `Q${n} ${fy}`);
        if (!labels.every((l) => q.periods.includes(l))) continue;
        years++;
        for (const row of FLOW_ROWS) {
          const sum = labels.reduce((s, l) => s + col(q, row, l)!, 0);
          expect(close(sum, col(doc.profit_loss!, row, fy)), `${fy} ${row}`).toBe(true);
        }
      }
    }
    expect(years).toBe(3 * docs.length);
  });

  it('balance sheets balance', () => {
    for (const { doc } of docs) {
      const bs = doc.balance_sheet!;
      for (const p of bs.periods) {
        const v = valuesOf(bs, p);
        expect(close(v['Total Assets'], v['Total Equity']! + v['Total Liabilities']!)).toBe(true);
      }
    }
  });

  it('ratios follow from the statements', () => {
    for (const { doc } of docs) {
      for (const p of doc.ratios!.periods) {
        const expected = yearRatios(
          valuesOf(doc.profit_loss!, p),
          valuesOf(doc.balance_sheet!, p),
          valuesOf(doc.cash_flow!, p),
        );
        for (const [row, v] of Object.entries(expected)) expect(col(doc.ratios!, row, p) ?? null).toBe(v);
        // Recomputed by hand for two of them.
        const np = col(doc.profit_loss!, 'Net Profit', p)!;
        const eq = col(doc.balance_sheet!, 'Total Equity', p)!;
        expect(close(col(doc.ratios!, 'ROE %', p), Math.round((np / eq) * 10_000) / 100, 0.006)).toBe(true);
        const rev = col(doc.profit_loss!, 'Revenue', p)!;
        const op = col(doc.profit_loss!, 'Operating Profit', p)!;
        expect(close(col(doc.ratios!, 'OPM %', p), Math.round((op / rev) * 10_000) / 100, 0.006)).toBe(true);
      }
    }
  });

  it('pct_changes match data', () => {
    const wrong: string[] = [];
    let checked = 0;
    for (const { stockId, doc } of docs)
      for (const [name, s] of Object.entries(doc))
        for (const row of s.row_order)
          for (const p of s.periods) {
            const prev = p.replace(/FY(\d+)$/, (_, y) => `FY${Number(y) - 1}`);
            checked++;
            if (s.pct_changes[row]![p] !== pctChange(s.data[row]![p], s.data[row]![prev]))
              wrong.push(`${stockId} ${name} ${row} ${p}`);
          }
    expect(checked).toBeGreaterThan(100_000);
    expect(wrong).toEqual([]);
  });

  it('agree with the profile: growth rates, ROE, ROCE and debt to equity', () => {
    for (const { stockId, doc } of docs) {
      const e = entryOf.get(stockId)!;
      const p = profile(mem.dataset, e, [], []) as unknown as {
        fundamentals: { roe_pct: number | null; roce_pct: number | null; debt_to_equity: number | null };
        growth: {
          latest_fiscal_year: string;
          growth_rates: {
            fiscal_year: string;
            sales_cr: number;
            net_profit_cr: number;
            sales_growth_pct: number | null;
            roe_pct: number | null;
          }[];
        };
      };
      const pl = doc.profit_loss!;
      expect(p.growth.growth_rates.map((g) => g.fiscal_year)).toEqual(pl.periods);
      for (const g of p.growth.growth_rates) {
        expect(close(g.sales_cr, col(pl, 'Revenue', g.fiscal_year), 0.006)).toBe(true);
        expect(close(g.net_profit_cr, col(pl, 'Net Profit', g.fiscal_year), 0.006)).toBe(true);
        expect(close(g.roe_pct, col(doc.ratios!, 'ROE %', g.fiscal_year))).toBe(g.roe_pct !== null);
        if (g.sales_growth_pct !== null)
          expect(close(g.sales_growth_pct, pl.pct_changes.Revenue![g.fiscal_year], 0.02)).toBe(true);
      }
      const latest = p.growth.latest_fiscal_year;
      expect(latest).toBe(pl.periods.at(-1));
      const r = doc.ratios!;
      if (p.fundamentals.roe_pct !== null)
        expect(close(p.fundamentals.roe_pct, col(r, 'ROE %', latest))).toBe(true);
      if (p.fundamentals.roce_pct !== null)
        expect(close(p.fundamentals.roce_pct, col(r, 'ROCE %', latest))).toBe(true);
      if (p.fundamentals.debt_to_equity !== null)
        expect(close(p.fundamentals.debt_to_equity, col(r, 'Debt to Equity', latest))).toBe(true);
    }
  });

  it('hold the running fiscal year only as far as it is filed', () => {
    // On 2026-11-22 Q2 FY2027 (to 30 September) may or may not be filed yet; Q3 cannot be.
    for (const { doc } of docs) {
      const last = doc.quarterly!.availability.at(-1)!;
      expect(['Q1 FY2027', 'Q2 FY2027']).toContain(last.period);
      expect(last.available_from <= '2026-11-22').toBe(true);
    }
    expect(periodLabel('quarterly', quarterEnd(2027, 2))).toBe('Q2 FY2027');
  });
});
