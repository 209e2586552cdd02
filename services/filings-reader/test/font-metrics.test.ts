import type { DocType } from '@mdp/market/vocabulary';
import PDFDocument from 'pdfkit';
import { describe, expect, it } from 'vitest';
import { generateDocument } from '../src/generate/documents.ts';
import { renderPdf } from '../src/generate/pdf.ts';

const company = {
  symbol: 'ACME',
  name: 'Acme Industries Limited',
  sector: 'Capital Goods',
  revenueCr: 4_200,
};

/** renderPdf as it was before the table-driven metrics: pdfkit alone. */
function renderWithPdfkitAlone(pages: string[], info: { title: string; date: string }): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const doc = new PDFDocument({
      autoFirstPage: false,
      compress: true,
      info: {
        Title: info.title,
        Author: 'generated',
        Producer: 'mdp filings generator',
        CreationDate: new Date(`${info.date}T10:00:00Z`),
      },
    });
    const chunks: Buffer[] = [];
    doc.on('data', (c: Buffer) => chunks.push(c));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
    for (const text of pages) {
      doc.addPage({ size: 'A4', margin: 48 });
      doc
        .font('Helvetica')
        .fontSize(9)
        .text(text, { width: doc.page.width - 96, lineGap: 1 });
    }
    doc.end();
  });
}

describe('the generator’s PDFs with table-driven font metrics', () => {
  it('are byte for byte what pdfkit alone renders, for every kind of filing and unusual characters', async () => {
    const types: [DocType, string][] = [
      ['concall', 'Q2FY26'],
      ['presentation', 'Q2FY26'],
      ['annual_report', 'FY25'],
      ['drhp', 'IPO'],
    ];
    const docs = types.map(([type, period]) => generateDocument(company, type, period, '2025-11-05'));
    docs.push({
      ...docs[0]!,
      pages: [
        'Revenue ₹4,200 cr — up 12% “year on year”; EBITDA margin 18.5%… AVAWAYToT.V, fi ﬁ é ü ß € £ ¥ © ®',
        'Tab\tand\nnew line, non-breaking\u00a0space, emoji 📈 and a lone surrogate \ud83d end',
      ],
    });
    // pdfkit alone first: the kept AFM parse is installed by the first table-driven render.
    const expected = [];
    for (const d of docs)
      expected.push(await renderWithPdfkitAlone(d.pages, { title: d.title, date: d.date }));
    for (const [i, d] of docs.entries()) {
      const fast = await renderPdf(d.pages, { title: d.title, date: d.date });
      expect(fast.equals(expected[i]!), `${d.docType}: ${d.pages.length} pages`).toBe(true);
      // And again, now with the AFM parse kept from the first document.
      expect((await renderPdf(d.pages, { title: d.title, date: d.date })).equals(expected[i]!)).toBe(true);
    }
  }, 60_000);
});
