import type { FinancialStatementRow, StatementSection } from '@mdp/market';
import { day } from '@mdp/nse-calendar';
import { describe, expect, it } from 'vitest';
import { financialsDocument, pctChange, sectionDocument } from '../../src/areas/financials/document.ts';

const row = (
  section: StatementSection,
  end: string,
  filed: string,
  items: Record<string, number>,
  basis: FinancialStatementRow['basis'] = 'consolidated',
): FinancialStatementRow => ({
  stockId: 1,
  section,
  basis,
  periodEnd: day(end),
  availableFrom: day(filed),
  source: 'test',
  items,
});

const pl = (revenue: number, np: number) => ({
  Revenue: revenue,
  Expenses: revenue * 0.8,
  'Operating Profit': revenue * 0.2,
  Interest: 10,
  'Profit before tax': np / 0.75,
  Tax: np / 3,
  'Net Profit': np,
});

const ROWS: FinancialStatementRow[] = [
  // Two fiscal years and the quarters of FY2025 and FY2026, with one quarter of FY2027.
  row('profit_loss', '2024-03-31', '2024-05-10', pl(400, 60)),
  row('profit_loss', '2025-03-31', '2025-05-12', pl(500, 75)),
  row('profit_loss', '2026-03-31', '2026-05-15', pl(600, -30)),
  row('balance_sheet', '2025-03-31', '2025-05-12', {
    'Total Equity': 300,
    Borrowings: 100,
    'Total Liabilities': 250,
    'Total Assets': 550,
  }),
  row('balance_sheet', '2026-03-31', '2026-05-15', {
    'Total Equity': 270,
    Borrowings: 150,
    'Total Liabilities': 330,
    'Total Assets': 600,
  }),
  row('cash_flow', '2025-03-31', '2025-05-12', { 'Cash from Operating Activity': 80, 'Dividends Paid': 15 }),
  row('quarterly', '2024-06-30', '2024-08-01', pl(110, 16)),
  row('quarterly', '2024-09-30', '2024-11-01', pl(120, 18)),
  row('quarterly', '2024-12-31', '2025-02-01', pl(130, 20)),
  row('quarterly', '2025-03-31', '2025-05-12', pl(140, 21)),
  row('quarterly', '2025-06-30', '2025-08-01', pl(121, 20)),
  row('quarterly', '2025-09-30', '2025-11-01', pl(150, 10)),
  row('quarterly', '2025-12-31', '2026-02-01', pl(160, -20)),
  row('quarterly', '2026-03-31', '2026-05-15', pl(169, -40)),
  row('quarterly', '2026-06-30', '2026-08-10', pl(130, 8)),
  // Standalone figures of a year also filed consolidated: never mixed into the consolidated section.
  row('profit_loss', '2025-03-31', '2025-05-12', pl(9_999, 1), 'standalone'),
];

const TODAY = day('2026-11-22');

