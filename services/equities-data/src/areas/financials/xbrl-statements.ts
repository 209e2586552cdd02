import { fiscalYearEnd, fiscalYearOf, type StatementBasis, type StatementPeriod } from '@mdp/market';
import { type DayNumber, day } from '@mdp/nse-calendar';
import { XbrlError, type XbrlFacts } from './xbrl.ts';

/** What one results filing contributes: its company, basis and statement periods. */
export interface Filing {
  symbol: string;
  isin: string | null;
  basis: StatementBasis;
  format: 'ind-as' | 'banking';
  periods: StatementPeriod[];
  /** Parts of the filing left out, with why (e.g. a year that is not April-March). */
  skipped: string[];
}

/** Reads facts of one context; amounts are rupees in the filing and crore (2 decimals) here. */
class Facts {
  constructor(private readonly facts: Map<string, string> | undefined) {}
  get size() {
    return this.facts?.size ?? 0;
  }
  text(concept: string): string | undefined {
    const v = this.facts?.get(concept);
    return v === undefined || v === '' ? undefined : v;
  }
  /** Rupees. */
  raw(concept: string): number | undefined {
    const v = this.text(concept);
    const n = v === undefined ? Number.NaN : Number(v);
    return Number.isFinite(n) ? n : undefined;
  }
  has(concept: string) {
    return this.raw(concept) !== undefined;
  }
  /** Sum in rupees of the concepts present; undefined when none is. */
  sum(...concepts: string[]): number | undefined {
    const present = concepts.map((c) => this.raw(c)).filter((x): x is number => x !== undefined);
    return present.length === 0 ? undefined : present.reduce((a, b) => a + b, 0);
  }
}

/** Owners' share of profit; some filings put a 0 there when they mean "not stated". */
const ownersShare = (f: Facts, concept: string) => {
  const v = f.raw(concept);
  return v === 0 ? undefined : v;
};

const crore = (rupees: number | undefined) =>
  rupees === undefined ? undefined : Math.round(rupees / 1e5) / 100;
const minus = (a: number | undefined, ...b: (number | undefined)[]) =>
  a === undefined || b.some((x) => x === undefined) ? undefined : b.reduce((s: number, x) => s - x!, a);

function defined(items: Record<string, number | undefined>): Record<string, number> {
  return Object.fromEntries(Object.entries(items).filter(([, v]) => v !== undefined)) as Record<
    string,
    number
  >;
}

/**
 * P&L rows of one context. Ind AS (companies and NBFCs): Revenue is revenue from operations and
 * Expenses leave out finance costs and depreciation, which have their own rows. Banking format:
 * Revenue is interest earned, Interest is interest expended and Expenses are operating expenses plus
 * provisions, so Operating Profit + Other Income - Interest - Depreciation + Exceptional Items =
 * Profit before tax in both. Net Profit is the owners' share when the filing states it.
 */
function profitAndLoss(f: Facts, format: Filing['format'], basis: StatementBasis) {
  if (format === 'banking') {
    const revenue = f.raw('InterestEarned');
    const expenses = f.sum('OperatingExpenses', 'ProvisionsOtherThanTaxAndContingencies');
    const pbt = f.raw('ProfitLossFromOrdinaryActivitiesBeforeTax');
    const tax = f.raw('TaxExpense');
    const np =
      (basis === 'consolidated'
        ? ownersShare(f, 'ProfitLossAfterTaxesMinorityInterestAndShareOfProfitLossOfAssociates')
        : undefined) ??
      f.raw('ProfitLossForThePeriod') ??
      f.raw('ProfitLossFromOrdinaryActivitiesAfterTax') ??
      // The quarter of a yearly banking filing often states only profit before tax and tax.
      minus(pbt, tax, f.raw('ExtraordinaryItems') ?? 0);
    return defined({
      Revenue: crore(revenue),
      Expenses: crore(expenses),
      'Operating Profit': crore(minus(revenue, expenses)),
      'Other Income': crore(f.raw('OtherIncome')),
      Interest: crore(f.raw('InterestExpended')),
      'Exceptional Items': crore(f.raw('ExceptionalItems')),
      'Profit before tax': crore(pbt),
      Tax: crore(tax),
      'Net Profit': crore(np),
      'EPS (Rs)':
        f.raw('BasicEarningsPerShareAfterExtraordinaryItems') ??
        f.raw('BasicEarningsPerShareBeforeExtraordinaryItems'),
    });
  }
  const revenue = f.raw('RevenueFromOperations');
  const interest = f.raw('FinanceCosts');
  const dep = f.raw('DepreciationDepletionAndAmortisationExpense');
  const expenses = minus(f.raw('Expenses'), interest ?? 0, dep ?? 0);
  const np =
    (basis === 'consolidated' ? ownersShare(f, 'ProfitOrLossAttributableToOwnersOfParent') : undefined) ??
    f.raw('ProfitLossForPeriod');
  return defined({
    Revenue: crore(revenue),
    Expenses: crore(expenses),
    'Operating Profit': crore(minus(revenue, expenses)),
    'Other Income': crore(f.raw('OtherIncome')),
    Interest: crore(interest),
    Depreciation: crore(dep),
    'Exceptional Items': crore(f.raw('ExceptionalItemsBeforeTax')),
    'Profit before tax': crore(f.raw('ProfitBeforeTax')),
    Tax: crore(f.raw('TaxExpense')),
    'Net Profit': crore(np),
    'EPS (Rs)':
      f.raw('BasicEarningsLossPerShareFromContinuingAndDiscontinuedOperations') ??
      f.raw('BasicEarningsLossPerShareFromContinuingOperations'),
  });
}

