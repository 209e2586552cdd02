import { ApiError } from '@mdp/errors';
import { DOC_TYPES } from '@mdp/market/vocabulary';
import type { common } from '@mdp/proto';
import { Type } from '@sinclair/typebox';
import { csv, date, id, integer, oneOf, pageRange, parsePageRange, symbol } from './params.ts';
import { defineRoute, LIST_RULE, type Upstreams } from './route.ts';

const symbolPath = Type.Object({ symbol: symbol() });

/** Whether the document's data is `[]`, without reading a document of any size. */
const isEmptyList = (doc: common.Document) =>
  doc.data_json.length <= 8 && Buffer.from(doc.data_json).toString('utf8').trim() === '[]';

/**
 * A filings list of a stock. filings-reader holds filings, not the list of stocks: equities-data owns
 * that (no service reads another's tables, and a copy of the stock list in the filings schema could
 * disagree with it). So when filings-reader has nothing for the symbol, equities-data is asked whether
 * the symbol names a stock: no, and its 404 `not_found` is the answer; yes, and the empty list is, unless
 * the stock goes by another symbol (a BSE code, ISIN or former symbol was given), whose list is asked
 * for. A list with filings costs one call, as before.
 */
async function stockList(
  up: Upstreams,
  symbol: string,
  list: (symbol: string) => Promise<common.Document>,
): Promise<common.Document> {
  const doc = await list(symbol);
  if (!isEmptyList(doc)) return doc;
  const quote = await up.equities.getStockQuote({ symbol });
  const named = (JSON.parse(Buffer.from(quote.data_json).toString('utf8')) as { symbol?: unknown }).symbol;
  return typeof named === 'string' && named !== symbol.trim().toUpperCase() ? list(named) : doc;
}

export const filingRoutes = [
  defineRoute({
    operationId: 'getEarningsCalls',
    path: '/v1/stocks/{symbol}/earnings-calls',
    summary: 'Recent earnings-call digests: summary, highlights, risks, guidance, headline metrics',
    description: `Newest first. \`meta\` states \`count\`, \`limit\`, \`total\` (how many there are) and \`has_more\`. ${LIST_RULE}`,
    tag: 'Filings',
    metered: true,
    authenticated: true,
    params: symbolPath,
    query: Type.Object({ limit: integer(1, 5, { default: 2 }) }),
    data: Type.Array(Type.Ref('EarningsCall')),
    upstream: 'filings',
    dispatch: (up, { params, query }) =>
      stockList(up, params.symbol, (symbol) => up.filings.getEarningsCalls({ symbol, ...query })),
  }),
  defineRoute({
    operationId: 'listDocuments',
    path: '/v1/stocks/{symbol}/documents',
    summary: 'Filing index, newest first, with links to the PDF, full Markdown and summary',
    description: `Newest first; the links are signed and expire at \`links.expires_at\`. \`meta\` states \`count\`, \`limit\`, \`total\` (how many match) and \`has_more\`; narrow with \`doc_types\` or \`since\`, or ask for a larger \`limit\`, to see the rest. ${LIST_RULE}`,
    tag: 'Filings',
    metered: true,
    authenticated: true,
    params: symbolPath,
    query: Type.Object({
      doc_types: Type.Optional(csv(oneOf(DOC_TYPES), DOC_TYPES.length, { description: 'Default all types' })),
      since: Type.Optional(date({ description: 'Only filings on or after this date' })),
      limit: integer(1, 50, { default: 20 }),
    }),
    data: Type.Array(Type.Ref('FilingEntry')),
    upstream: 'filings',
    dispatch: (up, { params, query }) =>
      stockList(up, params.symbol, (symbol) =>
        up.filings.listDocuments({ symbol, ...query, doc_types: query.doc_types ?? [] }),
      ),
  }),
  defineRoute({
    operationId: 'readDocument',
    path: '/v1/stocks/{symbol}/documents/read',
    summary: 'Read a page range of a filing as Markdown with <!-- page N --> markers',
    description:
      'At most 12 pages and `max_chars` characters per call; `next_pages` says what to ask for next, and is null at the end.',
    tag: 'Filings',
    metered: true,
    authenticated: true,
    params: symbolPath,
    query: Type.Object({
      doc_id: id({ description: 'Document id from the filing index' }),
      pages: pageRange({ default: '1-12', description: '1-based inclusive range: `1-8`, `12` or `40-`' }),
      max_chars: integer(2000, 60000, { default: 24000, description: 'Character cap of the returned text' }),
    }),
    data: Type.Ref('DocumentPages'),
    upstream: 'filings',
    dispatch: (up, { params, query }) =>
      up.filings.readDocument({
        symbol: params.symbol,
        doc_id: query.doc_id,
        pages: parsePageRange(query.pages),
        max_chars: query.max_chars,
      }),
  }),
  defineRoute({
    operationId: 'getDocumentSummary',
    path: '/v1/stocks/{symbol}/documents/summary',
    summary: 'Investor digest of a filing: summary, highlights, risks, guidance, key metrics',
    description:
      'By `doc_id`, or the newest filing of `doc_type` when `doc_id` is omitted; one of them is required.',
    tag: 'Filings',
    metered: true,
    authenticated: true,
    params: symbolPath,
    query: Type.Object({
      doc_id: Type.Optional(id()),
      doc_type: Type.Optional(oneOf(DOC_TYPES)),
    }),
    check: ({ query }) => {
      if (query.doc_id === undefined && query.doc_type === undefined) {
        throw ApiError.invalidParam(
          'doc_id',
          'give `doc_id`, or `doc_type` for the newest filing of that type',
        );
      }
    },
    data: Type.Ref('DocumentSummary'),
    upstream: 'filings',
    dispatch: (up, { params, query }) => up.filings.getDocumentSummary({ ...params, ...query }),
  }),
];