describe('financials document', () => {
  it('has every section with periods oldest first, data by row and period, and row order', () => {
    const doc = financialsDocument(ROWS, TODAY);
    expect(Object.keys(doc)).toEqual(['quarterly', 'profit_loss', 'balance_sheet', 'cash_flow', 'ratios']);
    expect(doc.profit_loss!.periods).toEqual(['FY2024', 'FY2025', 'FY2026']);
    expect(doc.profit_loss!.basis).toBe('consolidated');
    expect(doc.profit_loss!.data.Revenue).toEqual({ FY2024: 400, FY2025: 500, FY2026: 600 });
    expect(doc.profit_loss!.row_order).toEqual([
      'Revenue',
      'Expenses',
      'Operating Profit',
      'Interest',
      'Profit before tax',
      'Tax',
      'Net Profit',
    ]);
    expect(doc.quarterly!.periods).toEqual([
      'Q1 FY2025',
      'Q2 FY2025',
      'Q3 FY2025',
      'Q4 FY2025',
      'Q1 FY2026',
      'Q2 FY2026',
      'Q3 FY2026',
      'Q4 FY2026',
      'Q1 FY2027',
    ]);
    expect(doc.balance_sheet!.periods).toEqual(['FY2025', 'FY2026']);
    expect(doc.balance_sheet!.data['Total Assets']).toEqual({ FY2025: 550, FY2026: 600 });
    expect(doc.cash_flow!.periods).toEqual(['FY2025']);
    for (const s of Object.values(doc)) {
      for (const r of s.row_order) expect(Object.keys(s.data[r]!)).toEqual(s.periods);
      expect(Object.keys(s.data)).toEqual(s.row_order);
    }
  });

  it('derives ratios from the same year of the statements', () => {
    const r = financialsDocument(ROWS, TODAY, { section: 'ratios' }).ratios!;
    // Only years with both a P&L and a balance sheet.
    expect(r.periods).toEqual(['FY2025', 'FY2026']);
    expect(r.data['ROE %']).toEqual({ FY2025: 25, FY2026: -11.11 });
    expect(r.data['OPM %']).toEqual({ FY2025: 20, FY2026: 20 });
    expect(r.data['Debt to Equity']).toEqual({ FY2025: 0.33, FY2026: 0.56 });
    // (PBT 100 + interest 10) / (equity 300 + borrowings 100)
    expect(r.data['ROCE %']!.FY2025).toBe(27.5);
    expect(r.data['Interest Coverage']!.FY2025).toBe(11);
    expect(r.data['Dividend Payout %']).toEqual({ FY2025: 20, FY2026: null });
    // Tax rate is meaningless on a loss.
    expect(r.data['Tax Rate %']).toEqual({ FY2025: 25, FY2026: null });
    expect(r.availability.map((a) => a.available_from)).toEqual(['2025-05-12', '2026-05-15']);
  });

  it('gives pct_changes against the same period a year earlier, computed before trimming', () => {
    const doc = financialsDocument(ROWS, TODAY, { limit: 2 });
    expect(doc.profit_loss!.periods).toEqual(['FY2025', 'FY2026']);
    expect(doc.profit_loss!.pct_changes.Revenue).toEqual({ FY2025: 25, FY2026: 20 });
    // From a profit of 75 to a loss of 30: -140 %; a change is relative to the size of the base.
    expect(doc.profit_loss!.pct_changes['Net Profit']).toEqual({ FY2025: 25, FY2026: -140 });
    // Quarterly: year on year, the same quarter of the previous fiscal year.
    expect(doc.quarterly!.periods).toEqual(['Q4 FY2026', 'Q1 FY2027']);
    expect(doc.quarterly!.pct_changes.Revenue).toEqual({ 'Q4 FY2026': 20.71, 'Q1 FY2027': 7.44 });
    expect(doc.quarterly!.pct_changes['Net Profit']!['Q4 FY2026']).toBe(-290.48);
    const all = financialsDocument(ROWS, TODAY).quarterly!;
    // No quarter of FY2024 is held, so FY2025's quarters have no change.
    expect(all.pct_changes.Revenue!['Q1 FY2025']).toBeNull();
    expect(all.pct_changes.Revenue!['Q1 FY2026']).toBe(10);
    // Every change follows from data.
    for (const [r, byPeriod] of Object.entries(all.pct_changes))
      for (const [p, change] of Object.entries(byPeriod)) {
        const prev = all.data[r]![p.replace(/FY(\d+)/, (_, y) => `FY${Number(y) - 1}`)];
        expect(change).toBe(pctChange(all.data[r]![p], prev));
      }
  });

  it('pctChange is null without a base', () => {
    expect(pctChange(5, 0)).toBeNull();
    expect(pctChange(5, undefined)).toBeNull();
    expect(pctChange(null, 4)).toBeNull();
    expect(pctChange(-10, -20)).toBe(50);
  });

  it('keeps the latest N periods per section', () => {
    const doc = financialsDocument(ROWS, TODAY, { limit: 1 });
    expect(doc.quarterly!.periods).toEqual(['Q1 FY2027']);
    expect(doc.profit_loss!.periods).toEqual(['FY2026']);
    expect(doc.balance_sheet!.periods).toEqual(['FY2026']);
    expect(doc.cash_flow!.periods).toEqual(['FY2025']);
    expect(doc.ratios!.periods).toEqual(['FY2026']);
    expect(doc.quarterly!.availability).toEqual([
      { period: 'Q1 FY2027', period_end: '2026-06-30', available_from: '2026-08-10' },
    ]);
    expect(financialsDocument(ROWS, TODAY, { limit: 40 }).quarterly!.periods).toHaveLength(9);
  });

  it('serves only one section when asked', () => {
    expect(Object.keys(financialsDocument(ROWS, TODAY, { section: 'cash_flow' }))).toEqual(['cash_flow']);
  });

  it('never serves a period before it was filed (point in time)', () => {
    // 2026-05-14: FY2026 and Q4 FY2026 are filed on 15 May, so the latest known are FY2025 and Q3.
    const doc = financialsDocument(ROWS, day('2026-05-14'));
    expect(doc.profit_loss!.periods).toEqual(['FY2024', 'FY2025']);
    expect(doc.quarterly!.periods.at(-1)).toBe('Q3 FY2026');
    expect(doc.ratios!.periods).toEqual(['FY2025']);
    for (const s of Object.values(doc))
      for (const a of s.availability) expect(a.available_from <= '2026-05-14').toBe(true);
    // On the filing day itself the period is known.
    expect(financialsDocument(ROWS, day('2026-05-15')).profit_loss!.periods.at(-1)).toBe('FY2026');
    // Before anything was filed, the sections are empty.
    const early = sectionDocument(ROWS, 'balance_sheet', day('2025-01-01'));
    expect(early).toEqual({
      basis: null,
      periods: [],
      data: {},
      pct_changes: {},
      row_order: [],
      availability: [],
    });
  });

  it('serves standalone figures when the company files no consolidated ones', () => {
    const standalone = ROWS.filter((r) => r.basis === 'standalone');
    const doc = financialsDocument(standalone, TODAY, { section: 'profit_loss' });
    expect(doc.profit_loss!.basis).toBe('standalone');
    expect(doc.profit_loss!.data.Revenue).toEqual({ FY2025: 9_999 });
  });
});
