import { type AnnualResultRow, type FinancialStatementRow, fiscalYearOf } from '@mdp/market';
import { pickBasis } from './document.ts';

const r2 = (x: number) => Math.round(x * 100) / 100;

/**
 * The annual results (what the profile's growth, ROE and ROCE read) of an imported company, taken
 * from its statements so that the two agree: each fiscal year with both a P&L and a balance sheet on
 * the basis the financials route serves. EBIT is profit before tax plus interest; dividends per share
 * are the dividends paid in the year over today's share count (0 when the count is unknown).
 */
export function annualResultsFrom(
  stockId: number,
  rows: readonly FinancialStatementRow[],
  shares: number | null,
): AnnualResultRow[] {
  const yearly = rows.filter((r) => r.section === 'profit_loss');
  const basis = pickBasis(yearly);
  const at = (section: string) =>
    new Map(
      rows.filter((r) => r.section === section && r.basis === basis).map((r) => [r.periodEnd, r.items]),
    );
  const bs = at('balance_sheet');
  const cf = at('cash_flow');
  const out: AnnualResultRow[] = [];
  for (const [end, pl] of at('profit_loss')) {
    const b = bs.get(end);
    if (!b || pl.Revenue === undefined || pl['Net Profit'] === undefined || b['Total Equity'] === undefined)
      continue;
    const paid = cf.get(end)?.['Dividends Paid'];
    out.push({
      stockId,
      fiscalYear: fiscalYearOf(end),
      sales: pl.Revenue,
      netProfit: pl['Net Profit'],
      equity: b['Total Equity'],
      borrowings: b.Borrowings ?? 0,
      ebit: r2((pl['Profit before tax'] ?? 0) + (pl.Interest ?? 0)),
      dividendPs: paid !== undefined && shares ? r2((paid * 1e7) / shares) : 0,
    });
  }
  return out.sort((a, b) => a.fiscalYear - b.fiscalYear);
}
