import { DOC_TYPES } from '@mdp/market/vocabulary';
import { type TSchema, Type } from '@sinclair/typebox';
import { oneOf } from '../params.ts';
import { closed, isoDate, nullable, timestamp } from './parts.ts';

const link = (description: string) => Type.String({ format: 'uri', description });
const PAGES = '^[1-9]\\d*(-[1-9]\\d*)?$';

const FilingLinks = closed(
  {
    pdf: nullable(link('The filing as published'), { description: 'null when it was filed as text only' }),
    markdown: link('The full text as Markdown with <!-- page N --> markers'),
    summary: link('The digest as JSON'),
    expires_at: timestamp('When the signed links stop working (UTC)'),
  },
  { $id: 'FilingLinks', description: 'Signed, expiring links to the public files; not metered' },
);

const identity = {
  doc_id: Type.Integer({ minimum: 1 }),
  doc_type: oneOf(DOC_TYPES),
  period: Type.String({ description: 'Reporting period, e.g. Q2FY26 or FY25' }),
  date: isoDate('Filing date'),
};

const entryFields = {
  ...identity,
  title: Type.String(),
  page_count: Type.Integer({ minimum: 1 }),
  availability: closed({ pdf: Type.Boolean(), markdown: Type.Boolean(), summary: Type.Boolean() }),
  links: Type.Ref('FilingLinks'),
};

const FilingEntry = closed(entryFields, { $id: 'FilingEntry', description: 'Newest first' });

const KeyMetric = closed(
  {
    metric: Type.String({ description: 'Canonical name: revenue, ebitda, ebitda_margin, profit, ...' }),
    label: Type.String({ description: 'The words that named it in the text' }),
    value: Type.Number(),
    unit: oneOf(['crore', 'lakh', 'million', 'billion', '%', 'bps', 'currency'], {
      description: 'As printed',
    }),
    currency: Type.Optional(oneOf(['INR', 'USD'])),
    page: Type.Integer({ minimum: 1 }),
    context: Type.String({ description: 'The clause it was read from, shortened' }),
  },
  { $id: 'KeyMetric', description: 'A figure read from the text' },
);

const digestFields = {
  summary: Type.String({ maxLength: 6000 }),
  truncated: Type.Boolean({ description: 'The summary was cut at 6,000 characters' }),
  highlights: Type.Array(Type.String()),
  risks: Type.Array(Type.String()),
  guidance: Type.Array(Type.String()),
};

const DocumentPages = closed(
  {
    ...identity,
    page_count: Type.Integer({ minimum: 1 }),
    pages_returned: Type.String({ pattern: PAGES, description: 'The pages in `text`, e.g. `1-8` or `12`' }),
    next_pages: nullable(Type.String({ pattern: PAGES }), {
      description: 'The range to ask for next; null at the end',
    }),
    chars: Type.Integer({ minimum: 0, description: 'Characters of `text`' }),
    max_chars: Type.Integer({ minimum: 2000, maximum: 60000 }),
    page_cut: Type.Optional(
      Type.Literal(true, {
        description: 'Only when one page alone exceeds max_chars: its end is missing',
      }),
    ),
    page_chars: Type.Optional(
      Type.Integer({ minimum: 1, description: 'With page_cut: the max_chars that would return it whole' }),
    ),
    text: Type.String({ description: 'Markdown with <!-- page N --> markers' }),
    links: Type.Ref('FilingLinks'),
  },
  { $id: 'DocumentPages' },
);

const DocumentSummary = closed(
  {
    ...entryFields,
    ...digestFields,
    key_metrics: Type.Array(Type.Ref('KeyMetric')),
    method: Type.String({ description: 'How the digest was made, e.g. extractive-v1' }),
  },
  { $id: 'DocumentSummary' },
);

const EarningsCall = closed(
  {
    doc_id: identity.doc_id,
    date: identity.date,
    period: identity.period,
    title: Type.String(),
    ...digestFields,
    headline_metrics: Type.Array(Type.Ref('KeyMetric'), { maxItems: 10 }),
    method: Type.String({ description: 'How the digest was made, e.g. extractive-v1' }),
    links: Type.Ref('FilingLinks'),
  },
  { $id: 'EarningsCall', description: 'Digest of an earnings-call transcript; newest first' },
);

export const FILING_DOCUMENTS: readonly TSchema[] = [
  FilingLinks,
  FilingEntry,
  KeyMetric,
  DocumentPages,
  DocumentSummary,
  EarningsCall,
];
