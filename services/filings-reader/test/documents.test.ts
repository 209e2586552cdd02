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
});