/**
 * Year-end balance sheet. Total Liabilities is everything but equity (so Total Assets = Total Equity
 * + Total Liabilities); Other Liabilities and Other Assets are what the named rows leave. Ind AS
 * Total Equity includes non-controlling interests; a bank's equity is capital plus reserves.
 */
function balanceSheet(f: Facts, format: Filing['format']) {
  const assets = f.raw('Assets');
  if (format === 'banking') {
    const equity = f.sum('Capital', 'ReservesAndSurplus');
    const liabilities = minus(f.raw('CapitalAndLiabilities') ?? assets, equity);
    const deposits = f.raw('Deposits') ?? 0;
    const borrowings = f.raw('Borrowings') ?? 0;
    const fixed = f.raw('FixedAssets') ?? 0;
    const investments = f.raw('Investments') ?? 0;
    const advances = f.raw('Advances') ?? 0;
    return defined({
      'Share Capital': crore(f.raw('Capital')),
      Reserves: crore(f.raw('ReservesAndSurplus')),
      'Total Equity': crore(equity),
      Deposits: crore(deposits),
      Borrowings: crore(borrowings),
      'Other Liabilities': crore(minus(liabilities, deposits, borrowings)),
      'Total Liabilities': crore(liabilities),
      'Fixed Assets': crore(fixed),
      Investments: crore(investments),
      'Loans & Advances': crore(advances),
      'Other Assets': crore(minus(assets, fixed, investments, advances)),
      'Total Assets': crore(assets),
    });
  }
  const equity = f.raw('Equity');
  const liabilities = minus(f.raw('EquityAndLiabilities') ?? assets, equity);
  const deposits = f.raw('Deposits');
  const borrowings =
    f.sum(
      'BorrowingsNoncurrent',
      'BorrowingsCurrent',
      'Borrowings',
      'DebtSecurities',
      'SubordinatedLiabilities',
    ) ?? 0;
  const fixed =
    f.sum('PropertyPlantAndEquipment', 'InvestmentProperty', 'Goodwill', 'OtherIntangibleAssets') ?? 0;
  const cwip = f.sum('CapitalWorkInProgress', 'IntangibleAssetsUnderDevelopment') ?? 0;
  const investments =
    f.sum(
      'NoncurrentInvestments',
      'CurrentInvestments',
      'InvestmentsAccountedForUsingEquityMethod',
      'Investments',
    ) ?? 0;
  const loans = f.sum('Loans', 'LoansNoncurrent', 'LoansCurrent') ?? 0;
  return defined({
    'Share Capital': crore(f.raw('EquityShareCapital')),
    Reserves: crore(f.raw('OtherEquity')),
    'Total Equity': crore(equity),
    Deposits: crore(deposits),
    Borrowings: crore(borrowings),
    'Other Liabilities': crore(minus(liabilities, borrowings, deposits ?? 0)),
    'Total Liabilities': crore(liabilities),
    'Fixed Assets': crore(fixed),
    CWIP: crore(cwip),
    Investments: crore(investments),
    'Loans & Advances': crore(loans),
    'Other Assets': crore(minus(assets, fixed, cwip, investments, loans)),
    'Total Assets': crore(assets),
  });
}

/** Cash flow of the year; Capex and Dividends Paid are amounts paid out (positive). */
function cashFlow(f: Facts) {
  const op = f.raw('CashFlowsFromUsedInOperatingActivities');
  const inv = f.raw('CashFlowsFromUsedInInvestingActivities');
  const fin = f.raw('CashFlowsFromUsedInFinancingActivities');
  const net =
    f.raw('IncreaseDecreaseInCashAndCashEquivalentsBeforeEffectOfExchangeRateChanges') ??
    (op === undefined || inv === undefined || fin === undefined ? undefined : op + inv + fin);
  const capex = f.sum(
    'PurchaseOfPropertyPlantAndEquipmentClassifiedAsInvestingActivities',
    'PurchaseOfTangibleAssetsClassifiedAsInvestingActivities',
    'PurchaseOfIntangibleAssetsClassifiedAsInvestingActivities',
  );
  const dividends = f.raw('DividendsPaidClassifiedAsFinancingActivities');
  return defined({
    'Cash from Operating Activity': crore(op),
    'Cash from Investing Activity': crore(inv),
    'Cash from Financing Activity': crore(fin),
    'Net Cash Flow': crore(net),
    Capex: crore(capex === undefined ? undefined : Math.abs(capex)),
    'Dividends Paid': crore(dividends === undefined ? undefined : Math.abs(dividends)),
  });
}

