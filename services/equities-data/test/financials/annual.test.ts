import type { FinancialStatementRow } from '@mdp/market';
import { day } from '@mdp/nse-calendar';
import { describe, expect, it } from 'vitest';
import { annualResultsFrom } from '../../src/areas/financials/annual.ts';

const row = (
  section: FinancialStatementRow['section'],
  end: string,
  basis: FinancialStatementRow['basis'],
  items: Record<string, number>,
): FinancialStatementRow => ({
  stockId: 7,
  section,
  basis,
  periodEnd: day(end),
  availableFrom: day(end) + 30,
  source: 'test',
  items,
});

describe('annual results of an imported company', () => {
  const rows = [
    row('profit_loss', '2023-03-31', 'consolidated', {
      Revenue: 1000,
      'Net Profit': 90,
      'Profit before tax': 120,
      Interest: 15,
    }),
    row('profit_loss', '2024-03-31', 'consolidated', {
      Revenue: 1200,
      'Net Profit': 110,
      'Profit before tax': 150,
    }),
    row('profit_loss', '2022-03-31', 'consolidated', { Revenue: 900, 'Net Profit': 80 }),
    row('balance_sheet', '2023-03-31', 'consolidated', { 'Total Equity': 600, Borrowings: 200 }),
    row('balance_sheet', '2024-03-31', 'consolidated', { 'Total Equity': 700 }),
    row('cash_flow', '2024-03-31', 'consolidated', { 'Dividends Paid': 50 }),
    // Standalone figures are not mixed in when consolidated ones are filed.
    row('balance_sheet', '2022-03-31', 'standalone', { 'Total Equity': 500 }),
  ];

  it('has the years with a P&L and a balance sheet on the served basis', () => {
    expect(annualResultsFrom(7, rows, 10_000_000)).toEqual([
      {
        stockId: 7,
        fiscalYear: 2023,
        sales: 1000,
        netProfit: 90,
        equity: 600,
        borrowings: 200,
        ebit: 135,
        dividendPs: 0,
      },
      // 50 crore paid over 1 crore shares: 50 rupees a share.
      {
        stockId: 7,
        fiscalYear: 2024,
        sales: 1200,
        netProfit: 110,
        equity: 700,
        borrowings: 0,
        ebit: 150,
        dividendPs: 50,
      },
    ]);
  });

  it('states no dividend per share without a share count', () => {
    expect(annualResultsFrom(7, rows, null).map((a) => a.dividendPs)).toEqual([0, 0]);
  });
});
