import { day } from '@mdp/nse-calendar';
import { describe, expect, it } from 'vitest';
import { familyOf } from '../../src/areas/indices/families.ts';
import { type IndexCloseRow, indexClose } from '../../src/areas/indices/import-close.ts';
import { indexValuations, type ValuationRow } from '../../src/areas/indices/import-valuations.ts';
import { readSource } from '../../src/importers/csv.ts';
import { ImportFileError } from '../../src/importers/report.ts';
import { CLOSE_DIR, NIFTY_PE_FILE } from './support.ts';

const source = (name: string, text: string) => ({ path: name, name, text });

describe('index-close importer (ind_close_all files)', () => {
  const march = indexClose.parse(readSource(`${CLOSE_DIR}ind_close_all_03032025.csv`));
  const rows = march.rows.map((r) => r.value as IndexCloseRow);
  const named = (n: string) => rows.find((r) => r.name === n)!;

  it('reads every equity index row of the real file and rejects bond, rate and VIX rows', () => {
    expect(march.read).toBe(136);
    expect(rows).toHaveLength(122);
    expect(march.rejections).toHaveLength(14);
    expect(new Set(march.rejections.map((r) => r.reason))).toEqual(
      new Set(['not an equity index (bond, rate or volatility)']),
    );
    expect(named('Nifty 50')).toEqual({
      name: 'Nifty 50',
      d: day('2025-03-03'),
      open: 22194.55,
      high: 22261.55,
      low: 22004.7,
      close: 22119.3,
      pe: 19.66,
      pb: 3.29,
      divYield: 1.45,
    });
  });

  it('keeps indices NSE publishes only a close for, without the missing values', () => {
    expect(named('Nifty50 Dividend Points')).toMatchObject({
      open: null,
      high: null,
      low: null,
      close: 287.91,
      pe: null,
      divYield: null,
    });
    expect(named('Nifty Private Bank').divYield).toBe(0.61);
  });

  it('the January files, and a malformed file names its line', () => {
    const jan = indexClose.parse(readSource(`${CLOSE_DIR}ind_close_all_01012025.csv`));
    expect([jan.read, jan.rows.length]).toEqual([129, 120]);
    const header =
      'Index Name,Index Date,Open Index Value,High Index Value,Low Index Value,Closing Index Value,Points Change,Change(%),Volume,Turnover (Rs. Cr.),P/E,P/B,Div Yield\n';
    expect(() =>
      indexClose.parse(source('bad.csv', `${header}Nifty 50,2025/01/01,1,1,1,1,0,0,0,0,1,1,1\n`)),
    ).toThrow(ImportFileError);
    expect(() =>
      indexClose.parse(source('bad.csv', `${header}Nifty 50,2025/01/01,1,1,1,1,0,0,0,0,1,1,1\n`)),
    ).toThrow(/bad\.csv:2: INDEX DATE/);
    expect(() => indexClose.parse(source('bad.csv', 'Index Name,Closing Index Value\nNifty 50,1\n'))).toThrow(
      /missing column/,
    );
    const odd = indexClose.parse(source('odd.csv', `${header}Nifty 50,01-01-2025,10,9,8,12,0,0,0,0,1,1,1\n`));
    expect(odd.rejections[0]?.reason).toMatch(/not consistent/);
  });

  it('files real index names into families', () => {
    const cases: [string, string][] = [
      ['Nifty 50', 'broad'],
      ['Nifty Next 50', 'broad'],
      ['NIFTY Midcap 100', 'broad'],
      ['Nifty Midcap Select', 'broad'],
      ['Nifty Smallcap 250', 'broad'],
      ['Nifty Total Market', 'broad'],
      ['Nifty Bank', 'sectoral'],
      ['Nifty IT', 'sectoral'],
      ['Nifty Financial Services Ex-Bank', 'sectoral'],
      ['Nifty MidSmall IT & Telecom', 'sectoral'],
      ['Nifty Oil & Gas', 'sectoral'],
      ['Nifty100 Low Volatility 30', 'strategy'],
      ['Nifty Alpha 50', 'strategy'],
      ['NIFTY50 Equal Weight', 'strategy'],
      ['Nifty Dividend Opportunities 50', 'strategy'],
      ['Nifty India Digital', 'thematic'],
      ['Nifty CPSE', 'thematic'],
      ['Nifty India Defence', 'thematic'],
      ['Nifty Capital Markets', 'thematic'],
    ];
    for (const [name, family] of cases) expect([name, familyOf(name)]).toEqual([name, family]);
    const families = new Set(rows.map((r) => familyOf(r.name)));
    expect(families).toEqual(new Set(['broad', 'sectoral', 'thematic', 'strategy']));
  });
});

describe('index-valuations importer (NIFTY 50 P/E, P/B, dividend yield history)', () => {
  const parsed = indexValuations.parse(readSource(NIFTY_PE_FILE));
  const rows = parsed.rows.map((r) => r.value as ValuationRow);

  it('reads all 6,841 days of the real file, 1999 to 2026', () => {
    expect(parsed.read).toBe(6_841);
    expect(rows).toHaveLength(6_841);
    expect(rows[0]).toEqual({ name: 'Nifty 50', d: day('2026-07-01'), pe: 20.7, pb: 3.13, divYield: 1.23 });
    expect(rows.at(-1)).toEqual({
      name: 'Nifty 50',
      d: day('1999-01-01'),
      pe: 11.62,
      pb: 2.07,
      divYield: 1.83,
    });
  });

  it('rejects a row without any ratio', () => {
    const p = indexValuations.parse(
      source('v.csv', 'Date,Index Name,PE,PB,DivYield\n01 Jul 2026,Nifty 50,-,-,-\n'),
    );
    expect(p.rejections[0]?.reason).toBe('no ratio');
  });
});
