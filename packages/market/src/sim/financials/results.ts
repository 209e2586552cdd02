import type { DayNumber } from '@mdp/nse-calendar';
import type { StatementPeriod } from './statements.ts';

/** The results of one period a company has filed: the period's last day and the day they were filed. */
export interface ResultsFiling {
  periodEnd: DayNumber;
  /** The filing day: the statements' `availableFrom`, from which the financials serve the period. */
  filed: DayNumber;
}

/** A company's results filings: its quarterly results and its audited annual results, newest first. */
export interface ResultsFilings {
  quarters: ResultsFiling[];
  years: ResultsFiling[];
}

/**
 * The results a company has filed, read off its financial statements: a quarter's results were filed
 * on its `quarterly` period's `availableFrom`, a fiscal year's audited results on its `profit_loss`
 * period's (the fourth quarter's with them). This is the one rule every generated document that
 * dates results follows (the equities filings list, the filings reader's concalls, presentations and
 * annual reports, the market's results news), so they agree with the financials route's
 * `available_from` and with each other.
 * Only filings in the window count: on or before `to` ("today") and, with `from` (the listing day),
 * not before it. A period held on more than one basis (consolidated and standalone) counts once, on
 * the first day any of its figures were public.
 */
export function resultsFilings(
  statements: readonly Pick<StatementPeriod, 'section' | 'periodEnd' | 'availableFrom'>[],
  window: { to: DayNumber; from?: DayNumber | null },
): ResultsFilings {
  const from = window.from ?? Number.NEGATIVE_INFINITY;
  const filings = (section: 'quarterly' | 'profit_loss'): ResultsFiling[] => {
    const filed = new Map<DayNumber, DayNumber>();
    for (const r of statements) {
      if (r.section !== section) continue;
      const seen = filed.get(r.periodEnd);
      if (seen === undefined || r.availableFrom < seen) filed.set(r.periodEnd, r.availableFrom);
    }
    return [...filed]
      .filter(([, on]) => on <= window.to && on >= from)
      .map(([periodEnd, on]) => ({ periodEnd, filed: on }))
      .sort((a, b) => b.periodEnd - a.periodEnd);
  };
  return { quarters: filings('quarterly'), years: filings('profit_loss') };
}
