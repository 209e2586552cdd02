import { RpcError, status } from '@mdp/grpc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateCompanies } from '../src/generate/companies.ts';
import { generateDocument } from '../src/generate/documents.ts';
import { renderPdf } from '../src/generate/pdf.ts';
import { extractPdfPages } from '../src/ingest/pdf-text.ts';
import { LinkSigner } from '../src/links.ts';
import { filingsImpl } from '../src/service.ts';
import { FilingsStore } from '../src/store.ts';
import { decode, freshSchema } from './helpers.ts';

const [alpha, beta] = generateCompanies(2) as [
  ReturnType<typeof generateCompanies>[0],
  ReturnType<typeof generateCompanies>[0],
];
const report = generateDocument(alpha, 'annual_report', 'FY25', '2025-07-15', { pages: 150 });
const call = generateDocument(alpha, 'concall', 'Q2FY26', '2025-11-05');
const otherCall = generateDocument(beta, 'concall', 'Q2FY26', '2025-11-06');

let env: Awaited<ReturnType<typeof freshSchema>>;
let store: FilingsStore;
let impl: ReturnType<typeof filingsImpl>;
let reportId: number;
let callId: number;
let otherId: number;
const ctx = { metadata: undefined as never, signal: new AbortController().signal, peer: 'test' };

beforeAll(async () => {
  env = await freshSchema('fr_read');
  store = new FilingsStore(env.pool);
  impl = filingsImpl({
    store,
    signer: new LinkSigner('test-signing-key-0123456789', 'http://files.test', 3600),
  });
  // The 150-page report goes through the real extraction path, not the generator's known text.
  const pdf = await renderPdf(report.pages, { title: report.title, date: report.date });
  reportId = (
    await store.ingest({
      symbol: alpha.symbol,
      docType: 'annual_report',
      period: 'FY25',
      date: report.date,
      content: { pdf },
    })
  ).docId;
  callId = (
    await store.ingest({
      symbol: alpha.symbol,
      docType: 'concall',
      period: 'Q2FY26',
      date: call.date,
      content: { pdf: await renderPdf(call.pages, { title: call.title, date: call.date }) },
    })
  ).docId;
  otherId = (
    await store.ingest({
      symbol: beta.symbol,
      docType: 'concall',
      period: 'Q2FY26',
      date: otherCall.date,
      content: { pdf: await renderPdf(otherCall.pages, { title: otherCall.title, date: otherCall.date }) },
    })
  ).docId;
}, 60_000);
afterAll(() => env.drop());

const parse = (label: string) => {
  const [a, b] = label.split('-');
  return {
    first: Number(a),
    ...(b === undefined ? { last: Number(a) } : b === '' ? {} : { last: Number(b) }),
  };
};
const read = async (
  pages: string | undefined,
  max_chars = 24_000,
  doc_id = reportId,
  symbol = alpha.symbol,
) =>
  decode(
    await impl.readDocument(
      { symbol, doc_id, pages: pages ? parse(pages) : { first: 1, last: 12 }, max_chars },
      ctx,
    ),
  ).data;

/** Splits returned Markdown into {page: text} by its markers. */
function byPage(text: string): Map<number, string> {
  const out = new Map<number, string>();
  const parts = text.split(/<!-- page (\d+) -->\n/);
  for (let i = 1; i < parts.length; i += 2) out.set(Number(parts[i]), parts[i + 1] as string);
  return out;
}

