import {
  type CorporateActionRow,
  type CorporateEventRow,
  type CreditRatingAction,
  type PledgeEventRow,
  quarterEnds,
} from '@mdp/market';
import { type DayNumber, formatDay, tradingDayOnOrBefore } from '@mdp/nse-calendar';

export const FILING_TYPES = [
  'results',
  'presentation',
  'concall_transcript',
  'annual_report',
  'credit_rating',
  'announcement',
] as const;
type FilingType = (typeof FILING_TYPES)[number];

export interface Filing {
  date: DayNumber;
  type: FilingType;
  title: string;
}

/** Quarterly results filings are looked for over the last three years. */
const RESULT_YEARS = 3;
/** Companies this many analysts follow hold earnings calls with a presentation and a transcript. */
const CALL_COVERAGE = 8;

/**
 * A company's filings, derived from what the dataset holds so they agree with it: results within the
 * LODR deadlines (45 days after a quarter, 60 after the fiscal year), presentations and call
 * transcripts for covered companies, an annual report three weeks before each AGM, every
 * credit-rating action, and announcements of dividends, splits, bonuses and pledges. Newest first.
 */
export function filingsOf(input: {
  stockId: number;
  /** Funds, bonds and other non-company instruments publish no results, calls or annual reports. */
  company: boolean;
  listedOn: DayNumber | null;
  /** The last day filings are listed for: today, or the delisting day. */
  today: DayNumber;
  analysts: number;
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
  for (const q of input.company ? quarterEnds(today - RESULT_YEARS * 366, today) : []) {
    const fourth = formatDay(q).endsWith('03-31');
    const lag = (fourth ? 40 : 25) + ((input.stockId * 7 + q) % 19);
    const date = tradingDayOnOrBefore(q + lag);
    add(
      date,
      'results',
      `Financial results for the ${fourth ? 'quarter and year' : 'quarter'} ended ${formatDay(q)}`,
    );
    if (input.analysts >= CALL_COVERAGE) {
      add(date, 'presentation', `Investor presentation for the quarter ended ${formatDay(q)}`);
      add(
        date + 4,
        'concall_transcript',
        `Transcript of the earnings call for the quarter ended ${formatDay(q)}`,
      );
    }
  }
  for (const e of input.events) {
    if (e.kind === 'agm' && e.eventDate !== null)
      add(
        e.eventDate - 25,
        'annual_report',
        `Annual report and notice of the AGM on ${formatDay(e.eventDate)}`,
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
