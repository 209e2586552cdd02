import { Rng } from '@mdp/market';
import type { FilingsStore } from '../store.ts';
import { type Company, generateCompanies } from './companies.ts';
import { DEFAULT_SEED, type GeneratedDocument, generateDocument, quarters } from './documents.ts';

export { DEFAULT_SEED };

import { renderPdf } from './pdf.ts';

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

/** The default dataset's documents, in a fixed order; lazily, so memory stays flat however large it is. */
export function* datasetDocuments(opts: DatasetOptions): Generator<GeneratedDocument> {
  const seed = opts.seed ?? DEFAULT_SEED;
  const companies: Company[] = generateCompanies(opts.companies);
  const concalls = opts.concalls ?? 3;
  const arEvery = opts.annualReportEvery ?? 10;
  const offerEvery = opts.offerDocEvery ?? 25;
  for (const [i, c] of companies.entries()) {
    const rng = Rng.named(seed, `${c.symbol}:dates`);
    const qs = quarters(Math.max(concalls, 1), rng);
    for (const q of qs.slice(0, concalls)) yield generateDocument(c, 'concall', q.period, q.date, { seed });
    const latest = qs[0];
    if (latest) yield generateDocument(c, 'presentation', latest.period, latest.date, { seed });
    if (i % arEvery === 0)
      yield generateDocument(
        c,
        'annual_report',
        'FY25',
        `2025-0${rng.int(6, 8)}-${String(rng.int(10, 28))}`,
        {
          seed,
        },
      );
    if (i % offerEvery === 1) {
      yield generateDocument(
        c,
        'drhp',
        'IPO',
        `2024-${String(rng.int(1, 9)).padStart(2, '0')}-${String(rng.int(10, 28))}`,
        { seed },
      );
      yield generateDocument(c, 'rhp', 'IPO', `2024-${String(rng.int(10, 12))}-${String(rng.int(10, 28))}`, {
        seed,
      });
    }
  }
}

/** Renders each generated document to PDF and ingests it with its known page texts. */
export async function loadDataset(
  store: FilingsStore,
  opts: DatasetOptions,
  progress?: (done: number, pages: number) => void,
): Promise<{ documents: number; pages: number; created: number }> {
  let documents = 0;
  let pages = 0;
  let created = 0;
  // Rendering is CPU work here while the INSERT is Postgres' work: keep a few inserts in flight meanwhile.
  const inFlight = new Set<Promise<void>>();
  let failure: unknown;
  for (const d of datasetDocuments(opts)) {
    if (failure) break;
    const pdf = await renderPdf(d.pages, { title: d.title, date: d.date });
    const p: Promise<void> = store
      .ingest({
        symbol: d.symbol,
        docType: d.docType,
        period: d.period,
        date: d.date,
        title: d.title,
        content: { pdf, pages: d.pages },
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
