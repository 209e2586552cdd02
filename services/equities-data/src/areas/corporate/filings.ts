import {
  type CorporateActionRow,
  type CorporateEventRow,
  type CreditRatingAction,
  type FilingType,
  type PledgeEventRow,
  periodLabel,
  resultsFilings,
  type StatementPeriod,
} from '@mdp/market';
import { type DayNumber, formatDay } from '@mdp/nse-calendar';

export interface Filing {
  date: DayNumber;
  type: FilingType;
  title: string;
}

/** Results (with their calls and presentations) are listed for the quarters of the last three years. */
const RESULT_YEARS = 3;
/** Companies this many analysts follow hold earnings calls with a presentation and a transcript. */
const CALL_COVERAGE = 8;
/** The AGM notice goes out this many days before the meeting (21 clear days at least). */
const AGM_NOTICE_DAYS = 25;

/**
 * A company's filings, derived from what the dataset holds so they agree with it. Results are dated
 * by the company's financial statements, as the financials route serves them, by the market's one
 * rule for results days (`resultsFilings`, which the filings reader's generated documents follow too):
 * each quarter's results on the day they were filed (`availableFrom`), the fourth quarter's with the
 * audited year's. Covered companies release the investor presentation and hold the earnings call on
 * the results day, and the call's transcript is listed that day, as the filings reader dates its
 * concall transcripts. The annual report of each fiscal year is dated the day its audited results
 * were filed (the filings reader's annual report date). Then the AGM notice before each AGM, every
 * credit-rating action, and announcements of dividends, splits, bonuses and pledges. Newest first.
 */
export function filingsOf(input: {
  /** Funds, bonds and other non-company instruments publish no results, calls or annual reports. */
  company: boolean;
  listedOn: DayNumber | null;
  /** The last day filings are listed for: today, or the delisting day. */
  today: DayNumber;
  analysts: number;
  /** The company's financial statements, every section and basis, as the financials route reads them. */
  statements: readonly Pick<StatementPeriod, 'section' | 'periodEnd' | 'availableFrom'>[];
  actions: readonly CorporateActionRow[];
  events: readonly CorporateEventRow[];
  ratings: readonly CreditRatingAction[];
  pledges: readonly PledgeEventRow[];
}): Filing[] {
  const { today } = input;
  const out: Filing[] = [];
  const add = (date: DayNumber, type: FilingType, title: string) => {
    if (date <= today && (input.listedOn === null || date >= input.listedOn)) out.push({ date, type, title });
  };
  const { quarters, years } = resultsFilings(input.company ? input.statements : [], {
    to: today,
    from: input.listedOn,
  });
  const since = today - RESULT_YEARS * 366;
  const yearEnds = new Set(years.map((y) => y.periodEnd));
  const quarterEnds = new Set(quarters.map((q) => q.periodEnd));
  for (const q of quarters) {
    if (q.periodEnd < since) continue;
    const ended = formatDay(q.periodEnd);
    const withYear = yearEnds.has(q.periodEnd);
    add(
      q.filed,
      'results',
      `Financial results for the ${withYear ? 'quarter and year' : 'quarter'} ended ${ended}`,
    );
    if (input.analysts >= CALL_COVERAGE) {
      add(q.filed, 'presentation', `Investor presentation for the quarter ended ${ended}`);
      add(q.filed, 'concall_transcript', `Transcript of the earnings call for the quarter ended ${ended}`);
    }
  }
  for (const y of years) {
    // A year whose fourth quarter is not held is still a results filing of its own.
    if (y.periodEnd >= since && !quarterEnds.has(y.periodEnd))
      add(y.filed, 'results', `Financial results for the year ended ${formatDay(y.periodEnd)}`);
    add(
      y.filed,
      'annual_report',
      `Annual report for ${periodLabel('profit_loss', y.periodEnd)}, the year ended ${formatDay(y.periodEnd)}`,
    );
  }
  for (const e of input.events) {
    if (e.kind === 'agm' && e.eventDate !== null)
      add(
        e.eventDate - AGM_NOTICE_DAYS,
        'announcement',
        `Notice of the annual general meeting on ${formatDay(e.eventDate)}`,
      );
    else if (e.exDate !== null)
      add(e.exDate - 10, 'announcement', `Record date intimation: ${e.description}`);
  }
  for (const a of input.actions)
    add(
      a.exDate - 30,
      'announcement',
      `Board approves ${a.kind}: ${a.description}, ex-date ${formatDay(a.exDate)}`,
    );
  for (const r of input.ratings)
    add(
      r.ratedOn,
      'credit_rating',
      `${r.agency} ${r.action} ${r.instrument}: ${r.rating}${r.outlook ? ` (${r.outlook})` : ''}`,
    );
  for (const p of input.pledges)
    add(p.d + 2, 'announcement', `Disclosure of pledge ${p.kind}: ${p.shares} shares with ${p.pledgee}`);
  return out.sort((a, b) => b.date - a.date || a.type.localeCompare(b.type));
}
