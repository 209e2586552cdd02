import { day, formatDay } from '@mdp/nse-calendar';
import { describe, expect, it } from 'vitest';
import type { AnnualResultRow } from '../../model.ts';
import { DEFAULT_SIZE, generateDataset } from '../dataset.ts';
import { generateFinancials } from './generate.ts';
import {
  type FinancialStatementRow,
  FLOW_ROWS,
  fiscalYearEnd,
  fiscalYearOf,
  periodLabel,
  quarterEnd,
} from './statements.ts';

const END = day('2026-11-20');
// The default universe's size: every rule is checked on every listed company of it.
const ds = generateDataset({ seed: 11, size: DEFAULT_SIZE, endDay: END, historyDays: 400 });
const byStock = new Map<number, FinancialStatementRow[]>();
generateFinancials(ds, (id, rows) => byStock.set(id, rows));
const annualOf = new Map<number, AnnualResultRow[]>();
for (const a of ds.annual) annualOf.set(a.stockId, [...(annualOf.get(a.stockId) ?? []), a]);

/** Compares amounts in crore to the paisa-of-crore the generator works in. */
const same = (a: number | undefined, b: number | undefined) =>
  Math.abs((a ?? Number.NaN) - (b ?? Number.NaN)) < 0.005;

function sections(rows: FinancialStatementRow[]) {
  const at = (s: string) => new Map(rows.filter((r) => r.section === s).map((r) => [r.periodEnd, r]));
  return { q: at('quarterly'), pl: at('profit_loss'), bs: at('balance_sheet'), cf: at('cash_flow') };
}

describe('generated financial statements', { timeout: 60_000 }, () => {
  it('cover every listed equity and nothing else', () => {
    const listedEquities = ds.stocks.filter((s) => s.stockType === 'equity' && s.status === 'listed');
    expect(listedEquities.length).toBeGreaterThan(300);
    expect([...byStock.keys()].sort((a, b) => a - b)).toEqual(listedEquities.map((s) => s.id));
  });

  it('are deterministic for a seed', () => {
    const again = new Map<number, FinancialStatementRow[]>();
    generateFinancials(ds, (id, rows) => again.set(id, rows));
    expect(again).toEqual(byStock);
  });

  it('expand the annual results exactly (one source for the profile and the statements)', () => {
    for (const [id, rows] of byStock) {
      const { pl, bs } = sections(rows);
      const annual = annualOf.get(id)!;
      expect(pl.size).toBe(annual.length);
      for (const a of annual) {
        const p = pl.get(fiscalYearEnd(a.fiscalYear))!.items;
        const b = bs.get(fiscalYearEnd(a.fiscalYear))!.items;
        expect(same(p.Revenue, a.sales), `${id} FY${a.fiscalYear} revenue`).toBe(true);
        expect(same(p['Net Profit'], a.netProfit), `${id} FY${a.fiscalYear} profit`).toBe(true);
        expect(same(p['Profit before tax']! + p.Interest!, a.ebit), `${id} FY${a.fiscalYear} ebit`).toBe(
          true,
        );
        expect(same(b['Total Equity'], a.equity)).toBe(true);
        expect(same(b.Borrowings, a.borrowings)).toBe(true);
        // EPS in rupees: net profit (crore = 1e7 rupees) over the shares in issue, to the paisa.
        const shares = ds.stocks[id - 1]!.sharesOutstanding!;
        expect(
          Math.abs(p['EPS (Rs)']! - (a.netProfit * 1e7) / shares),
          `${id} FY${a.fiscalYear} EPS`,
        ).toBeLessThan(0.006);
      }
    }
  });

  it('add up: P&L subtotals, quarters to years, balance sheets balance, cash flows sum', () => {
    let fullYears = 0;
    for (const [id, rows] of byStock) {
      const { q, pl, bs, cf } = sections(rows);
      for (const r of [...q.values(), ...pl.values()]) {
        const v = r.items;
        expect(same(v['Operating Profit'], v.Revenue! - v.Expenses!)).toBe(true);
        expect(
          same(
            v['Profit before tax'],
            v['Operating Profit']! + v['Other Income']! - v.Interest! - v.Depreciation!,
          ),
        ).toBe(true);
        expect(same(v['Net Profit'], v['Profit before tax']! - v.Tax!)).toBe(true);
        expect(v.Expenses, `${id} ${formatDay(r.periodEnd)} expenses`).toBeGreaterThan(0);
      }
      for (const [end, year] of pl) {
        const fy = fiscalYearOf(end);
        const quarters = ([1, 2, 3, 4] as const).map((n) => q.get(quarterEnd(fy, n)));
        if (quarters.some((x) => !x)) continue;
        fullYears++;
        for (const row of FLOW_ROWS) {
          const sum = quarters.reduce((s, x) => s + x!.items[row]!, 0);
          expect(same(sum, year.items[row]), `${id} FY${fy} ${row}`).toBe(true);
        }
      }
      for (const b of bs.values()) {
        const v = b.items;
        expect(same(v['Total Assets'], v['Total Equity']! + v['Total Liabilities']!)).toBe(true);
        expect(same(v['Total Equity'], v['Share Capital']! + v.Reserves!)).toBe(true);
        expect(same(v['Total Liabilities'], v.Deposits! + v.Borrowings! + v['Other Liabilities']!)).toBe(
          true,
        );
        const assets = ['Fixed Assets', 'CWIP', 'Investments', 'Loans & Advances', 'Other Assets'];
        expect(
          same(
            v['Total Assets'],
            assets.reduce((s, k) => s + v[k]!, 0),
          ),
        ).toBe(true);
        expect(v['Other Assets']).toBeGreaterThanOrEqual(0);
      }
      for (const c of cf.values()) {
        const v = c.items;
        const sum =
          v['Cash from Operating Activity']! +
          v['Cash from Investing Activity']! +
          v['Cash from Financing Activity']!;
        expect(same(v['Net Cash Flow'], sum)).toBe(true);
      }
    }
    // Three complete fiscal years of quarters per company.
    expect(fullYears).toBe(3 * byStock.size);
  });

  it('are filed within the deadlines, never before the period ends, and none after the end day is known', () => {
    for (const rows of byStock.values()) {
      for (const r of rows) {
        expect(r.availableFrom).toBeGreaterThan(r.periodEnd);
        if (r.section === 'quarterly' && periodLabel('quarterly', r.periodEnd).startsWith('Q4')) {
          expect(formatDay(r.availableFrom).slice(0, 7)).toBe(`${fiscalYearOf(r.periodEnd)}-05`);
        } else if (r.section === 'quarterly') {
          expect(r.availableFrom - r.periodEnd).toBeLessThanOrEqual(45);
        } else {
          expect(formatDay(r.availableFrom).slice(0, 7)).toBe(`${fiscalYearOf(r.periodEnd)}-05`);
        }
      }
      // The running fiscal year's quarters exist up to the end day (Q1 and Q2 of FY2027 here).
      const quarters = rows.filter((r) => r.section === 'quarterly').map((r) => r.periodEnd);
      expect(Math.max(...quarters)).toBe(quarterEnd(2027, 2));
      expect(quarters.every((d) => d <= END)).toBe(true);
    }
  });
});
