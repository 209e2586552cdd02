import { type DayNumber, day, formatDay } from '@mdp/nse-calendar';
import type { StatementBasis, StatementSection } from '../../vocabulary.ts';

/** The rows of an income statement, quarterly or annual. */
const INCOME_ROWS = [
  'Revenue',
  'Expenses',
  'Operating Profit',
  'Other Income',
  'Interest',
  'Depreciation',
  'Exceptional Items',
  'Profit before tax',
  'Tax',
  'Net Profit',
  'EPS (Rs)',
];

/** Display order of the rows of each stored section (amounts in rupees crore, EPS in rupees). */
export const ROWS: Record<StatementSection, readonly string[]> = {
  quarterly: INCOME_ROWS,
  profit_loss: INCOME_ROWS,
  balance_sheet: [
    'Share Capital',
    'Reserves',
    'Total Equity',
    'Deposits',
    'Borrowings',
    'Other Liabilities',
    'Total Liabilities',
    'Fixed Assets',
    'CWIP',
    'Investments',
    'Loans & Advances',
    'Other Assets',
    'Total Assets',
  ],
  cash_flow: [
    'Cash from Operating Activity',
    'Cash from Investing Activity',
    'Cash from Financing Activity',
    'Net Cash Flow',
    'Capex',
    'Dividends Paid',
  ],
};

/**
 * Rows of the quarterly and annual P&L that are flows over the period, so the four quarters of a
 * fiscal year add up to the year (EPS does not: it is per share and rounded).
 */
export const FLOW_ROWS = ROWS.profit_loss.filter((r) => r !== 'EPS (Rs)');

/** One period of one section: values by row, and the day the figures became public. */
export interface StatementPeriod {
  section: StatementSection;
  /** Last day of the period (quarter end, or 31 March for a fiscal year). */
  periodEnd: DayNumber;
  /** Point in time: the filing day; the period is not served before it. */
  availableFrom: DayNumber;
  items: Record<string, number>;
}

export interface FinancialStatementRow extends StatementPeriod {
  stockId: number;
  basis: StatementBasis;
  /** `generated`, or the file the period was imported from. */
  source: string;
}

/** Fiscal year (April-March, named by the year it ends in) that contains day `d`. */
export function fiscalYearOf(d: DayNumber): number {
  const [y, m] = formatDay(d).split('-').map(Number) as [number, number];
  return m >= 4 ? y + 1 : y;
}

/** `FY2026` for a fiscal-year section, `Q3 FY2026` (October-December 2025) for a quarter. */
export function periodLabel(section: StatementSection | 'ratios', periodEnd: DayNumber): string {
  const fy = fiscalYearOf(periodEnd);
  if (section !== 'quarterly') return `FY${fy}`;
  const m = Number(formatDay(periodEnd).slice(5, 7));
  return `Q${Math.floor(((m + 8) % 12) / 3) + 1} FY${fy}`;
}

/** Last day of quarter `q` (1-4) of fiscal year `fy`. */
export function quarterEnd(fy: number, q: 1 | 2 | 3 | 4): DayNumber {
  return day(['', `${fy - 1}-06-30`, `${fy - 1}-09-30`, `${fy - 1}-12-31`, `${fy}-03-31`][q]!);
}

export const fiscalYearEnd = (fy: number): DayNumber => day(`${fy}-03-31`);
