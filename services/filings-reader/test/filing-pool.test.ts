import { describe, expect, it } from 'vitest';
import { extractiveDigest } from '../src/digest/digest.ts';
import { DEFAULT_SEED, generateDocument } from '../src/generate/documents.ts';
import type { FilingSpec } from '../src/generate/filing.ts';
import { preparedInOrder } from '../src/generate/filing-pool.ts';
import { renderPdf } from '../src/generate/pdf.ts';

const company = {
  symbol: 'ACME',
  name: 'Acme Industries Limited',
  sector: 'Capital Goods',
  revenueCr: 4_200,
};

const specs: FilingSpec[] = [
  { company, docType: 'drhp', period: 'IPO', date: '2024-03-12', seed: DEFAULT_SEED },
  { company, docType: 'concall', period: 'Q2FY26', date: '2025-11-05', seed: DEFAULT_SEED },
  { company, docType: 'presentation', period: 'Q2FY26', date: '2025-11-05', seed: DEFAULT_SEED },
  { company, docType: 'concall', period: 'Q1FY26', date: '2025-08-04', seed: 'other' },
];

describe('filings prepared on worker threads', () => {
  it('are the filings prepared on this thread, in the order asked, bytes and digest alike', async () => {
    const got = [];
    for await (const f of preparedInOrder(specs, 2)) got.push(f);
    expect(got).toHaveLength(specs.length);
    for (const [i, s] of specs.entries()) {
      const d = generateDocument(s.company, s.docType, s.period, s.date, { seed: s.seed });
      const f = got[i]!;
      expect({ ...f, pdf: undefined, digest: undefined }).toEqual({
        ...d,
        pdf: undefined,
        digest: undefined,
      });
      expect(Buffer.from(f.pdf).equals(await renderPdf(d.pages, { title: d.title, date: d.date }))).toBe(
        true,
      );
      expect(f.digest).toEqual(extractiveDigest(d.pages));
    }
  }, 60_000);

  it('pass on a worker failure to the caller', async () => {
    const bad = { ...specs[1]!, docType: 'memo' as FilingSpec['docType'] };
    await expect(async () => {
      for await (const _ of preparedInOrder([specs[2]!, bad], 1));
    }).rejects.toThrow();
  }, 60_000);
});
