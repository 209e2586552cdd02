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

/**
 * The rules below hold for thousands of statements: each is checked with a plain comparison and the
 * breaches collected, then asserted once (an `expect` per figure, with its message built every time,
 * made this file take over a minute on a busy machine).
 */
function breaches() {
  const found: string[] = [];
  return {
    check(ok: boolean, what: () => string): void {
      if (!ok && found.length < 20) found.push(what());
    },
    found,
  };
}

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
    const { check, found } = breaches();
    for (const [id, rows] of byStock) {
      const { pl, bs } = sections(rows);
      const annual = annualOf.get(id)!;
      check(
        pl.size === annual.length,
        () => `${id}: ${pl.size} years of P&L, ${annual.length} annual results`,
      );
      for (const a of annual) {
        const p = pl.get(fiscalYearEnd(a.fiscalYear))!.items;
        const b = bs.get(fiscalYearEnd(a.fiscalYear))!.items;
        const fy = `${id} FY${a.fiscalYear}`;
        check(same(p.Revenue, a.sales), () => `${fy} revenue`);
        check(same(p['Net Profit'], a.netProfit), () => `${fy} profit`);
        check(same(p['Profit before tax']! + p.Interest!, a.ebit), () => `${fy} ebit`);
        check(same(b['Total Equity'], a.equity), () => `${fy} equity`);
        check(same(b.Borrowings, a.borrowings), () => `${fy} borrowings`);
        // EPS in rupees: net profit (crore = 1e7 rupees) over the shares in issue, to the paisa.
        const shares = ds.stocks[id - 1]!.sharesOutstanding!;
        check(Math.abs(p['EPS (Rs)']! - (a.netProfit * 1e7) / shares) < 0.006, () => `${fy} EPS`);
      }
    }
    expect(found).toEqual([]);
  });

  it('add up: P&L subtotals, quarters to years, balance sheets balance, cash flows sum', () => {
    const { check, found } = breaches();
    let fullYears = 0;
    for (const [id, rows] of byStock) {
      const { q, pl, bs, cf } = sections(rows);
      for (const r of [...q.values(), ...pl.values()]) {
        const v = r.items;
        const at = () => `${id} ${r.section} ${formatDay(r.periodEnd)}`;
        check(same(v['Operating Profit'], v.Revenue! - v.Expenses!), () => `${at()} operating profit`);
        check(
          same(
            v['Profit before tax'],
            v['Operating Profit']! + v['Other Income']! - v.Interest! - v.Depreciation!,
          ),
          () => `${at()} profit before tax`,
        );
        check(same(v['Net Profit'], v['Profit before tax']! - v.Tax!), () => `${at()} net profit`);
        check(v.Expenses! > 0, () => `${at()} expenses`);
      }
      for (const [end, year] of pl) {
        const fy = fiscalYearOf(end);
        const quarters = ([1, 2, 3, 4] as const).map((n) => q.get(quarterEnd(fy, n)));
        if (quarters.some((x) => !x)) continue;
        fullYears++;
        for (const row of FLOW_ROWS) {
          const sum = quarters.reduce((s, x) => s + x!.items[row]!, 0);
          check(same(sum, year.items[row]), () => `${id} FY${fy} ${row}: quarters sum to the year`);
        }
      }
      for (const b of bs.values()) {
        const v = b.items;
        const at = () => `${id} balance sheet ${formatDay(b.periodEnd)}`;
        check(
          same(v['Total Assets'], v['Total Equity']! + v['Total Liabilities']!),
          () => `${at()} balances`,
        );
        check(same(v['Total Equity'], v['Share Capital']! + v.Reserves!), () => `${at()} equity`);
        check(
          same(v['Total Liabilities'], v.Deposits! + v.Borrowings! + v['Other Liabilities']!),
          () => `${at()} liabilities`,
        );
        const assets = ['Fixed Assets', 'CWIP', 'Investments', 'Loans & Advances', 'Other Assets'];
        check(
          same(
            v['Total Assets'],
            assets.reduce((s, k) => s + v[k]!, 0),
          ),
          () => `${at()} assets`,
        );
        check(v['Other Assets']! >= 0, () => `${at()} other assets`);
      }
      for (const c of cf.values()) {
        const v = c.items;
        const sum =
          v['Cash from Operating Activity']! +
          v['Cash from Investing Activity']! +
          v['Cash from Financing Activity']!;
        check(same(v['Net Cash Flow'], sum), () => `${id} cash flow ${formatDay(c.periodEnd)}`);
      }
    }
    expect(found).toEqual([]);
    // Three complete fiscal years of quarters per company.
    expect(fullYears).toBe(3 * byStock.size);
  });

  it('are filed within the deadlines, never before the period ends, and none after the end day is known', () => {
    const { check, found } = breaches();
    for (const [id, rows] of byStock) {
      for (const r of rows) {
        const at = () => `${id} ${r.section} ${formatDay(r.periodEnd)} filed ${formatDay(r.availableFrom)}`;
        check(r.availableFrom > r.periodEnd, () => `${at()}: not after the period`);
        if (r.section === 'quarterly' && !periodLabel('quarterly', r.periodEnd).startsWith('Q4'))
          check(r.availableFrom - r.periodEnd <= 45, () => `${at()}: over 45 days`);
        else
          check(
            formatDay(r.availableFrom).slice(0, 7) === `${fiscalYearOf(r.periodEnd)}-05`,
            () => `${at()}: not in May after the fiscal year`,
          );
      }
      // The running fiscal year's quarters exist up to the end day (Q1 and Q2 of FY2027 here).
      const quarters = rows.filter((r) => r.section === 'quarterly').map((r) => r.periodEnd);
      check(Math.max(...quarters) === quarterEnd(2027, 2), () => `${id}: last quarter`);
      check(
        quarters.every((d) => d <= END),
        () => `${id}: a quarter after the end day`,
      );
    }
    expect(found).toEqual([]);
  });
});
