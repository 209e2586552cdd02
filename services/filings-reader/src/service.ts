import { jsonDocument, RpcError } from '@mdp/grpc';
import { DOC_TYPES, type DocType } from '@mdp/market/vocabulary';
import type { filings } from '@mdp/proto';
import type { FilingsReaderImpl } from './app.ts';
import type { LinkSigner } from './links.ts';
import { type DocumentMeta, type FilingsStore, MAX_PAGES_PER_READ } from './store.ts';

const DEFAULT_MAX_CHARS = 24_000;
const MIN_MAX_CHARS = 2_000;
const MAX_MAX_CHARS = 60_000;

/** Symbols are stored upper-case (NSE style); the gateway accepts either case. */
const sym = (s: string) => s.toUpperCase();

/** A list's `meta`: what it holds, the limit asked for, and how many match in all (`has_more` when it is cut). */
const listMeta = (symbol: string, count: number, limit: number, total: number) => ({
  symbol,
  count,
  limit,
  total,
  has_more: total > count,
});

const pagesLabel = (first: number, last: number) => (first === last ? `${first}` : `${first}-${last}`);

/**
 * The four RPCs over the store. The gateway has validated parameters; bounds are re-checked, not trusted.
 * The lists (the filing index, earnings calls) answer an empty list for a symbol with nothing filed: this
 * service holds filings, not the list of stocks (equities-data owns that), so whether the symbol names a
 * stock at all (404 otherwise) is asked of equities-data by the gateway.
 */
export function filingsImpl(deps: { store: FilingsStore; signer: LinkSigner }): FilingsReaderImpl {
  const { store, signer } = deps;
  const links = (d: DocumentMeta) => signer.links(d.doc_id, d.source_format === 'pdf');
  const entry = (d: DocumentMeta) => ({
    doc_id: d.doc_id,
    doc_type: d.doc_type,
    period: d.period,
    date: d.date,
    title: d.title,
    page_count: d.page_count,
    availability: { pdf: d.source_format === 'pdf', markdown: true, summary: true },
    links: links(d),
  });
  const docOf = async (symbol: string, docId: number) => {
    // Another company's doc_id is reported exactly as an unknown one: ids leak nothing across symbols.
    const meta = await store.meta(docId, symbol);
    if (!meta) throw RpcError.notFound(`no document ${docId} for ${symbol}`);
    return meta;
  };

  return {
    async listDocuments(req: filings.ListDocumentsRequest) {
      const docTypes = req.doc_types.filter((t) => (DOC_TYPES as readonly string[]).includes(t));
      const limit = Math.min(50, Math.max(1, req.limit || 20));
      const { rows: docs, total } = await store.list(sym(req.symbol), { docTypes, since: req.since, limit });
      return jsonDocument(docs.map(entry), listMeta(sym(req.symbol), docs.length, limit, total));
    },

    async readDocument(req: filings.ReadDocumentRequest) {
      const meta = await docOf(sym(req.symbol), req.doc_id);
      const first = req.pages?.first ?? 1;
      const asked = req.pages?.last;
      if (first < 1 || first > meta.page_count)
        throw RpcError.invalidArgument(
          'pages',
          `page ${first} is beyond the document, which has ${meta.page_count} pages`,
        );
      if (asked !== undefined && asked < first)
        throw RpcError.invalidArgument('pages', 'the last page of the range is before the first');
      const maxChars = Math.min(MAX_MAX_CHARS, Math.max(MIN_MAX_CHARS, req.max_chars || DEFAULT_MAX_CHARS));
      // The end of the range is clamped to the document (the default `1-12` must work on short filings).
      const last = Math.min(asked ?? meta.page_count, meta.page_count, first + MAX_PAGES_PER_READ - 1);
      const w = await store.readPages(meta.doc_id, first, last, maxChars);
      const next =
        w.last < meta.page_count
          ? pagesLabel(w.last + 1, Math.min(meta.page_count, w.last + MAX_PAGES_PER_READ))
          : null;
      return jsonDocument(
        {
          doc_id: meta.doc_id,
          doc_type: meta.doc_type,
          period: meta.period,
          date: meta.date,
          page_count: meta.page_count,
          pages_returned: pagesLabel(w.first, w.last),
          // SPEC 2.4: a read states what to ask for next, null at the end.
          next_pages: next,
          chars: w.pageCut ? maxChars : w.fullChars,
          max_chars: maxChars,
          // Only when one page alone exceeds max_chars: its end is missing; ask again with max_chars >= page_chars.
          ...(w.pageCut ? { page_cut: true, page_chars: w.fullChars } : {}),
          text: w.text,
          links: links(meta),
        },
        { symbol: sym(req.symbol), pages_requested: pagesLabel(first, asked ?? meta.page_count) },
      );
    },

    async getDocumentSummary(req: filings.GetDocumentSummaryRequest) {
      let meta: DocumentMeta | undefined;
      if (req.doc_id !== undefined) meta = await docOf(sym(req.symbol), req.doc_id);
      else if (req.doc_type !== undefined) {
        meta = await store.newest(sym(req.symbol), req.doc_type);
        if (!meta) throw RpcError.notFound(`no ${req.doc_type} filing for ${sym(req.symbol)}`);
      } else
        throw RpcError.invalidArgument(
          'doc_id',
          'give `doc_id`, or `doc_type` for the newest filing of that type',
        );
      const digest = await store.digest(meta.doc_id);
      if (!digest) throw RpcError.notFound(`no document ${meta.doc_id}`);
      return jsonDocument(
        {
          ...entry(meta),
          summary: digest.summary,
          truncated: digest.truncated,
          highlights: digest.highlights,
          risks: digest.risks,
          guidance: digest.guidance,
          key_metrics: digest.key_metrics,
          method: digest.method,
        },
        { symbol: sym(req.symbol) },
      );
    },

    async getEarningsCalls(req: filings.GetEarningsCallsRequest) {
      const limit = Math.min(5, Math.max(1, req.limit || 2));
      const { rows: calls, total } = await store.latestDigests(
        sym(req.symbol),
        'concall' satisfies DocType,
        limit,
      );
      return jsonDocument(
        calls.map((c) => ({
          doc_id: c.doc_id,
          date: c.date,
          period: c.period,
          title: c.title,
          summary: c.digest.summary,
          truncated: c.digest.truncated,
          highlights: c.digest.highlights,
          risks: c.digest.risks,
          guidance: c.digest.guidance,
          headline_metrics: c.digest.headline_metrics,
          method: c.digest.method,
          links: links(c),
        })),
        listMeta(sym(req.symbol), calls.length, limit, total),
      );
    },
  };
}
