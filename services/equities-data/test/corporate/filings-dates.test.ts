import { type BarRow, periodLabel } from '@mdp/market';
import { day } from '@mdp/nse-calendar';
import { beforeAll, describe, expect, it } from 'vitest';
// The filings reader's generator, imported by this test only (equities-data's src does not depend on it).
import {
  type CompanyCalendar,
  companyCalendars,
  defaultMarket,
  filingPeriod,
} from '../../../filings-reader/src/generate/companies.ts';
import { companyFilings } from '../../../filings-reader/src/generate/dataset.ts';
import { DEFAULT_SEED } from '../../../filings-reader/src/generate/documents.ts';
import type { FilingSpec } from '../../../filings-reader/src/generate/filing.ts';
import { corporateData } from '../../src/areas/corporate/data.ts';
import { generateCorporate } from '../../src/areas/corporate/generated.ts';
import { corporateRpcs } from '../../src/areas/corporate/rpcs.ts';
import { financialsRpcs } from '../../src/areas/financials/rpcs.ts';
import { EquitiesDataset } from '../../src/areas/stocks/dataset.ts';
import { clockAt, ctx, memorySource, readDocument, snapshotOf } from '../support.ts';
import { memoryFinancials } from './support.ts';

// One calendar for every generated document (the issue): on the default market at a fixed end day,
// the equities filings list, the financials route's `available_from` and the filings reader's
// generated documents give a company's latest quarter and its annual report the same days.
const END = '2026-11-27';

interface Listed {
  date: string;
  type: string;
  title: string;
}
interface Availability {
  period: string;
  period_end: string;
  available_from: string;
}

/** What the three say of one company. */
interface Company {
  symbol: string;
  /** The equities filings list (GetStockEvents type=filings), newest first. */
  listed: Listed[];
  /** The financials route's availability of the quarterly and annual P&L sections, oldest first. */
  quarterly: Availability[];
  annual: Availability[];
  /** The filings reader's generated documents (its latest concall, presentation and annual report). */
  documents: FilingSpec[];
}

let companies: Company[];

beforeAll(async () => {
  // The market both services generate by default, to the same end day ("today").
  const market = defaultMarket(day(END));
  expect(market.options.endDay).toBe(day(END));
  // The five largest companies that file documents (the first is ARAVALIHOU, the example).
  const cals: CompanyCalendar[] = companyCalendars(5, market);
  const bars = new Map(
    cals.map((c) => {
      const id = market.stocks.find((s) => s.symbol === c.company.symbol)!.id;
      const list: BarRow[] = [];
      market.emitBars(id, (b) => list.push(b));
      return [id, list] as const;
    }),
  );
  const dataset = new EquitiesDataset(snapshotOf(market, bars));
  expect(dataset.lastDay).toBe(day(END));
  const financials = memoryFinancials(market);
  const data = corporateData(await generateCorporate(market, async () => new Map()), financials);
  const deps = { dataset: () => dataset, bars: memorySource(bars), clock: clockAt(END) };
  const corporate = corporateRpcs({ ...deps, data: () => data });
  const statements = financialsRpcs({ ...deps, data: () => financials });
  companies = await Promise.all(
    cals.map(async (cal) => {
      const symbol = cal.company.symbol;
      const doc = readDocument(await statements.getFinancials({ symbol }, ctx)).data;
      return {
        symbol,
        listed: readDocument(await corporate.getStockEvents({ symbol, type: 'filings', limit: 50 }, ctx))
          .data,
        quarterly: doc.quarterly.availability,
        annual: doc.profit_loss.availability,
        documents: companyFilings(cal, DEFAULT_SEED, { concalls: 1, annualReport: true, offerDocs: false }),
      };
    }),
  );
}, 120_000);

/** The entry of the equities list of `type` whose title names the period ending `periodEnd`. */
const entry = (c: Company, type: string, periodEnd: string) =>
  c.listed.filter((f) => f.type === type && f.title.includes(`ended ${periodEnd}`));

describe(`the generated filings of the default market on ${END}`, () => {
  it("are of the largest filing companies (the issue's ARAVALIHOU among them), each with Q2 FY2027 reported", () => {
    expect(companies.map((c) => c.symbol)).toContain('ARAVALIHOU');
    for (const c of companies) expect(c.quarterly.at(-1)!.period, c.symbol).toBe('Q2 FY2027');
  });

  it("date the latest quarter's results, presentation and call on the financials' available_from, in both services", () => {
    for (const c of companies) {
      const q = c.quarterly.at(-1)!;
      // The equities list: results, presentation and the call's transcript all on the results day.
      for (const type of ['results', 'presentation', 'concall_transcript'])
        expect(
          entry(c, type, q.period_end).map((f) => f.date),
          `${c.symbol} ${type} ${q.period}`,
        ).toEqual([q.available_from]);
      // The filings reader: its latest concall transcript and presentation are of that quarter, that day.
      const period = filingPeriod(q.period);
      for (const docType of ['concall', 'presentation'] as const)
        expect(
          c.documents.find((d) => d.docType === docType),
          `${c.symbol} ${docType}`,
        ).toMatchObject({ period, date: q.available_from });
      // And the equities list has no later quarter's results than the financials serve.
      expect(c.listed.find((f) => f.type === 'results')!.title, c.symbol).toContain(`ended ${q.period_end}`);
    }
  });

  it('date the annual report of the latest fiscal year on the day its audited results were filed, in both services', () => {
    for (const c of companies) {
      const y = c.annual.at(-1)!;
      expect(y.period).toBe(periodLabel('profit_loss', day('2026-03-31')));
      // The equities list: the fourth quarter's results with the year's, and the annual report, that day.
      expect(
        entry(c, 'results', y.period_end).map((f) => [f.date, f.title]),
        c.symbol,
      ).toEqual([[y.available_from, `Financial results for the quarter and year ended ${y.period_end}`]]);
      expect(
        entry(c, 'annual_report', y.period_end).map((f) => f.date),
        c.symbol,
      ).toEqual([y.available_from]);
      // The filings reader: the annual report of the same year, the same day.
      expect(
        c.documents.find((d) => d.docType === 'annual_report'),
        c.symbol,
      ).toMatchObject({ period: filingPeriod(y.period), date: y.available_from });
    }
  });
});
