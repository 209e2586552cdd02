import { DOC_TYPES, type DocType } from '@mdp/market/vocabulary';
import type { Pool } from 'pg';
import { FilingsStore, type IngestInput } from '../store.ts';
import { DocumentRejected, extractPdfPages } from './pdf-text.ts';

/**
 * Filings in a folder of exchange files. An exchange's attachment names say nothing usable, so a
 * filing is recognised by the name the operator gives it: `<SYMBOL>_<doc_type>_<period>_<YYYY-MM-DD>`
 * with `.pdf` or `.md`, e.g. `APOLLOHOSP_concall_Q3FY25_2025-02-13.pdf`.
 */
const NAME = new RegExp(
  `^([A-Z0-9&-]{1,20})_(${DOC_TYPES.join('|')})_([A-Za-z0-9-]{1,32})_(\\d{4}-\\d{2}-\\d{2})\\.(pdf|md)$`,
);

export const FILING_NAME_PATTERN = '<SYMBOL>_<doc_type>_<period>_<YYYY-MM-DD>.pdf|.md';

export interface FilingName {
  symbol: string;
  docType: DocType;
  period: string;
  date: string;
  format: 'pdf' | 'md';
}

export function recogniseFiling(name: string): FilingName | undefined {
  const m = NAME.exec(name);
  if (!m) return undefined;
  return {
    symbol: m[1]!,
    docType: m[2] as DocType,
    period: m[3]!,
    date: m[4]!,
    format: m[5] as 'pdf' | 'md',
  };
}

/** A document `name` looks like a filing by its extension (so a misnamed one is reported as such). */
export const looksLikeFiling = (name: string) => /\.(pdf|md)$/i.test(name);

export class FilingFileError extends Error {
  constructor(
    readonly file: string,
    detail: string,
  ) {
    super(`${file}:1: ${detail}`);
    this.name = 'FilingFileError';
  }
}

/**
 * Ingests recognised filings, all or nothing for a bad file: every PDF's text is extracted (and every
 * name checked) before the first is stored, so an unreadable one stops the lot with its name. Content
 * already stored is found by hash and counts as unchanged.
 */
export async function ingestFolderFilings(
  pool: Pool,
  files: readonly { path: string; name: string; bytes: Uint8Array }[],
  progress: (done: number) => void = () => {},
): Promise<{ created: number; unchanged: number; pages: number }> {
  const inputs: IngestInput[] = [];
  for (const f of files) {
    const meta = recogniseFiling(f.name);
    if (!meta) throw new FilingFileError(f.path, `the name is not ${FILING_NAME_PATTERN}`);
    const base = { symbol: meta.symbol, docType: meta.docType, period: meta.period, date: meta.date };
    if (meta.format === 'md') {
      inputs.push({ ...base, content: { markdown: Buffer.from(f.bytes).toString('utf8') } });
      continue;
    }
    try {
      inputs.push({ ...base, content: { pdf: f.bytes, pages: await extractPdfPages(f.bytes) } });
    } catch (err) {
      const why =
        err instanceof DocumentRejected ? err.message : `not a readable PDF (${(err as Error).message})`;
      throw new FilingFileError(f.path, why);
    }
  }
  const store = new FilingsStore(pool);
  let created = 0;
  let pages = 0;
  for (const [i, input] of inputs.entries()) {
    const r = await store.ingest(input);
    if (r.created) created++;
    pages += r.pageCount;
    progress(i + 1);
  }
  return { created, unchanged: inputs.length - created, pages };
}
