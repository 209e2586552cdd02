import { createHash } from 'node:crypto';
import type { Pool } from '@mdp/db';
import { DOC_TYPES, type DocType } from '@mdp/market/vocabulary';
import { type Digest, type Digester, extractiveDigester } from './digest/digest.ts';
import { layoutMarkdown, splitMarkdownPages } from './ingest/pages.ts';
import { DocumentRejected, extractPdfPages } from './ingest/pdf-text.ts';

export interface DocumentMeta {
  doc_id: number;
  symbol: string;
  doc_type: DocType;
  period: string;
  date: string;
  title: string;
  page_count: number;
  source_format: 'pdf' | 'markdown';
}

export interface IngestInput {
  symbol: string;
  docType: string;
  period: string;
  /** YYYY-MM-DD */
  date: string;
  title?: string;
  /** The PDF itself, or Markdown already extracted (with `### Page N` or `<!-- page N -->` page breaks). */
  content:
    | {
        pdf: Uint8Array /** Page texts already known (the generator's), so extraction is skipped. */;
        pages?: string[];
        /** Their digest, already made (on a worker thread); used when made by this store's digester. */
        digest?: Digest;
      }
    | { markdown: string };
}

export interface IngestResult {
  docId: number;
  created: boolean;
  pageCount: number;
}

/** The page window a read returns, after the 12-page and character caps. */
export interface PageWindow {
  first: number;
  last: number;
  text: string;
  /** The one page returned was longer than the character cap and was cut inside. */
  pageCut: boolean;
  /** Characters of the window before any cut. */
  fullChars: number;
}

export const MAX_PAGES_PER_READ = 12;

const SYMBOL = /^[A-Z0-9][A-Z0-9&._-]{0,63}$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

function validate(input: IngestInput): void {
  if (!SYMBOL.test(input.symbol)) throw new DocumentRejected('invalid', `invalid symbol "${input.symbol}"`);
  if (!(DOC_TYPES as readonly string[]).includes(input.docType))
    throw new DocumentRejected('invalid', `doc type must be one of ${DOC_TYPES.join(', ')}`);
  if (!input.period || input.period.length > 32)
    throw new DocumentRejected('invalid', 'period must be 1..32 characters');
  if (!DATE.test(input.date) || Number.isNaN(Date.parse(`${input.date}T00:00:00Z`)))
    throw new DocumentRejected('invalid', `date must be YYYY-MM-DD, got "${input.date}"`);
}

const META_COLUMNS = `doc_id, symbol, doc_type, period, to_char(doc_date, 'YYYY-MM-DD') AS date, title, page_count, source_format`;

/** Every row that matched, counted before the LIMIT (a window over the whole result). */
const TOTAL = 'count(*) OVER () AS total';
interface Counted {
  total: string;
}

/** The rows a list route answers with, and how many matched in all (SPEC 1: a list says when it has more). */
export interface Listed<T> {
  rows: T[];
  total: number;
}

function listed<T>(rows: (T & Counted)[]): Listed<T> {
  const total = rows.length > 0 ? Number(rows[0]!.total) : 0;
  return { rows: rows.map(({ total: _, ...row }) => row as unknown as T), total };
}

export class FilingsStore {
  constructor(
    private readonly pool: Pool,
    private readonly digester: Digester = extractiveDigester,
  ) {}

  /** Moves with every change to the documents, whoever makes it (migration 0002); one row to read. */
  async version(): Promise<string> {
    const { rows } = await this.pool.query<{ version: string }>('SELECT version FROM documents_version');
    return rows[0]?.version ?? '';
  }

  /**
   * Extracts, digests and stores a filing in one transaction-free statement: everything is computed
   * before the single INSERT, so a rejected or failed document leaves nothing behind. The same bytes
   * ingested twice give the same doc_id.
   */
  async ingest(input: IngestInput): Promise<IngestResult> {
    validate(input);
    const bytes =
      'pdf' in input.content ? Buffer.from(input.content.pdf) : Buffer.from(input.content.markdown, 'utf8');
    const sha = createHash('sha256').update(bytes).digest();
    const existing = await this.pool.query<{ doc_id: number; page_count: number }>(
      'SELECT doc_id, page_count FROM documents WHERE content_sha256 = $1',
      [sha],
    );
    if (existing.rows[0])
      return { docId: existing.rows[0].doc_id, created: false, pageCount: existing.rows[0].page_count };
    const pages =
      'pdf' in input.content
        ? (input.content.pages ?? (await extractPdfPages(bytes)))
        : splitMarkdownPages(input.content.markdown);
    const { markdown, offsets } = layoutMarkdown(pages);
    const known = 'pdf' in input.content ? input.content.digest : undefined;
    const digest = known?.method === this.digester.name ? known : await this.digester.digest(pages);
    const { rows } = await this.pool.query<{ doc_id: number }>(
      `INSERT INTO documents (symbol, doc_type, period, doc_date, title, page_count, source_format, content_sha256,
                              page_offsets, markdown, pdf, digest)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
       ON CONFLICT (content_sha256) DO NOTHING
       RETURNING doc_id`,
      [
        input.symbol,
        input.docType,
        input.period,
        input.date,
        input.title ?? '',
        pages.length,
        'pdf' in input.content ? 'pdf' : 'markdown',
        sha,
        offsets,
        markdown,
        'pdf' in input.content ? bytes : null,
        JSON.stringify(digest),
      ],
    );
    if (rows[0]) return { docId: rows[0].doc_id, created: true, pageCount: pages.length };
    // A concurrent ingest of the same bytes won the race.
    const again = await this.pool.query<{ doc_id: number }>(
      'SELECT doc_id FROM documents WHERE content_sha256 = $1',
      [sha],
    );
    return { docId: again.rows[0]?.doc_id as number, created: false, pageCount: pages.length };
  }

