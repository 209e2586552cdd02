import { readFile, writeFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { DOC_TYPES, type DocType } from '@mdp/market/vocabulary';
import { type DayNumber, formatDay, lastCompletedSession, parseDay } from '@mdp/nse-calendar';
import { isEntryPoint, runServiceCli } from '@mdp/runtime';
import { companyCalendars, defaultMarket } from './generate/companies.ts';
import { companyFilings, DEFAULT_SEED, loadDataset } from './generate/dataset.ts';
import { generateDocument } from './generate/documents.ts';
import { renderPdf } from './generate/pdf.ts';
import { DocumentRejected } from './ingest/pdf-text.ts';
import { FilingsStore } from './store.ts';

export const USAGE = `filings-reader CLI
  ingest <SYMBOL> <doc_type> <period> <YYYY-MM-DD> <file.pdf|file.md> [--title T]
      doc_type: ${DOC_TYPES.join(' | ')}; prints the doc_id (the same id again for the same file)
  generate <out.pdf> [--type concall] [--pages N] [--company-index I] [--end YYYY-MM-DD]
      writes one generated filing PDF (deterministic), of the company's latest period of that type
  load-default [--if-empty] [--companies 300] [--seed filings-default] [--end YYYY-MM-DD]
      generates and ingests the default dataset: filings of the 300 largest listed companies of the generated
      market (the equities default dataset), about 1,250 documents and 25,000 pages; --seed varies the text;
      --if-empty skips when that dataset was completely loaded before, and otherwise resumes (ingest is idempotent)
  --end is the market's last day ("today", as equities-data's --end): filings are of the periods reported
      by then, dated on or before it; default the last completed session
env: DATABASE_URL, DB_SCHEMA (default filings)`;

function flag(argv: string[], name: string): string | undefined {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
}

function positional(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === '--if-empty') continue;
    if (a.startsWith('--')) {
      i++;
      continue;
    }
    out.push(a);
  }
  return out;
}

/** The market's end day the filings are dated by: `--end`, else the last completed session at `now`. */
function endDay(argv: string[], now: () => number): DayNumber {
  const end = flag(argv, '--end');
  if (end === undefined) return lastCompletedSession(now());
  const d = parseDay(end);
  if (d === undefined) throw new Error(`--end must be a date YYYY-MM-DD, not "${end}"`);
  return d;
}

/**
 * Runs one command against a store; returns what to print. Throws with a message for the operator.
 * `now` is the clock whose last completed session dates the generated filings (tests pin it).
 */
export async function run(
  store: FilingsStore,
  argv: string[],
  log: (msg: string) => void = () => {},
  now: () => number = Date.now,
): Promise<string> {
  const [cmd, ...rest] = argv;
  const args = positional(rest);
  switch (cmd) {
    case 'ingest': {
      const [symbol, docType, period, date, file] = args;
      if (!symbol || !docType || !period || !date || !file) throw new Error(`usage:\n${USAGE}`);
      const bytes = await readFile(file);
      const isMd = ['.md', '.markdown', '.txt'].includes(extname(file).toLowerCase());
      const r = await store.ingest({
        symbol,
        docType,
        period,
        date,
        title: flag(rest, '--title'),
        content: isMd ? { markdown: bytes.toString('utf8') } : { pdf: bytes },
      });
      return `${r.docId}${r.created ? '' : ' (already ingested)'} pages=${r.pageCount}`;
    }
    case 'generate': {
      const [out] = args;
      if (!out) throw new Error(`usage:\n${USAGE}`);
      const type = (flag(rest, '--type') ?? 'concall') as DocType;
      if (!DOC_TYPES.includes(type)) throw new Error(`--type must be one of ${DOC_TYPES.join(', ')}`);
      const pages = flag(rest, '--pages');
      const index = Number(flag(rest, '--company-index') ?? 0);
      if (!Number.isInteger(index) || index < 0) throw new Error('bad --company-index');
      const end = endDay(rest, now);
      const cal = companyCalendars(index + 1, defaultMarket(end))[index];
      if (!cal) throw new Error('bad --company-index');
      const spec = companyFilings(cal, DEFAULT_SEED, {
        concalls: 1,
        annualReport: true,
        offerDocs: true,
      }).find((f) => f.docType === type);
      if (!spec) throw new Error(`${cal.company.symbol} has no ${type} filed by ${formatDay(cal.endDay)}`);
      const d = generateDocument(spec.company, type, spec.period, spec.date, {
        pages: pages ? Number(pages) : undefined,
      });
      await writeFile(out, await renderPdf(d.pages, { title: d.title, date: d.date }));
      return `${out}: ${d.symbol} ${d.docType} ${d.period} ${d.date}, ${d.pages.length} pages`;
    }
    case 'load-default': {
      const companies = Number(flag(rest, '--companies') ?? 300);
      const seed = flag(rest, '--seed') ?? DEFAULT_SEED;
      if (!Number.isInteger(companies) || companies < 1 || companies > 5_000)
        throw new Error('--companies must be 1..5000');
      const end = endDay(rest, now);
      if (rest.includes('--if-empty') && (await store.datasetLoaded(seed, companies)))
        return 'dataset present; nothing loaded';
      const t0 = Date.now();
      const r = await loadDataset(store, { companies, seed, endDay: end }, (n, p) =>
        log(`${n} documents, ${p} pages`),
      );
      await store.recordDatasetLoad(seed, companies, r.documents, r.pages);
      return `loaded ${r.created} new of ${r.documents} documents (${r.pages} pages) in ${((Date.now() - t0) / 1000).toFixed(1)} s (last session ${formatDay(defaultMarket(end).options.endDay)})`;
    }
    default:
      throw new Error(USAGE);
  }
}

if (isEntryPoint(import.meta.url)) {
  await runServiceCli({
    name: 'filings-cli',
    usage: USAGE,
    defaultSchema: 'filings',
    migrationsDir: new URL('../migrations/', import.meta.url),
    withoutDatabase: (argv) => argv[0] === 'generate',
    refusal: (err) =>
      err instanceof DocumentRejected ? `rejected (${err.reason}): ${err.message}` : undefined,
    run: ({ argv, pool, progress }) => run(new FilingsStore(pool), argv, progress),
  });
}
