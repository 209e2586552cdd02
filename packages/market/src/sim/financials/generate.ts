import { type DayNumber, day } from '@mdp/nse-calendar';
import type { AnnualResultRow, StockRow } from '../../model.ts';
import type { GeneratedDataset } from '../dataset.ts';
import { Rng } from '../rng.ts';
import { type FinancialStatementRow, fiscalYearEnd, quarterEnd, type StatementPeriod } from './statements.ts';

/** RNG stream of the financials generator, apart from every other generator's. */
const FINANCIALS_STREAM = 6_000_000;
/** Fiscal years (the latest ones) that also get quarterly results, besides the running year's. */
const QUARTER_YEARS = 3;

/** Amounts are built in integer hundredths of a crore so that totals add up exactly. */
const cents = (x: number) => Math.round(x * 100);
const crore = (c: number) => c / 100;

/** Splits `total` cents over `weights` (summing to 1), the last part taking the rounding. */
function split(total: number, weights: readonly number[]): number[] {
  const parts = weights.slice(0, -1).map((w) => Math.round(total * w));
  return [...parts, total - parts.reduce((a, b) => a + b, 0)];
}

function weights(rng: Rng, spread: number): number[] {
  const raw = [0, 1, 2, 3].map(() => Math.max(0.4, 1 + spread * rng.normal()));
  const sum = raw.reduce((a, b) => a + b, 0);
  return raw.map((w) => w / sum);
}

type Flows = Record<'Revenue' | 'Expenses' | 'Other Income' | 'Interest' | 'Depreciation' | 'Tax', number>;

/** P&L rows (in crore) from the independent flows (in cents): every subtotal follows from them. */
function profitAndLoss(f: Flows, shares: number): Record<string, number> {
  const op = f.Revenue - f.Expenses;
  const pbt = op + f['Other Income'] - f.Interest - f.Depreciation;
  const np = pbt - f.Tax;
  return {
    Revenue: crore(f.Revenue),
    Expenses: crore(f.Expenses),
    'Operating Profit': crore(op),
    'Other Income': crore(f['Other Income']),
    Interest: crore(f.Interest),
    Depreciation: crore(f.Depreciation),
    'Exceptional Items': 0,
    'Profit before tax': crore(pbt),
    Tax: crore(f.Tax),
    'Net Profit': crore(np),
    // np is in hundredths of a crore (1e5 rupees); EPS is rupees a share, to the paisa.
    'EPS (Rs)': Math.round((np * 1e7) / shares) / 100,
  };
}

/**
 * A company's statements expanded from its annual results, which stay the one source of truth: each
 * year's Revenue, Net Profit, Total Equity and Borrowings are the AnnualResultRow's sales, netProfit,
 * equity and borrowings, and Profit before tax + Interest is its EBIT (so the profile's growth and
 * return figures and these statements agree). Quarters split the year's flows, so they add up to it;
 * the running fiscal year's quarters (ending by `endDay`) grow on the same quarter a year earlier. The
 * balance sheet balances and the cash-flow sections add up to the net cash flow by construction.
 * Results are filed within the SEBI deadlines: quarters 20-44 days after the quarter, the audited
 * year (with its fourth quarter) in May.
 */
