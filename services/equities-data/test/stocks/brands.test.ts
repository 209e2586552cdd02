import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isValidIsin } from '@mdp/market';
import { describe, expect, it } from 'vitest';
import { normalize } from '../../src/areas/stocks/domain/search/text.ts';
import { brands, builtInBrandRows } from '../../src/areas/stocks/importers/aliases.ts';
import { BUILT_IN_BRANDS } from '../../src/areas/stocks/importers/brands.ts';
import { REALDATA } from '../support.ts';

// The built-in brand list against NSE's real list of equities (symbol and ISIN of every listed company).
const EQUITY_L = join(REALDATA, 'nse_EQUITY_L_2026-07.csv');
const nse = new Map<string, string>(); // ISIN → symbol
for (const line of readFileSync(EQUITY_L, 'utf8').trim().split(/\r?\n/).slice(1)) {
  const cells = line.split(',').map((c) => c.trim());
  nse.set(cells[6]!, cells[0]!);
}
const allBrands = BUILT_IN_BRANDS.flatMap((o) => o.brands.map((brand) => ({ ...o, brand })));

describe('the built-in brand list', () => {
  it('reads the real NSE list of equities', () => {
    expect(nse.size).toBeGreaterThan(2_000);
    expect(nse.get('INE030A01027')).toBe('HINDUNILVR');
  });

  it('names every owner by an ISIN NSE lists under the symbol given', () => {
    const wrong = BUILT_IN_BRANDS.filter((o) => !isValidIsin(o.isin) || nse.get(o.isin) !== o.symbol).map(
      (o) => `${o.symbol} ${o.isin}: NSE lists ${nse.get(o.isin) ?? 'nothing'} under this ISIN`,
    );
    expect(wrong).toEqual([]);
  });

  it('has each owner once, and each brand under one owner only, ignoring case', () => {
    const isins = BUILT_IN_BRANDS.map((o) => o.isin);
    expect(new Set(isins).size).toBe(isins.length);
    const owner = new Map<string, string>();
    const clashes: string[] = [];
    for (const { brand, symbol } of allBrands) {
      const key = brand.toLowerCase();
      const other = owner.get(key);
      if (other !== undefined && other !== symbol) clashes.push(`${brand}: ${other} and ${symbol}`);
      owner.set(key, symbol);
    }
    expect(clashes).toEqual([]);
    // Within one owner too: a repeated name is a slip.
    for (const o of BUILT_IN_BRANDS)
      expect(new Set(o.brands.map((b) => b.toLowerCase())).size, o.symbol).toBe(o.brands.length);
  });

  it('has no empty or untrimmed names, and every name is searchable', () => {
    const bad = allBrands.filter(({ brand }) => brand.trim() !== brand || normalize(brand) === '');
    expect(bad).toEqual([]);
    for (const o of BUILT_IN_BRANDS) expect(o.brands.length, o.symbol).toBeGreaterThan(0);
  });

  it('covers several hundred brands of 150+ listed companies', () => {
    expect(allBrands.length).toBeGreaterThanOrEqual(400);
    expect(BUILT_IN_BRANDS.length).toBeGreaterThanOrEqual(150);
  });

  it('gives the best-known brands to their owners', () => {
    const ownerOf = (brand: string) => allBrands.find((b) => b.brand === brand)?.symbol;
    expect(ownerOf('Surf Excel')).toBe('HINDUNILVR');
    expect(ownerOf('Aashirvaad')).toBe('ITC');
    expect(ownerOf('Complan')).toBe('ZYDUSWELL');
    expect(ownerOf('Naukri')).toBe('NAUKRI');
    expect(ownerOf('99acres')).toBe('NAUKRI');
    expect(ownerOf('Vivanta Hotels')).toBe('INDHOTEL');
    expect(ownerOf('Lloyd')).toBe('HAVELLS');
    expect(ownerOf('Fevicol')).toBe('PIDILITIND');
  });

  it('becomes import rows carrying the ISIN and the symbol', () => {
    const rows = builtInBrandRows();
    expect(rows).toHaveLength(allBrands.length);
    expect(rows.find((r) => r.value.brand === 'Surf Excel')?.value).toEqual({
      symbol: 'HINDUNILVR',
      isin: 'INE030A01027',
      brand: 'Surf Excel',
    });
    expect(new Set(rows.map((r) => r.line)).size).toBe(rows.length);
  });
});

describe('brands CSV files', () => {
  const parse = (text: string) => brands.parse({ path: 'b.csv', name: 'b.csv', text });

  it('reads symbol,brand rows, with an optional ISIN column that may stand in for the symbol', () => {
    const plain = parse('symbol,brand\nhindunilvr, Surf  Excel \n');
    expect(plain.rows.map((r) => r.value)).toEqual([
      { symbol: 'HINDUNILVR', isin: null, brand: 'Surf Excel' },
    ]);
    const withIsin = parse(
      'Symbol,Brand,ISIN\nHINDUNILVR,Rin,INE030A01027\n,Vim,ine030a01027\nITC,Bingo,\n,Nothing,\nITC,Bad,INE000000000\n',
    );
    expect(withIsin.rows.map((r) => r.value)).toEqual([
      { symbol: 'HINDUNILVR', isin: 'INE030A01027', brand: 'Rin' },
      { symbol: '', isin: 'INE030A01027', brand: 'Vim' },
      { symbol: 'ITC', isin: null, brand: 'Bingo' },
    ]);
    expect(withIsin.rejections.map((r) => [r.line, r.reason])).toEqual([
      [5, 'symbol (or ISIN) or brand missing'],
      [6, 'invalid ISIN'],
    ]);
  });
});
