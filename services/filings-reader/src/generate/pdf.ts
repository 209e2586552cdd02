import PDFDocument from 'pdfkit';
import { useFastMetrics } from './font-metrics.ts';

/**
 * Renders one PDF page per text, in Helvetica (a standard font: no font files, small output). Pages are
 * added by hand and automatic breaks are refused, so page N of the PDF holds exactly text N.
 */
export function renderPdf(
  pages: string[],
  info: { title: string; author?: string; date?: string },
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const doc = new PDFDocument({
      autoFirstPage: false,
      compress: true,
      // A fixed creation date makes the file ID, and so the bytes and the content hash, reproducible.
      info: {
        Title: info.title,
        Author: info.author ?? 'generated',
        Producer: 'mdp filings generator',
        CreationDate: new Date(`${info.date ?? '2025-01-01'}T10:00:00Z`),
      },
    });
    const chunks: Buffer[] = [];
    doc.on('data', (c: Buffer) => chunks.push(c));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
    let added = 0;
    doc.on('pageAdded', () => {
      added++;
    });
    doc.font('Helvetica');
    useFastMetrics(doc);
    for (const text of pages) {
      doc.addPage({ size: 'A4', margin: 48 });
      const expected = added;
      doc
        .font('Helvetica')
        .fontSize(9)
        .text(text, { width: doc.page.width - 96, lineGap: 1 });
      if (added !== expected) {
        reject(new Error(`page text overflowed onto a new PDF page (page ${expected})`));
        return;
      }
    }
    doc.end();
  });
}
