import { Rng } from '@mdp/market';
import { type DayNumber, formatDay } from '@mdp/nse-calendar';
import type { FilingsStore } from '../store.ts';
import { type CompanyCalendar, companyCalendars, defaultMarket } from './companies.ts';
import { DEFAULT_SEED } from './documents.ts';
import type { FilingSpec } from './filing.ts';
import { preparedInOrder } from './filing-pool.ts';

export { DEFAULT_SEED };

/** Datasets of at least this many companies are prepared on worker threads. */
const ON_WORKERS_FROM = 50;

export interface DatasetOptions {
  companies: number;
  seed?: string;
  /**
   * "Today": the last day of the generated market the filings are dated by (every filing is on or
   * before it). Default: the last completed session of the real clock, as the equities service's.
   */
  endDay?: DayNumber;
  /** Concall transcripts per company (latest quarters first). */
  concalls?: number;
  /** One company in `annualReportEvery` gets a 150+ page annual report. */
  annualReportEvery?: number;
  /** One company in `offerDocEvery` gets a DRHP and an RHP. */
  offerDocEvery?: number;
}

/**
 * A company's filings, dated by what it has reported by the market's end day: a concall transcript for
 * each of its latest `concalls` quarters with results out, held on the day the results were filed (the
 * financials' `available_from`), an investor presentation of the latest of them the same day, the
 * annual report of the latest fiscal year whose audited results are out, dated the day they were filed,
 * and the DRHP and RHP that preceded its listing. Nothing is dated after the end day or, but for the
 * offer documents, before the listing.
 */
export function companyFilings(
  cal: CompanyCalendar,
  seed: string,
  want: { concalls: number; annualReport: boolean; offerDocs: boolean },
): FilingSpec[] {
  const { company } = cal;
  const spec = (docType: FilingSpec['docType'], period: string, date: DayNumber): FilingSpec => ({
    company,
    docType,
    period,
    date: formatDay(date),
    seed,
  });
  const out = cal.quarters.slice(0, want.concalls).map((q) => spec('concall', q.period, q.filed));
  const latest = cal.quarters[0];
  if (latest) out.push(spec('presentation', latest.period, latest.filed));
  if (want.annualReport && cal.year) out.push(spec('annual_report', cal.year.period, cal.year.filed));
  if (want.offerDocs && cal.listedOn !== null) {
    // The RHP a week or three before listing, the DRHP some months before that.
    const rng = Rng.named(seed, `${company.symbol}:dates`);
    const rhp = cal.listedOn - rng.int(7, 21);
    out.push(spec('drhp', 'IPO', rhp - rng.int(90, 270)), spec('rhp', 'IPO', rhp));
  }
  return out;
}

/** The default dataset's filings, in a fixed order; lazily, so memory stays flat however large it is. */
export function* datasetFilings(opts: DatasetOptions): Generator<FilingSpec> {
  const seed = opts.seed ?? DEFAULT_SEED;
  const concalls = opts.concalls ?? 3;
  const arEvery = opts.annualReportEvery ?? 10;
  const offerEvery = opts.offerDocEvery ?? 25;
  for (const [i, cal] of companyCalendars(opts.companies, defaultMarket(opts.endDay)).entries())
    yield* companyFilings(cal, seed, {
      concalls,
      annualReport: i % arEvery === 0,
      offerDocs: i % offerEvery === 1,
    });
}

/**
 * Generates, renders and digests each filing on worker threads (filing-pool.ts) and ingests it with its
 * known page texts and digest, in the dataset's order.
 */
export async function loadDataset(
  store: FilingsStore,
  opts: DatasetOptions,
  progress?: (done: number, pages: number) => void,
): Promise<{ documents: number; pages: number; created: number }> {
  let documents = 0;
  let pages = 0;
  let created = 0;
  // Preparing is the workers' CPU work while the INSERT is Postgres' work: keep a few inserts in flight.
  const inFlight = new Set<Promise<void>>();
  let failure: unknown;
  // A worker's start (tsx compiling the generator) costs more than a few companies' filings take.
  const threads = opts.companies < ON_WORKERS_FROM ? 0 : undefined;
  for await (const d of preparedInOrder(datasetFilings(opts), threads)) {
    if (failure) break;
    const p: Promise<void> = store
      .ingest({
        symbol: d.symbol,
        docType: d.docType,
        period: d.period,
        date: d.date,
        title: d.title,
        content: { pdf: d.pdf, pages: d.pages, digest: d.digest },
      })
      .then((r) => {
        documents++;
        pages += d.pages.length;
        if (r.created) created++;
        if (documents % 100 === 0) progress?.(documents, pages);
      })
      .catch((err: unknown) => {
        failure ??= err;
      })
      .finally(() => inFlight.delete(p));
    inFlight.add(p);
    if (inFlight.size >= 4) await Promise.race(inFlight);
  }
  await Promise.all(inFlight);
  // Each document is one INSERT, so what was loaded before a failure is whole; a rerun skips it by hash.
  if (failure) throw failure;
  return { documents, pages, created };
}