describe('page markers and ranges on a generated 150-page annual report', () => {
  it('stores 150 pages, and page N holds exactly page N’s text', async () => {
    expect((await store.meta(reportId))?.page_count).toBe(150);
    const extracted = await extractPdfPages(
      await renderPdf(report.pages, { title: report.title, date: report.date }),
    );
    for (const n of [1, 2, 12, 13, 75, 149, 150]) {
      const d = await read(String(n), 60_000);
      expect(d.pages_returned).toBe(String(n));
      const pages = byPage(d.text);
      expect([...pages.keys()]).toEqual([n]);
      expect(pages.get(n)?.trim()).toBe(extracted[n - 1]);
      expect(pages.get(n)).toContain(`page ${n} of 150`);
      expect(pages.get(n)).not.toMatch(new RegExp(`page (?!${n} of)\\d+ of 150`));
    }
  });

  it('`1-8`, `12` and `140-` return exactly those pages', async () => {
    expect([...byPage((await read('1-8', 60_000)).text).keys()]).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect([...byPage((await read('12', 60_000)).text).keys()]).toEqual([12]);
    const tail = await read('140-', 60_000);
    expect([...byPage(tail.text).keys()]).toEqual([140, 141, 142, 143, 144, 145, 146, 147, 148, 149, 150]);
    expect(tail.next_pages).toBeNull();
  });

  it('next_pages leads through the whole document without loss or overlap, within both caps', async () => {
    for (const maxChars of [24_000, 4_000, 60_000]) {
      const full = (await store.markdown(reportId)) as string;
      let pages: string | undefined = '1-12';
      let joined = '';
      const seen: number[] = [];
      let calls = 0;
      while (pages) {
        const d = await read(pages, maxChars);
        const got = [...byPage(d.text).keys()];
        expect(got.length).toBeLessThanOrEqual(12);
        expect([...d.text].length).toBeLessThanOrEqual(maxChars);
        expect(d.chars).toBe([...d.text].length);
        expect(d.pages_returned).toBe(got.length === 1 ? `${got[0]}` : `${got[0]}-${got.at(-1)}`);
        expect(d.page_cut).toBeUndefined();
        seen.push(...got);
        joined += d.text;
        pages = d.next_pages;
        calls++;
      }
      expect(seen).toEqual(Array.from({ length: 150 }, (_, i) => i + 1));
      expect(joined).toBe(full);
      if (maxChars === 60_000) expect(calls).toBe(13);
      if (maxChars === 24_000) expect(calls).toBeGreaterThan(13);
    }
  });

  it('a single page longer than max_chars is cut inside, flagged, and never exceeds the cap', async () => {
    const d = await read('7-9', 2_000);
    expect(d.pages_returned).toBe('7');
    expect([...d.text].length).toBe(2_000);
    expect(d.page_cut).toBe(true);
    expect(d.page_chars).toBeGreaterThan(2_000);
    expect(d.next_pages).toBe('8-19');
  });

  it('defaults to pages 1-12 on a short document too (the end is clamped to the document)', async () => {
    const d = await read(undefined, 60_000, callId);
    expect(d.pages_returned).toBe(`1-${Math.min(12, call.pages.length)}`);
  });

  it('a range beyond the document is a 400 naming `pages`', async () => {
    const err = await read('151-', 24_000).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RpcError);
    expect((err as RpcError).code).toBe(status.INVALID_ARGUMENT);
    expect((err as RpcError).param).toBe('pages');
    expect(((await read('151-160').catch((e: unknown) => e)) as RpcError).param).toBe('pages');
  });

  it("another company's doc_id is a 404, as is an unknown one", async () => {
    for (const id of [otherId, 999_999]) {
      const err = (await read('1', 24_000, id).catch((e: unknown) => e)) as RpcError;
      expect(err.code).toBe(status.NOT_FOUND);
    }
  });
});

