import type { DocType } from '@mdp/market/vocabulary';
import { type Digest, extractiveDigest } from '../digest/digest.ts';
import type { Company } from './companies.ts';
import { type GeneratedDocument, generateDocument } from './documents.ts';
import { renderPdf } from './pdf.ts';

/** One filing of the default dataset, before its text is generated: what a worker is sent. */
export interface FilingSpec {
  company: Company;
  docType: DocType;
  period: string;
  date: string;
  seed: string;
}

/** A filing ready to store: its page texts, its PDF and its extractive digest. */
export interface PreparedFiling extends GeneratedDocument {
  pdf: Uint8Array;
  digest: Digest;
}

/** The CPU work of one filing (text, PDF, digest), done before the store is involved. */
export async function prepareFiling(spec: FilingSpec): Promise<PreparedFiling> {
  const d = generateDocument(spec.company, spec.docType, spec.period, spec.date, { seed: spec.seed });
  const pdf = await renderPdf(d.pages, { title: d.title, date: d.date });
  return { ...d, pdf, digest: extractiveDigest(d.pages) };
}
