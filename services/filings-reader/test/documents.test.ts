import { describe, expect, it } from 'vitest';
import { DEFAULT_SEED, generateDocument } from '../src/generate/documents.ts';

const company = {
  symbol: 'ACME',
  name: 'Acme Industries Limited',
  sector: 'Capital Goods',
  revenueCr: 4_200,
};

describe('a generated filing', () => {
  const call = (seed?: string) =>
    generateDocument(company, 'concall', 'Q2FY26', '2025-11-05', seed === undefined ? {} : { seed });

  it('is a pure function of the company, type, period and text seed', () => {
    expect(call()).toEqual(call(DEFAULT_SEED));
    expect(call('other').pages).not.toEqual(call().pages);
    expect(call('other')).toEqual(call('other'));
  });

  it('names the company and period, and honours an asked page count', () => {
    const doc = generateDocument(company, 'annual_report', 'FY25', '2025-07-15', { pages: 150 });
    expect(doc.pages).toHaveLength(150);
    expect(doc.title).toBe('Acme Industries Limited annual report FY25');
    expect(call().pages.join('\n')).toContain('Acme Industries Limited Q2FY26 earnings conference call');
  });

  it('speaks of the fiscal years before its own date, whatever the date', () => {
    const text = (date: string) =>
      generateDocument(company, 'drhp', 'IPO', date, { pages: 30 }).pages.join('\n');
    // FY2026 (April 2025 - March 2026) is the last year closed on 2026-06-10; FY2019 on 2019-04-02.
    expect(text('2026-06-10')).toMatch(/between Fiscal 2024 and Fiscal 2026/);
    expect(text('2019-04-02')).toMatch(/between Fiscal 2017 and Fiscal 2019/);
    expect(text('2019-04-02')).not.toMatch(/Fiscal 202[0-9] and/);
  });
});
