import { Rng } from '@mdp/market';
import type { FilingsStore } from '../store.ts';
import { type Company, generateCompanies } from './companies.ts';
import { DEFAULT_SEED, quarters } from './documents.ts';
import type { FilingSpec } from './filing.ts';
import { preparedInOrder } from './filing-pool.ts';

export { DEFAULT_SEED };

/** Datasets of at least this many companies are prepared on worker threads. */
const ON_WORKERS_FROM = 50;

export interface DatasetOptions {
  companies: number;
  seed?: string;
  /** Concall transcripts per company (latest quarters first). */
  concalls?: number;
  /** One company in `annualReportEvery` gets a 150+ page annual report. */
  annualReportEvery?: number;
  /** One company in `offerDocEvery` gets a DRHP and an RHP. */
  offerDocEvery?: number;
}

/** The default dataset's filings, in a fixed order; lazily, so memory stays flat however large it is. */
function* datasetFilings(opts: DatasetOptions): Generator<FilingSpec> {
  const seed = opts.seed ?? DEFAULT_SEED;
  const companies: Company[] = generateCompanies(opts.companies);
  const concalls = opts.concalls ?? 3;
  const arEvery = opts.annualReportEvery ?? 10;
  const offerEvery = opts.offerDocEvery ?? 25;
  for (const [i, company] of companies.entries()) {
    const rng = Rng.named(seed, `${company.symbol}:dates`);
    const qs = quarters(Math.max(concalls, 1), rng);
    for (const q of qs.slice(0, concalls))
      yield { company, docType: 'concall', period: q.period, date: q.date, seed };
    const latest = qs[0];
    if (latest) yield { company, docType: 'presentation', period: latest.period, date: latest.date, seed };
    if (i % arEvery === 0)
      yield {
        company,
        docType: 'annual_report',
        period: 'FY25',
        date: `2025-0${rng.int(6, 8)}-${String(rng.int(10, 28))}`,
        seed,
      };
    if (i % offerEvery === 1) {
      yield {
        company,
        docType: 'drhp',
        period: 'IPO',
        date: `2024-${String(rng.int(1, 9)).padStart(2, '0')}-${String(rng.int(10, 28))}`,
        seed,
      };
      yield {
        company,
        docType: 'rhp',
        period: 'IPO',
        date: `2024-${String(rng.int(10, 12))}-${String(rng.int(10, 28))}`,
        seed,
      };
    }
  }
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