describe('index, summary and earnings calls', () => {
  it('lists newest first with links and availability, filtered by type and date', async () => {
    const { data } = decode(
      await impl.listDocuments({ symbol: alpha.symbol, doc_types: [], limit: 20 }, ctx),
    );
    expect(data.map((d: { doc_id: number }) => d.doc_id)).toEqual([callId, reportId]);
    expect(data[0]).toMatchObject({
      doc_type: 'concall',
      period: 'Q2FY26',
      date: '2025-11-05',
      availability: { pdf: true, markdown: true, summary: true },
    });
    expect(data[0].links.pdf).toMatch(
      new RegExp(`^http://files\\.test/files/${callId}\\.pdf\\?exp=\\d+&sig=`),
    );
    expect(data[0].summary).toBeUndefined();
    const typed = decode(
      await impl.listDocuments({ symbol: alpha.symbol, doc_types: ['annual_report'], limit: 20 }, ctx),
    ).data;
    expect(typed.map((d: { doc_id: number }) => d.doc_id)).toEqual([reportId]);
    const since = decode(
      await impl.listDocuments({ symbol: alpha.symbol, doc_types: [], since: '2025-08-01', limit: 20 }, ctx),
    ).data;
    expect(since.map((d: { doc_id: number }) => d.doc_id)).toEqual([callId]);
  });

  it('a list cut by its limit says how many match and that there are more (SPEC 1)', async () => {
    const all = decode(await impl.listDocuments({ symbol: alpha.symbol, doc_types: [], limit: 20 }, ctx));
    expect(all.meta).toEqual({ symbol: alpha.symbol, count: 2, limit: 20, total: 2, has_more: false });
    const cut = decode(await impl.listDocuments({ symbol: alpha.symbol, doc_types: [], limit: 1 }, ctx));
    expect(cut.data.map((d: { doc_id: number }) => d.doc_id)).toEqual([callId]);
    expect(cut.meta).toEqual({ symbol: alpha.symbol, count: 1, limit: 1, total: 2, has_more: true });
    // The total is of what the filters match, not of everything filed.
    const typed = decode(
      await impl.listDocuments({ symbol: alpha.symbol, doc_types: ['annual_report'], limit: 1 }, ctx),
    );
    expect(typed.meta).toMatchObject({ count: 1, total: 1, has_more: false });
    const calls = decode(await impl.getEarningsCalls({ symbol: alpha.symbol, limit: 1 }, ctx));
    expect(calls.meta).toEqual({ symbol: alpha.symbol, count: 1, limit: 1, total: 1, has_more: false });
  });

  it('a symbol with nothing filed is an empty list: whether it names a stock is equities-data’s to say', async () => {
    // The gateway asks equities-data when a list is empty (404 for no such stock, else this 200).
    for (const symbol of ['NOSUCH', 'nosuch']) {
      expect(decode(await impl.listDocuments({ symbol, doc_types: [], limit: 20 }, ctx))).toEqual({
        data: [],
        meta: { symbol: 'NOSUCH', count: 0, limit: 20, total: 0, has_more: false },
      });
      expect(decode(await impl.getEarningsCalls({ symbol, limit: 2 }, ctx))).toEqual({
        data: [],
        meta: { symbol: 'NOSUCH', count: 0, limit: 2, total: 0, has_more: false },
      });
    }
    // A company with filings but none of the type asked: empty too.
    expect(
      decode(await impl.listDocuments({ symbol: alpha.symbol, doc_types: ['drhp'], limit: 20 }, ctx)).data,
    ).toEqual([]);
    // One document is still a 404 when it does not exist.
    const summary = (await impl
      .getDocumentSummary({ symbol: 'NOSUCH', doc_type: 'concall' }, ctx)
      .catch((e: unknown) => e)) as RpcError;
    expect(summary.code).toBe(status.NOT_FOUND);
  });

  it('summary by doc_id or newest of doc_type, capped, with metrics and links', async () => {
    const byId = decode(await impl.getDocumentSummary({ symbol: alpha.symbol, doc_id: reportId }, ctx)).data;
    const byType = decode(
      await impl.getDocumentSummary({ symbol: alpha.symbol, doc_type: 'annual_report' }, ctx),
    ).data;
    expect(byType).toEqual(byId);
    expect(byId.summary.length).toBeGreaterThan(200);
    expect(byId.summary.length).toBeLessThanOrEqual(6000);
    expect(typeof byId.truncated).toBe('boolean');
    expect(byId.key_metrics.length).toBeGreaterThan(0);
    expect(byId.links.markdown).toContain(`/files/${reportId}.md?`);
    const none = (await impl
      .getDocumentSummary({ symbol: alpha.symbol }, ctx)
      .catch((e: unknown) => e)) as RpcError;
    expect(none.param).toBe('doc_id');
    const other = (await impl
      .getDocumentSummary({ symbol: alpha.symbol, doc_id: otherId }, ctx)
      .catch((e: unknown) => e)) as RpcError;
    expect(other.code).toBe(status.NOT_FOUND);
    const noType = (await impl
      .getDocumentSummary({ symbol: alpha.symbol, doc_type: 'drhp' }, ctx)
      .catch((e: unknown) => e)) as RpcError;
    expect(noType.code).toBe(status.NOT_FOUND);
  });

  it('earnings calls: latest digests with date, period and headline metrics', async () => {
    const { data } = decode(await impl.getEarningsCalls({ symbol: alpha.symbol, limit: 5 }, ctx));
    expect(data).toHaveLength(1);
    expect(data[0]).toMatchObject({ doc_id: callId, date: '2025-11-05', period: 'Q2FY26' });
    expect(data[0].headline_metrics.map((m: { metric: string }) => m.metric)).toEqual(
      expect.arrayContaining(['revenue', 'ebitda_margin', 'profit']),
    );
    for (const k of ['summary', 'highlights', 'risks', 'guidance'])
      expect(data[0][k].length).toBeGreaterThan(0);
  });
});