  async hasSymbol(symbol: string): Promise<boolean> {
    const { rowCount } = await this.pool.query('SELECT 1 FROM documents WHERE symbol = $1 LIMIT 1', [symbol]);
    return (rowCount ?? 0) > 0;
  }

  async count(): Promise<number> {
    const { rows } = await this.pool.query<{ n: string }>('SELECT count(*) AS n FROM documents');
    return Number(rows[0]?.n ?? 0);
  }

  async datasetLoaded(seed: string, companies: number): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      'SELECT 1 FROM dataset_loads WHERE seed = $1 AND companies = $2',
      [seed, companies],
    );
    return (rowCount ?? 0) > 0;
  }

  async recordDatasetLoad(seed: string, companies: number, documents: number, pages: number): Promise<void> {
    await this.pool.query(
      `INSERT INTO dataset_loads (seed, companies, documents, pages) VALUES ($1, $2, $3, $4)
       ON CONFLICT (seed, companies) DO UPDATE SET documents = $3, pages = $4, loaded_at = now()`,
      [seed, companies, documents, pages],
    );
  }

  /** The newest `limit` documents that match, and how many match in all. */
  async list(
    symbol: string,
    opts: { docTypes: string[]; since?: string; limit: number },
  ): Promise<Listed<DocumentMeta>> {
    const { rows } = await this.pool.query<DocumentMeta & Counted>(
      `SELECT ${META_COLUMNS}, ${TOTAL} FROM documents
        WHERE symbol = $1 AND (cardinality($2::text[]) = 0 OR doc_type = ANY($2)) AND ($3::date IS NULL OR doc_date >= $3)
        ORDER BY doc_date DESC, doc_id DESC LIMIT $4`,
      [symbol, opts.docTypes, opts.since ?? null, opts.limit],
    );
    return listed(rows);
  }

  /** A document by id, only when it belongs to `symbol` (when given). */
  async meta(docId: number, symbol?: string): Promise<DocumentMeta | undefined> {
    const { rows } = await this.pool.query<DocumentMeta>(
      `SELECT ${META_COLUMNS} FROM documents WHERE doc_id = $1 AND ($2::text IS NULL OR symbol = $2)`,
      [docId, symbol ?? null],
    );
    return rows[0];
  }

  async newest(symbol: string, docType: string): Promise<DocumentMeta | undefined> {
    const { rows } = await this.pool.query<DocumentMeta>(
      `SELECT ${META_COLUMNS} FROM documents WHERE symbol = $1 AND doc_type = $2 ORDER BY doc_date DESC, doc_id DESC LIMIT 1`,
      [symbol, docType],
    );
    return rows[0];
  }

  /**
   * Pages first..last (already within the document), at most `MAX_PAGES_PER_READ` pages and `maxChars`
   * characters, cut at a page boundary; only a single page longer than the cap is cut inside.
   * Reads the offsets, then one substr() of exactly the window.
   */
  async readPages(docId: number, first: number, last: number, maxChars: number): Promise<PageWindow> {
    const off = await this.pool.query<{ offs: number[] }>(
      'SELECT page_offsets[$2:$3] AS offs FROM documents WHERE doc_id = $1',
      [docId, first, Math.min(last, first + MAX_PAGES_PER_READ - 1) + 1],
    );
    const offs = off.rows[0]?.offs;
    if (!offs || offs.length < 2) throw new Error(`document ${docId} has no pages ${first}..${last}`);
    const start = offs[0] as number;
    let end = start;
    let lastPage = first - 1;
    for (let i = 1; i < offs.length; i++) {
      const pageEnd = offs[i] as number;
      if (pageEnd - start > maxChars && lastPage >= first) break;
      end = pageEnd;
      lastPage = first + i - 1;
    }
    const fullChars = end - start;
    const pageCut = fullChars > maxChars;
    if (pageCut) end = start + maxChars;
    const { rows } = await this.pool.query<{ text: string }>(
      'SELECT substr(markdown, $2, $3) AS text FROM documents WHERE doc_id = $1',
      [docId, start + 1, end - start],
    );
    return { first, last: lastPage, text: rows[0]?.text ?? '', pageCut, fullChars };
  }

  async digest(docId: number): Promise<Digest | undefined> {
    const { rows } = await this.pool.query<{ digest: Digest }>(
      'SELECT digest FROM documents WHERE doc_id = $1',
      [docId],
    );
    return rows[0]?.digest;
  }

  /** The newest `limit` documents of a type with their digests, and how many there are in all. */
  async latestDigests(
    symbol: string,
    docType: DocType,
    limit: number,
  ): Promise<Listed<DocumentMeta & { digest: Digest }>> {
    const { rows } = await this.pool.query<DocumentMeta & { digest: Digest } & Counted>(
      `SELECT ${META_COLUMNS}, digest, ${TOTAL} FROM documents WHERE symbol = $1 AND doc_type = $2
        ORDER BY doc_date DESC, doc_id DESC LIMIT $3`,
      [symbol, docType, limit],
    );
    return listed(rows);
  }

  async pdf(docId: number): Promise<Buffer | undefined> {
    const { rows } = await this.pool.query<{ pdf: Buffer | null }>(
      'SELECT pdf FROM documents WHERE doc_id = $1',
      [docId],
    );
    return rows[0]?.pdf ?? undefined;
  }

  async markdown(docId: number): Promise<string | undefined> {
    const { rows } = await this.pool.query<{ markdown: string }>(
      'SELECT markdown FROM documents WHERE doc_id = $1',
      [docId],
    );
    return rows[0]?.markdown;
  }
}
