import { ApiError } from '@mdp/errors';
import { Type } from '@sinclair/typebox';
import { csv, date, id, integer, oneOf, pageRange, parsePageRange, symbol } from './params.ts';
import { defineRoute } from './route.ts';

export const DOC_TYPES = ['concall', 'annual_report', 'presentation', 'drhp', 'rhp'] as const;

const symbolPath = Type.Object({ symbol: symbol() });

export const filingRoutes = [
  defineRoute({
    operationId: 'getEarningsCalls',
    path: '/v1/stocks/{symbol}/earnings-calls',
    summary: 'Recent earnings-call digests: summary, highlights, risks, guidance, headline metrics',
    description: 'Newest first. `meta` states `count` and `limit`.',
    tag: 'Filings',
    metered: true,
    authenticated: true,
    params: symbolPath,
    query: Type.Object({ limit: integer(1, 5, { default: 2 }) }),
    data: Type.Array(Type.Ref('EarningsCall')),
    upstream: 'filings',
    dispatch: (up, { params, query }) => up.filings.getEarningsCalls({ ...params, ...query }),
  }),
  defineRoute({
    operationId: 'listDocuments',
    path: '/v1/stocks/{symbol}/documents',
    summary: 'Filing index, newest first, with links to the PDF, full Markdown and summary',
    description:
      'Newest first; the links are signed and expire at `links.expires_at`. `meta` states `count` and `limit`.',
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
      up.filings.listDocuments({ ...params, ...query, doc_types: query.doc_types ?? [] }),
  }),
  defineRoute({
    operationId: 'readDocument',
    path: '/v1/stocks/{symbol}/documents/read',
    summary: 'Read a page range of a filing as Markdown with <!-- page N --> markers',
    description:
      'At most 12 pages and `max_chars` characters per call; `next_pages` says what to ask for next and is absent at the end.',
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
