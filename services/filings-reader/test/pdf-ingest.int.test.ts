import { readFile } from 'node:fs/promises';
import PDFDocument from 'pdfkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderPdf } from '../src/generate/pdf.ts';
import { DocumentRejected, extractPdfPages } from '../src/ingest/pdf-text.ts';
import { FilingsStore } from '../src/store.ts';
import { freshSchema, REALDATA } from './helpers.ts';

// Page counts as published (MANIFEST.md) and checked by opening each file.
const REAL = [
  { file: 'concall_apollo_hospitals_Q3FY25.pdf', symbol: 'APOLLOHOSP', pages: 17, phrase: /Apollo/i },
  { file: 'concall_irctc_Q3FY25.pdf', symbol: 'IRCTC', pages: 14, phrase: /IRCTC|Indian Railway Catering/i },
  { file: 'concall_jsw_Q3FY25.pdf', symbol: 'JSWSTEEL', pages: 16, phrase: /JSW Steel/i },
  { file: 'concall_tata_motors_Q3FY25.pdf', symbol: 'TATAMOTORS', pages: 21, phrase: /Tata Motors/i },
  { file: 'concall_vedanta_Q3FY25.pdf', symbol: 'VEDL', pages: 21, phrase: /Vedanta/i },
];

function pdfWith(
  opts: ConstructorParameters<typeof PDFDocument>[0],
  draw: (d: PDFKit.PDFDocument) => void,
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const d = new PDFDocument(opts);
    const chunks: Buffer[] = [];
    d.on('data', (c: Buffer) => chunks.push(c));
    d.on('end', () => resolve(Buffer.concat(chunks)));
    d.on('error', reject);
    draw(d);
    d.end();
  });
}

let store: FilingsStore;
let env: Awaited<ReturnType<typeof freshSchema>>;
beforeAll(async () => {
  env = await freshSchema('fr_ingest');
  store = new FilingsStore(env.pool);
});
afterAll(() => env.drop());

const count = async () => store.count();

describe('ingest of the real earnings-call transcripts', () => {
  it.each(REAL)(
    '$file: right page count and readable text on every page',
    async ({ file, symbol, pages, phrase }) => {
      const bytes = await readFile(new URL(`pdfs/${file}`, REALDATA));
      const r = await store.ingest({
        symbol,
        docType: 'concall',
        period: 'Q3FY25',
        date: '2025-01-30',
        content: { pdf: bytes },
      });
      expect(r.created).toBe(true);
      expect(r.pageCount).toBe(pages);
      const meta = await store.meta(r.docId, symbol);
      expect(meta?.page_count).toBe(pages);
      const md = (await store.markdown(r.docId)) as string;
      expect(md).toMatch(phrase);
      for (let n = 1; n <= pages; n++) {
        const w = await store.readPages(r.docId, n, n, 60_000);
        expect(w.text.startsWith(`<!-- page ${n} -->\n`)).toBe(true);
        const body = w.text.slice(`<!-- page ${n} -->`.length);
        // Readable: real words, not glyph soup, and no other page's marker.
        const words = body.match(/\b[A-Za-z]{3,}\b/g) ?? [];
        expect(words.length, `page ${n} of ${file}`).toBeGreaterThan(60);
        expect(body).not.toMatch(/<!-- page/);
        // No NUL or replacement characters left by a bad text decode.
        expect(body.includes('\u0000') || body.includes('\ufffd')).toBe(false);
      }
      // The stored PDF is the file, byte for byte.
      expect((await store.pdf(r.docId))?.equals(bytes)).toBe(true);
    },
  );

  it('is idempotent by content hash', async () => {
    const bytes = await readFile(new URL(`pdfs/${REAL[2]?.file}`, REALDATA));
    const before = await count();
    const a = await store.ingest({
      symbol: 'JSWSTEEL',
      docType: 'concall',
      period: 'Q3FY25',
      date: '2025-01-24',
      content: { pdf: bytes },
    });
    const b = await store.ingest({
      symbol: 'JSWSTEEL',
      docType: 'concall',
      period: 'Q3FY25',
      date: '2025-01-24',
      content: { pdf: bytes },
    });
    expect(a.created).toBe(false);
    expect(b.docId).toBe(a.docId);
    expect(await count()).toBe(before);
  });
});

describe('bad PDFs are rejected with a clear reason and nothing stored', () => {
  const reject = async (bytes: Uint8Array, reason: DocumentRejected['reason'], message: RegExp) => {
    const before = await count();
    const err = await store
      .ingest({
        symbol: 'BADCO',
        docType: 'concall',
        period: 'Q1FY26',
        date: '2025-08-01',
        content: { pdf: bytes },
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DocumentRejected);
    expect((err as DocumentRejected).reason).toBe(reason);
    expect((err as Error).message).toMatch(message);
    expect(await count()).toBe(before);
    expect(await store.hasSymbol('BADCO')).toBe(false);
  };

  it('empty file', () => reject(new Uint8Array(0), 'empty', /empty/));
  it('not a PDF', () => reject(Buffer.from('hello, this is plain text'), 'corrupt', /not a PDF/));
  it('damaged PDF', async () => {
    const junk = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(4000, 0x41), Buffer.from('\n%%EOF')]);
    await reject(junk, 'corrupt', /damaged|cannot/);
  });
  it('truncated real PDF', async () => {
    const bytes = await readFile(new URL(`pdfs/${REAL[0]?.file}`, REALDATA));
    await reject(bytes.subarray(0, 900), 'corrupt', /damaged|cannot/);
  });
  it('password-protected PDF', async () => {
    const pdf = await pdfWith({ userPassword: 'secret', ownerPassword: 'owner', pdfVersion: '1.7' }, (d) =>
      d.text('confidential'),
    );
    await reject(pdf, 'encrypted', /encrypted/);
  });
  it('PDF without a text layer', async () => {
    const pdf = await pdfWith({}, (d) => d.rect(50, 50, 200, 200).fill('#333'));
    await reject(pdf, 'no_text', /no text layer/);
  });
});

describe('generated PDFs', () => {
  it('extract back to exactly the text of each page', async () => {
    const pages = Array.from(
      { length: 5 },
      (_, i) => `Heading ${i + 1}\n\nThis is page ${i + 1}. Revenue grew 1${i}% to Rs 1,23${i} crore.`,
    );
    const got = await extractPdfPages(await renderPdf(pages, { title: 't' }));
    expect(got).toEqual(pages.map((p) => p.replace(/\n\n/g, '\n')));
  });
});

describe('page offsets count characters as Postgres does', () => {
  it('reads pages exactly around ₹ and characters outside the BMP', async () => {
    const md = [
      '### Page 1',
      'Revenue ₹ 1,234 crore 📈 up 12%',
      '### Page 2',
      'Second page 𝔸𝔹ℂ with ₹ and “quotes”',
      '### Page 3',
      'Third page',
    ].join('\n');
    const r = await store.ingest({
      symbol: 'UNICODE',
      docType: 'presentation',
      period: 'Q1FY26',
      date: '2025-08-01',
      content: { markdown: md },
    });
    expect(r.pageCount).toBe(3);
    expect((await store.readPages(r.docId, 2, 2, 60_000)).text).toBe(
      '<!-- page 2 -->\n\nSecond page 𝔸𝔹ℂ with ₹ and “quotes”\n\n',
    );
    expect((await store.readPages(r.docId, 3, 3, 60_000)).text).toBe('<!-- page 3 -->\n\nThird page\n\n');
    const all = await store.readPages(r.docId, 1, 3, 60_000);
    expect(all.text).toBe(await store.markdown(r.docId));
  });
});