export function companyStatements(
  rng: Rng,
  stock: Pick<StockRow, 'sharesOutstanding' | 'faceValue' | 'sector'>,
  annual: readonly AnnualResultRow[],
  endDay: DayNumber,
): StatementPeriod[] {
  const shares = stock.sharesOutstanding ?? 0;
  const years = [...annual].sort((a, b) => a.fiscalYear - b.fiscalYear);
  if (shares <= 0 || years.length === 0) return [];
  const lender = stock.sector === 'Financial Services';
  const depRate = 0.015 + 0.035 * rng.next();
  const otherIncomeRate = 0.004 + 0.02 * rng.next();
  const otherLiabRate = 0.12 + 0.25 * rng.next();
  const fixedShare = lender ? 0.01 + 0.02 * rng.next() : 0.2 + 0.3 * rng.next();
  const investShare = 0.04 + 0.16 * rng.next();
  const quarterLag = 20 + rng.int(0, 15);
  const yearLag = rng.int(0, 25);
  const faceValue = stock.faceValue ?? 1;
  const out: StatementPeriod[] = [];
  const lastQuarters = new Map<number, Flows>();
  let prev: { fixed: number; borrowings: number; investments: number } | undefined;

  for (const a of years) {
    const end = fiscalYearEnd(a.fiscalYear);
    const filed = day(`${a.fiscalYear}-05-01`) + yearLag + rng.int(0, 4);
    const revenue = cents(a.sales);
    const np = cents(a.netProfit);
    const pbt = cents(a.netProfit / 0.75);
    const interest = cents(a.ebit) - pbt;
    const dep = cents(a.sales * depRate * Math.exp(0.1 * rng.normal()));
    const oi = cents(a.sales * otherIncomeRate * Math.exp(0.2 * rng.normal()));
    const op = pbt + interest + dep - oi;
    const flows: Flows = {
      Revenue: revenue,
      Expenses: revenue - op,
      'Other Income': oi,
      Interest: interest,
      Depreciation: dep,
      Tax: pbt - np,
    };
    out.push({
      section: 'profit_loss',
      periodEnd: end,
      availableFrom: filed,
      items: profitAndLoss(flows, shares),
    });

    const equity = cents(a.equity);
    const borrowings = cents(a.borrowings);
    const capital = cents((shares * faceValue) / 1e7);
    const otherLiab = cents(a.sales * otherLiabRate * Math.exp(0.1 * rng.normal()));
    const liabilities = borrowings + otherLiab;
    const assets = equity + liabilities;
    const fixed = Math.round(assets * fixedShare);
    const cwip = Math.round(assets * 0.03 * rng.next());
    const investments = Math.round(assets * investShare);
    const loans = lender ? Math.round(assets * (0.55 + 0.15 * rng.next())) : 0;
    out.push({
      section: 'balance_sheet',
      periodEnd: end,
      availableFrom: filed,
      items: {
        'Share Capital': crore(capital),
        Reserves: crore(equity - capital),
        'Total Equity': crore(equity),
        Deposits: 0,
        Borrowings: crore(borrowings),
        'Other Liabilities': crore(otherLiab),
        'Total Liabilities': crore(liabilities),
        'Fixed Assets': crore(fixed),
        CWIP: crore(cwip),
        Investments: crore(investments),
        'Loans & Advances': crore(loans),
        'Other Assets': crore(assets - fixed - cwip - investments - loans),
        'Total Assets': crore(assets),
      },
    });

    const capex = Math.max(0, fixed - (prev?.fixed ?? Math.round(fixed * 0.92)) + dep);
    const dividends = cents((a.dividendPs * shares) / 1e7);
    const operating = np + dep + cents(a.sales * 0.04 * rng.normal());
    const investing = -capex - (investments - (prev?.investments ?? investments)) + oi;
    const financing = borrowings - (prev?.borrowings ?? borrowings) - dividends - interest;
    out.push({
      section: 'cash_flow',
      periodEnd: end,
      availableFrom: filed,
      items: {
        'Cash from Operating Activity': crore(operating),
        'Cash from Investing Activity': crore(investing),
        'Cash from Financing Activity': crore(financing),
        'Net Cash Flow': crore(operating + investing + financing),
        Capex: crore(capex),
        'Dividends Paid': crore(dividends),
      },
    });
    prev = { fixed, borrowings, investments };

    if (a.fiscalYear <= years.at(-1)!.fiscalYear - QUARTER_YEARS) continue;
    const w = weights(rng, 0.08);
    const cost = w.map((x) => x * Math.exp(0.03 * rng.normal()));
    const costSum = cost.reduce((s, x) => s + x, 0);
    const parts = {
      Revenue: split(flows.Revenue, w),
      Expenses: split(
        flows.Expenses,
        cost.map((x) => x / costSum),
      ),
      'Other Income': split(flows['Other Income'], weights(rng, 0.2)),
      Interest: split(flows.Interest, [0.25, 0.25, 0.25, 0.25]),
      Depreciation: split(flows.Depreciation, weights(rng, 0.03)),
      Tax: split(flows.Tax, w),
    };
    for (const q of [1, 2, 3, 4] as const) {
      const f = Object.fromEntries(Object.entries(parts).map(([k, v]) => [k, v[q - 1]!])) as Flows;
      lastQuarters.set(q, f);
      const qEnd = quarterEnd(a.fiscalYear, q);
      out.push({
        section: 'quarterly',
        periodEnd: qEnd,
        availableFrom: q === 4 ? filed : qEnd + quarterLag + rng.int(0, 10),
        items: profitAndLoss(f, shares),
      });
    }
  }

  // The running fiscal year: quarters that have ended by endDay (their filing may still be ahead).
  const running = years.at(-1)!.fiscalYear + 1;
  const growth = 1 + 0.1 + 0.08 * rng.normal();
  for (const q of [1, 2, 3] as const) {
    const qEnd = quarterEnd(running, q);
    const base = lastQuarters.get(q);
    if (qEnd > endDay || !base) break;
    const f = Object.fromEntries(
      Object.entries(base).map(([k, v]) => [k, Math.round(v * growth * Math.exp(0.03 * rng.normal()))]),
    ) as Flows;
    out.push({
      section: 'quarterly',
      periodEnd: qEnd,
      availableFrom: qEnd + quarterLag + rng.int(0, 10),
      items: profitAndLoss(f, shares),
    });
  }
  return out;
}

/** Listed equities have financial statements; funds, bonds, REITs, InvITs and the rest do not. */
export const hasFinancials = (s: Pick<StockRow, 'stockType'>) => s.stockType === 'equity';

/**
 * Statements of every listed company of the dataset (consolidated basis), deterministic for the
 * seed, expanded from `ds.annual`; yields one company at a time to keep memory flat.
 */
export function* financialsByCompany(
  ds: Pick<GeneratedDataset, 'stocks' | 'annual' | 'options'>,
): Generator<FinancialStatementRow[]> {
  const annualOf = new Map<number, AnnualResultRow[]>();
  for (const a of ds.annual) {
    const list = annualOf.get(a.stockId);
    if (list) list.push(a);
    else annualOf.set(a.stockId, [a]);
  }
  for (const stock of ds.stocks) {
    const annual = annualOf.get(stock.id);
    if (!annual || !hasFinancials(stock) || stock.status !== 'listed') continue;
    const rng = new Rng(ds.options.seed, FINANCIALS_STREAM + stock.id);
    yield companyStatements(rng, stock, annual, ds.options.endDay).map((p) => ({
      ...p,
      stockId: stock.id,
      basis: 'consolidated' as const,
      source: 'generated',
    }));
  }
}

/** The same, one call of `emit` per company. */
export function generateFinancials(
  ds: Pick<GeneratedDataset, 'stocks' | 'annual' | 'options'>,
  emit: (stockId: number, periods: FinancialStatementRow[]) => void,
): void {
  for (const rows of financialsByCompany(ds)) if (rows.length > 0) emit(rows[0]!.stockId, rows);
}
