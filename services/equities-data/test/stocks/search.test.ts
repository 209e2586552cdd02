import { describe, expect, it } from 'vitest';
import { type SearchDoc, SearchIndex, TIER_NAMES } from '../../src/areas/stocks/domain/search/index.ts';
import { editDistance } from '../../src/areas/stocks/domain/search/text.ts';

/** Documents in rank order: listed by size, then delisted. */
const doc = (name: string, codes: string[], extra: Partial<SearchDoc> = {}): SearchDoc => ({
  listed: true,
  codes,
  name,
  aliases: [],
  formerSymbols: [],
  sector: 'Industrials',
  macroSector: 'Industrials',
  industry: 'Capital Goods',
  basicIndustry: null,
  ...extra,
});
const DOCS: SearchDoc[] = [
  doc('Reliance Industries Limited', ['RELIANCE', '500325', 'INE002A01018'], {
    sector: 'Energy',
    industry: 'Refineries',
  }),
  doc('Tata Steel Limited', ['TATASTEEL', '500470'], {
    formerSymbols: ['TISCO'],
    aliases: ['Tata Iron and Steel Co. Ltd.'],
  }),
  doc('Eternal Limited', ['ETERNAL', '543320'], {
    aliases: ['Zomato Limited', 'Blinkit'],
    formerSymbols: ['ZOMATO'],
  }),
  doc('Mahindra & Mahindra Limited', ['M&M', '500520'], { aliases: ['Mahindra'] }),
  doc('Tech Mahindra Limited', ['TECHM', '532755'], { sector: 'Information Technology' }),
  doc('Tata Motors Passenger Vehicles Limited', ['TMPV'], { formerSymbols: ['TATAMOTORS'] }),
  doc('Reliance Communications Limited', ['RCOM', '532712']),
  doc('Steel Authority of India Limited', ['SAIL']),
  doc('Relaxo Footwears Limited', ['RELAXO']),
  doc('Asian Reliance Traders Ltd', ['512345']),
  doc('Reliance Capital Limited', ['RELCAPITAL'], { listed: false }),
  doc('Tata Steel BSL Limited', ['TATASTLBSL'], { listed: false }),
];
const index = new SearchIndex(DOCS);
const search = (q: string, opts: { sector?: string; industry?: string; limit?: number } = {}) => {
  const r = index.search({ q, limit: opts.limit ?? 20, ...opts });
  return {
    symbols: r.hits.map((h) => DOCS[h]!.codes[0]),
    tiers: r.tiers.map((t) => TIER_NAMES[t]),
    total: r.total,
  };
};

describe('stock search ranking (SPEC 4.5 rules 1-2)', () => {
  it('puts an exact symbol, BSE code or ISIN first', () => {
    expect(search('RELIANCE').symbols[0]).toBe('RELIANCE');
    expect(search('reliance').tiers[0]).toBe('exact_code');
    expect(search('500325').symbols).toEqual(['RELIANCE']);
    expect(search('ine002a01018').symbols).toEqual(['RELIANCE']);
    expect(search('M&M').symbols[0]).toBe('M&M');
  });

  it('ranks exact, then prefix, then word, then contains; larger companies first within a tier', () => {
    const r = search('reliance');
    // exact code, then name prefixes by size (Reliance Communications is larger than Relaxo? no: prefix
    // of "reliance"), then a word match (Asian Reliance), then delisted.
    expect(r.symbols).toEqual(['RELIANCE', 'RCOM', '512345', 'RELCAPITAL']);
    expect(r.tiers).toEqual(['exact_code', 'prefix', 'word', 'prefix']);
    expect(search('steel').symbols).toEqual(['SAIL', 'TATASTEEL', 'TATASTLBSL']);
    expect(search('steel').tiers).toEqual(['prefix', 'word', 'word']);
    expect(search('ance').tiers.every((t) => t === 'contains')).toBe(true);
  });

  it('lists delisted companies after every listed match, whatever their tier', () => {
    const r = search('tata steel');
    expect(r.symbols).toEqual(['TATASTEEL', 'TATASTLBSL']);
    expect(search('RELCAPITAL').symbols).toEqual(['RELCAPITAL']);
  });

  it('matches brand names and former names and symbols', () => {
    expect(search('zomato').symbols).toEqual(['ETERNAL']);
    expect(search('zomato').tiers).toEqual(['exact_name']);
    expect(search('blinkit').symbols).toEqual(['ETERNAL']);
    expect(search('TISCO').symbols).toEqual(['TATASTEEL']);
    expect(search('tata iron').symbols).toEqual(['TATASTEEL']);
    expect(search('TATAMOTORS').symbols[0]).toBe('TMPV');
  });

  it('matches words in any order', () => {
    expect(search('steel tata').symbols).toEqual(['TATASTEEL', 'TATASTLBSL']);
    expect(search('mahindra').symbols).toEqual(['M&M', 'TECHM']);
  });

  it('tolerates typos in queries of four or more characters only', () => {
    expect(search('relaince').symbols.slice(0, 2)).toEqual(['RELIANCE', 'RCOM']);
    expect(search('relaince').tiers[0]).toBe('typo');
    expect(search('mahindar').symbols[0]).toBe('M&M');
    expect(search('tata stel').symbols[0]).toBe('TATASTEEL');
    expect(search('zomatto').symbols).toEqual(['ETERNAL']);
    expect(search('sial').symbols).toEqual(['SAIL']);
    expect(search('sal').total).toBe(0);
    // Codes are matched exactly, never "corrected".
    expect(search('500326').total).toBe(0);
  });

  it('filters by sector (or macro sector) and industry, case-insensitively, and counts every match', () => {
    expect(search('mahindra', { sector: 'information technology' }).symbols).toEqual(['TECHM']);
    expect(search('reliance', { industry: 'Refineries' }).symbols).toEqual(['RELIANCE']);
    const all = search('limited', { limit: 3 });
    expect(all.symbols).toHaveLength(3);
    expect(all.total).toBeGreaterThan(3);
  });

  it('finds nothing for nothing', () => {
    expect(search('qqqqzz').total).toBe(0);
  });
});

describe('edit distance', () => {
  it('counts a transposition as one edit and stops beyond the budget', () => {
    expect(editDistance('relaince', 'reliance', 2)).toBe(1);
    expect(editDistance('infosis', 'infosys', 1)).toBe(1);
    expect(editDistance('abc', 'xyz', 1)).toBe(2);
  });
});
