import {
  DEFAULT_HISTORY_DAYS,
  DEFAULT_SEED,
  DEFAULT_SIZE,
  type FinancialStatementRow,
  financialsByCompany,
  type GeneratedDataset,
  generateDataset,
  periodLabel,
  type ResultsFiling,
  resultsFilings,
  type StockRow,
} from '@mdp/market';
import { type DayNumber, lastCompletedSession, tradingDayOnOrBefore } from '@mdp/nse-calendar';

export interface Company {
  symbol: string;
  name: string;
  sector: string;
  /** Annual revenue in crore (the latest reported year), for plausible figures. */
  revenueCr: number;
}

let built: GeneratedDataset | undefined;

/**
 * The generated market the equities service serves by default, generated to `endDay` ("today": the
 * last completed session of the real clock unless a test or `--end` pins another). A few seconds to
 * build; the last one built is kept.
 */
export function defaultMarket(endDay: DayNumber = lastCompletedSession(Date.now())): GeneratedDataset {
  const last = tradingDayOnOrBefore(endDay);
  if (built?.options.endDay !== last)
    built = generateDataset({
      seed: DEFAULT_SEED,
      size: DEFAULT_SIZE,
      endDay: last,
      historyDays: DEFAULT_HISTORY_DAYS,
    });
  return built;
}

/** The largest listed NSE companies of `ds` with annual results, largest first. */
function largest(count: number, ds: GeneratedDataset): { stock: StockRow; company: Company }[] {
  const sales = new Map<number, number>();
  for (const a of ds.annual) sales.set(a.stockId, a.sales);
  return ds.stocks
    .filter((s) => s.status === 'listed' && s.stockType === 'equity' && s.nseSymbol && sales.has(s.id))
    .map((s) => ({ s, cap: ds.plans.get(s.id)?.marketCapCr ?? 0 }))
    .sort((a, b) => b.cap - a.cap || a.s.id - b.s.id)
    .slice(0, count)
    .map(({ s }) => ({
      stock: s,
      company: {
        symbol: s.symbol,
        name: s.name,
        sector: s.sector ?? 'Diversified',
        revenueCr: Math.max(1, Math.round(sales.get(s.id)!)),
      },
    }));
}

/**
 * The companies that file documents in the default dataset: the largest listed NSE companies of the
 * generated market, largest first, with their own symbols, names, sectors and latest revenue — so a
 * symbol with filings is a stock the equities service knows.
 */
export function generateCompanies(count: number, ds: GeneratedDataset = defaultMarket()): Company[] {
  return largest(count, ds).map((c) => c.company);
}

/** A period whose results a company has filed: `Q2FY27` or `FY26`, its last day, and the filing day. */
interface ReportedPeriod {
  period: string;
  periodEnd: DayNumber;
  filed: DayNumber;
}

/** What a company has reported by the market's end day, which dates its filings. */
export interface CompanyCalendar {
  company: Company;
  /** Listing day on the exchange (its offer documents precede it; nothing it files as listed does). */
  listedOn: DayNumber | null;
  /** Quarterly results out by the end day (and since listing), newest first. */
  quarters: ReportedPeriod[];
  /** The latest fiscal year whose audited results are out by the end day (and since listing). */
  year: ReportedPeriod | undefined;
  /** The market's end day: "today", the last completed session it is generated to. */
  endDay: DayNumber;
}

/** `Q2 FY2027` → `Q2FY27`, `FY2026` → `FY26`: the filings' spelling of the financials' period labels. */
export const filingPeriod = (label: string): string => label.replace(/ ?FY\d\d(\d\d)$/, 'FY$1');

/**
 * Each filing company's reporting calendar, read off the market's own financial statements
 * (`financialsByCompany`, which the equities financials route serves) by the market's one rule for
 * results days (`resultsFilings`, which the equities filings list follows too): a period is reported
 * once its `availableFrom` (the day the results were filed) is on or before the end day, exactly as
 * the financials route serves it. So the filings follow the same "today" and the same results days as
 * the financials, and are never a year behind them.
 */
export function companyCalendars(count: number, ds: GeneratedDataset = defaultMarket()): CompanyCalendar[] {
  const picked = largest(count, ds);
  const endDay = ds.options.endDay;
  const statements = new Map<number, FinancialStatementRow[]>();
  for (const rows of financialsByCompany({
    stocks: picked.map((p) => p.stock),
    annual: ds.annual,
    options: ds.options,
  }))
    if (rows[0]) statements.set(rows[0].stockId, rows);
  return picked.map(({ stock, company }) => {
    const { quarters, years } = resultsFilings(statements.get(stock.id) ?? [], {
      to: endDay,
      from: stock.listedOn,
    });
    const reported =
      (section: 'quarterly' | 'profit_loss') =>
      (f: ResultsFiling): ReportedPeriod => ({
        period: filingPeriod(periodLabel(section, f.periodEnd)),
        periodEnd: f.periodEnd,
        filed: f.filed,
      });
    return {
      company,
      listedOn: stock.listedOn,
      quarters: quarters.map(reported('quarterly')),
      year: years.map(reported('profit_loss'))[0],
      endDay,
    };
  });
}
