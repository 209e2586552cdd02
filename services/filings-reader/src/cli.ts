import { readFile, writeFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { isEntryPoint, runServiceCli } from '@mdp/runtime';
import { generateCompanies } from './generate/companies.ts';
import { DEFAULT_SEED, loadDataset } from './generate/dataset.ts';
import { generateDocument } from './generate/documents.ts';
import { renderPdf } from './generate/pdf.ts';
import { DocumentRejected } from './ingest/pdf-text.ts';
import { DOC_TYPES, type DocType, FilingsStore } from './store.ts';

export const USAGE = `filings-reader CLI
  ingest <SYMBOL> <doc_type> <period> <YYYY-MM-DD> <file.pdf|file.md> [--title T]
      doc_type: ${DOC_TYPES.join(' | ')}; prints the doc_id (the same id again for the same file)
  generate <out.pdf> [--type concall] [--pages N] [--company-index I]
      writes one generated filing PDF (deterministic)
  load-default [--if-empty] [--companies 300] [--seed filings-default]
      generates and ingests the default dataset: filings of the 300 largest listed companies of the generated
      market (the equities default dataset), about 1,250 documents and 25,000 pages; --seed varies the text;
      --if-empty skips when that dataset was completely loaded before, and otherwise resumes (ingest is idempotent)
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

/** Runs one command against a store; returns what to print. Throws with a message for the operator. */
export async function run(
  store: FilingsStore,
  argv: string[],
  log: (msg: string) => void = () => {},
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
      const company = generateCompanies(index + 1)[index];
      if (!company) throw new Error('bad --company-index');
      const d = generateDocument(company, type, type === 'annual_report' ? 'FY25' : 'Q2FY26', '2025-11-05', {
        pages: pages ? Number(pages) : undefined,
      });
      await writeFile(out, await renderPdf(d.pages, { title: d.title, date: d.date }));
      return `${out}: ${d.symbol} ${d.docType} ${d.period}, ${d.pages.length} pages`;
    }
    case 'load-default': {
      const companies = Number(flag(rest, '--companies') ?? 300);
      const seed = flag(rest, '--seed') ?? DEFAULT_SEED;
      if (!Number.isInteger(companies) || companies < 1 || companies > 5_000)
        throw new Error('--companies must be 1..5000');
      if (rest.includes('--if-empty') && (await store.datasetLoaded(seed, companies)))
        return 'dataset present; nothing loaded';
      const t0 = Date.now();
      const r = await loadDataset(store, { companies, seed }, (n, p) => log(`${n} documents, ${p} pages`));
      await store.recordDatasetLoad(seed, companies, r.documents, r.pages);
      return `loaded ${r.created} new of ${r.documents} documents (${r.pages} pages) in ${((Date.now() - t0) / 1000).toFixed(1)} s`;
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