const isoDay = (s: string | undefined) => (s && /^\d{4}-\d{2}-\d{2}$/.test(s) ? day(s) : undefined);

/** Months from `from` to the day after `to` (3 for a quarter, 12 for a year), if both are month edges. */
function months(from: DayNumber, to: DayNumber): number {
  const a = new Date(from * 86_400_000);
  const b = new Date((to + 1) * 86_400_000);
  return (b.getUTCFullYear() - a.getUTCFullYear()) * 12 + b.getUTCMonth() - a.getUTCMonth();
}

/**
 * The statement periods of one NSE results filing: the quarter (`OneD`) as a quarterly period; and
 * when the year to date (`FourD`) is a whole April-March fiscal year, the year's P&L, its cash flow
 * when filed, and the 31 March balance sheet (`OneI`) when the filing carries one. Half-year balance
 * sheets are not kept (the balance sheet section is annual). Throws XbrlError for a filing that
 * cannot be read as results (pre-Ind AS format, no reporting period, no P&L).
 */
export function filingStatements(facts: XbrlFacts, filedOn: DayNumber): Filing {
  if (/other_than_banks|NONINDAS/i.test(facts.schema))
    throw new XbrlError('pre-Ind AS (Indian GAAP) results format is not imported');
  const one = new Facts(facts.contexts.get('OneD'));
  const ytd = new Facts(facts.contexts.get('FourD'));
  const instant = new Facts(facts.contexts.get('OneI'));
  const symbol = one.text('Symbol');
  if (!symbol) throw new XbrlError('no Symbol fact in the filing');
  const end = isoDay(one.text('DateOfEndOfReportingPeriod'));
  if (end === undefined) throw new XbrlError('no DateOfEndOfReportingPeriod in the filing');
  const nature = (one.text('NatureOfReportStandaloneConsolidated') ?? '').toLowerCase();
  if (nature !== 'standalone' && nature !== 'consolidated')
    throw new XbrlError(
      `NatureOfReportStandaloneConsolidated is "${nature}", not Standalone or Consolidated`,
    );
  const basis: StatementBasis = nature;
  const format = one.has('RevenueFromOperations')
    ? 'ind-as'
    : one.has('InterestEarned')
      ? 'banking'
      : undefined;
  if (!format) throw new XbrlError('no revenue (RevenueFromOperations or InterestEarned) for the quarter');
  if (filedOn < end) throw new XbrlError('filed before the end of the period it reports');

  const skipped: string[] = [];
  const periods: StatementPeriod[] = [];
  const quarterStart = isoDay(one.text('DateOfStartOfReportingPeriod'));
  if (quarterStart === undefined || months(quarterStart, end) === 3)
    periods.push({
      section: 'quarterly',
      periodEnd: end,
      availableFrom: filedOn,
      items: profitAndLoss(one, format, basis),
    });
  else skipped.push(`reporting period of ${months(quarterStart, end)} months is not a quarter`);

  if (ytd.size > 0) {
    const start =
      isoDay(ytd.text('DateOfStartOfReportingPeriod')) ?? isoDay(one.text('DateOfStartOfFinancialYear'));
    const fy = fiscalYearOf(end);
    const wholeYear = start !== undefined && start === fiscalYearEnd(fy - 1) + 1 && end === fiscalYearEnd(fy);
    if (wholeYear) {
      periods.push({
        section: 'profit_loss',
        periodEnd: end,
        availableFrom: filedOn,
        items: profitAndLoss(ytd, format, basis),
      });
      const cf = cashFlow(ytd);
      if (cf['Cash from Operating Activity'] !== undefined)
        periods.push({ section: 'cash_flow', periodEnd: end, availableFrom: filedOn, items: cf });
      if (instant.has('Assets'))
        periods.push({
          section: 'balance_sheet',
          periodEnd: end,
          availableFrom: filedOn,
          items: balanceSheet(instant, format),
        });
    } else if (start !== undefined && months(start, end) >= 12) {
      skipped.push('the year to date is not an April-March fiscal year');
    }
  }
  return { symbol, isin: one.text('ISIN') ?? null, basis, format, periods, skipped };
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/**
 * The IST day a filing reached NSE, from the file name NSE's archive gives it
 * (`19Apr2024_1128_INDAS_104589_....xml`: 19 April 2024, 11:28).
 */
export function filingDayFromName(name: string): DayNumber | undefined {
  const m = /^(\d{2})([A-Z][a-z]{2})(\d{4})_(\d{4})_/.exec(name);
  if (!m) return undefined;
  const month = MONTHS.indexOf(m[2]!);
  if (month < 0) return undefined;
  return day(`${m[3]}-${String(month + 1).padStart(2, '0')}-${m[1]}`);
}
