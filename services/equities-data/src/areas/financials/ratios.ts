/** Rows of the `ratios` section, each derived from the same fiscal year's statements. */
export const RATIO_ROWS = [
  'OPM %',
  'Net Profit Margin %',
  'ROE %',
  'ROCE %',
  'Debt to Equity',
  'Interest Coverage',
  'Asset Turnover',
  'Tax Rate %',
  'Dividend Payout %',
] as const;

const r2 = (x: number) => Math.round(x * 100) / 100;
/** a / b, or null when either is missing or the denominator is not positive. */
const ratio = (a: number | undefined, b: number | undefined, scale = 1) =>
  a === undefined || b === undefined || b <= 0 ? null : r2((a / b) * scale);
const sum = (a: number | undefined, b: number | undefined) =>
  a === undefined || b === undefined ? undefined : a + b;

/**
 * One fiscal year's ratios from its P&L, year-end balance sheet and cash flow (rupees crore):
 * ROE on year-end total equity and ROCE as (profit before tax + interest) over year-end equity plus
 * borrowings, as the profile computes them; payout from dividends actually paid in the year.
 */
export function yearRatios(
  pl: Record<string, number>,
  bs: Record<string, number>,
  cf: Record<string, number> | undefined,
): Record<string, number | null> {
  const ebit = sum(pl['Profit before tax'], pl.Interest);
  const np = pl['Net Profit'];
  const equity = bs['Total Equity'];
  return {
    'OPM %': ratio(pl['Operating Profit'], pl.Revenue, 100),
    'Net Profit Margin %': ratio(np, pl.Revenue, 100),
    'ROE %': ratio(np, equity, 100),
    'ROCE %': equity !== undefined && equity > 0 ? ratio(ebit, sum(equity, bs.Borrowings), 100) : null,
    'Debt to Equity': ratio(bs.Borrowings, equity),
    'Interest Coverage': ratio(ebit, pl.Interest),
    'Asset Turnover': ratio(pl.Revenue, bs['Total Assets']),
    'Tax Rate %': ratio(pl.Tax, pl['Profit before tax'], 100),
    'Dividend Payout %': ratio(cf?.['Dividends Paid'], np, 100),
  };
}
