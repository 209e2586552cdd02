import { day } from '@mdp/nse-calendar';
import { describe, expect, it } from 'vitest';
import type { CorporateActionFileRow } from '../../src/areas/corporate/importers/corporate-actions.ts';
import { corporateActionsKind } from '../../src/areas/corporate/importers/corporate-actions.ts';
import { type DealFileRow, nseDeals } from '../../src/areas/corporate/importers/deals.ts';
import { parsePurpose } from '../../src/areas/corporate/importers/purpose.ts';
import { readSource } from '../../src/importers/csv.ts';
import { REALDATA } from '../support.ts';

const parse = <R>(kind: { parse: typeof nseDeals.parse }, path: string) => {
  const parsed = kind.parse(readSource(`${REALDATA}${path}`));
  return { ...parsed, values: parsed.rows.map((r) => r.value as R) };
};

describe('NSE bulk and block deal files', () => {
  it('reads the archive bulk-deal file (two-digit years, decimals in quantities), every row', () => {
    const { values, rejections, read } = parse<DealFileRow>(
      nseDeals,
      'nse_bulk_deals_2024-09_to_2026-05.csv',
    );
    expect(read).toBe(32_247);
    expect(rejections).toEqual([]);
    expect(values[0]).toEqual({
      symbol: 'AARTECH',
      d: day('2024-09-25'),
      kind: 'bulk',
      client: 'NAYAN SURESH GUPTA',
      side: 'buy',
      quantity: 154_239,
      price: 7_105,
      remarks: null,
    });
    expect(values.at(-1)).toMatchObject({
      symbol: 'VALUE360',
      d: day('2026-05-11'),
      client: 'NOVA GLOBAL OPPORTUNITIES FUND PCC - TOUCHSTONE',
      side: 'buy',
      quantity: 180_000,
      price: 7_840,
    });
  });

  it('reads the one-day bulk file with four-digit years', () => {
    const { values } = parse<DealFileRow>(nseDeals, 'nse_bulk_deals_2026-08-21.csv');
    expect(values).toHaveLength(127);
    expect(values[2]).toMatchObject({
      symbol: 'AMAGI',
      d: day('2026-08-21'),
      kind: 'bulk',
      client: 'SBI MUTUAL FUND',
      side: 'buy',
      quantity: 3_248_305,
      price: 56_000,
    });
  });

  it('reads the archive block file without a remarks column', () => {
    const { values } = parse<DealFileRow>(nseDeals, 'nse_deals/block_16122025.csv');
    expect(values).toHaveLength(7);
    expect(values[1]).toEqual({
      symbol: 'SBFC',
      d: day('2025-12-16'),
      kind: 'block',
      client: 'TATA AIA LIFE INSURANCE COMPANY LIMITED',
      side: 'buy',
      quantity: 8_231_223,
      price: 10_514,
      remarks: null,
    });
  });

  it('reads the website block export with Indian digit grouping in quoted numbers', () => {
    const { values } = parse<DealFileRow>(nseDeals, 'nse_deals/block_deals_2026-09_export.csv');
    expect(values).toHaveLength(14);
    expect(values[0]).toMatchObject({
      symbol: 'ASIANPAINT',
      d: day('2026-09-17'),
      kind: 'block',
      client: 'JALAJ A DANI',
      side: 'sell',
      quantity: 164_000,
      price: 244_000,
    });
    expect(values[11]).toMatchObject({
      symbol: 'RHIM',
      d: day('2026-09-22'),
      client: 'DALMIA BHARAT REFRACTORIES LIMITED',
      side: 'sell',
      quantity: 22_941_224,
      price: 36_000,
    });
  });
});

describe('NSE corporate-action wording', () => {
  // Every wording of the two real samples (API subjects and bc-file PURPOSE values).
  const cases: [string, unknown][] = [
    [
      'Face Value Split (Sub-Division) - From Rs 10/- Per Share To Re 1/- Per Share',
      { kind: 'split', ratioNew: 10, ratioOld: 1 },
    ],
    [
      'Face Value Split (Sub-Division) - From Rs 10/- Per Share To Rs 2/- Per Share',
      { kind: 'split', ratioNew: 5, ratioOld: 1 },
    ],
    [
      'Face Value Split (Sub-Division) - From Rs 4/- Per Share To Rs 2/- Per Share',
      { kind: 'split', ratioNew: 2, ratioOld: 1 },
    ],
    ['FV SPLT FRM RS 10 TO RS 2', { kind: 'split', ratioNew: 5, ratioOld: 1 }],
    ['FVSPLT FRM RS 10 TO RS 5', { kind: 'split', ratioNew: 2, ratioOld: 1 }],
    [
      'Consolidation Of Equity Shares From Re 1 Per Share To Rs 10 Per Share',
      { kind: 'split', ratioNew: 1, ratioOld: 10 },
    ],
    ['Bonus 1:1', { kind: 'bonus', ratioNew: 2, ratioOld: 1 }],
    ['Bonus 2:1', { kind: 'bonus', ratioNew: 3, ratioOld: 1 }],
    ['Bonus- 1:2', { kind: 'bonus', ratioNew: 3, ratioOld: 2 }],
    ['BONUS 1:1', { kind: 'bonus', ratioNew: 2, ratioOld: 1 }],
    ['Bonus Ncrps 1:116', { kind: 'other' }],
    ['Dividend - Rs 2 Per Share', { kind: 'dividend', amount: 2 }],
    ['Dividend - Rs 2.50 Per Share', { kind: 'dividend', amount: 2.5 }],
    ['Dividend - Re 0.50 Per Share', { kind: 'dividend', amount: 0.5 }],
    ['Dividend - Rs 0.005 Per Share', { kind: 'dividend', amount: 0.005 }],
    [' Interim Dividend - Rs 12.50 Per Share', { kind: 'dividend', amount: 12.5 }],
    ['INTDIV - RS 7 PER SH', { kind: 'dividend', amount: 7 }],
    ['INTDIV - RS 0.35 PER SH', { kind: 'dividend', amount: 0.35 }],
    ['INTDIV - RS 5 PER SH', { kind: 'dividend', amount: 5 }],
    [' Rights:14 Compulosry Convertible Debentures For Every 15 Equity Shares', { kind: 'rights' }],
    ['RIGHTS 45:301@PRM RS 290', { kind: 'rights' }],
    [' Demerger', { kind: 'demerger' }],
    ['DEMERGER', { kind: 'demerger' }],
    ['BUY BACK', { kind: 'buyback' }],
    ['CAP RED', { kind: 'capital_reduction' }],
    ['INTEREST PAYMENT', { kind: 'other' }],
    ['REDEMPTION', { kind: 'other' }],
    ['INT PAYMENT/PART REDEMPTN', { kind: 'other' }],
    ['INT PAYMENT/PART REDMPTN', { kind: 'other' }],
    ['INT PYMNT/PART REDEMPTN', { kind: 'other' }],
    ['INTRST PAYMNT/PRT RDMPTN', { kind: 'other' }],
  ];
  it.each(cases)('reads "%s"', (wording, expected) => {
    const parsed = parsePurpose(wording);
    expect(parsed).toMatchObject(expected as object);
    expect(parsed.description).toBe(wording.trim());
  });

  it('covers every wording of both real files', () => {
    const api = JSON.parse(readSource(`${REALDATA}nse_corp_actions/nse_corp_actions_api_sample.json`).text);
    const bc = readSource(`${REALDATA}nse_pr_2025-12-16/bc16122025.csv`).text.split('\n').slice(1);
    const wordings = new Set([
      ...api.map((r: { subject: string }) => r.subject),
      ...bc.filter((l) => l.trim()).map((l) => l.split(',').at(-1)!.trim()),
    ]);
    const tested = new Set(cases.map(([w]) => w));
    expect([...wordings].filter((w) => !tested.has(w))).toEqual([]);
  });
});

describe('NSE corporate-action files', () => {
  it('reads the API sample: splits, bonuses, consolidations, dividends, rights and demergers', () => {
    const { values, rejections } = parse<CorporateActionFileRow>(
      corporateActionsKind,
      'nse_corp_actions/nse_corp_actions_api_sample.json',
    );
    expect(rejections).toEqual([]);
    expect(values).toHaveLength(21);
    expect(values[0]).toMatchObject({
      symbol: 'PAVNAIND',
      isin: 'INE07S101020',
      exDate: day('2025-09-01'),
      action: { kind: 'split', ratioNew: 10, ratioOld: 1 },
    });
    expect(values.find((v) => v.symbol === 'RMDRIP' && v.action.kind === 'dividend')).toMatchObject({
      exDate: day('2025-09-08'),
      recordDate: day('2025-09-09'),
      action: { amount: 0.5 },
    });
    expect(values.find((v) => v.symbol === 'AJANTPHARM')).toMatchObject({
      exDate: day('2022-06-22'),
      action: { kind: 'bonus', ratioNew: 3, ratioOld: 2 },
    });
    expect(values.find((v) => v.symbol === 'VERTOZ')!.action).toMatchObject({
      kind: 'split',
      ratioNew: 1,
      ratioOld: 10,
    });
    expect(values.find((v) => v.symbol === 'TATACOMM')!.action.kind).toBe('demerger');
  });

  it('reads the bc file: equity series only, one row per action across EQ/BE and SME series', () => {
    const { values, rejections } = parse<CorporateActionFileRow>(
      corporateActionsKind,
      'nse_pr_2025-12-16/bc16122025.csv',
    );
    expect(values.map((v) => v.symbol)).toEqual([
      'ARSSINFRA',
      'CANFINHOME',
      'DCMSRIND',
      'ECLERX',
      'GML',
      'IOC',
      'KMEW',
      'KRISHIVAL',
      'LALPATHLAB',
      'NECLIFE',
      'NUVAMA',
    ]);
    expect(rejections.length).toBe(217 - 11);
    expect(values.find((v) => v.symbol === 'LALPATHLAB')).toMatchObject({
      exDate: day('2025-12-19'),
      recordDate: day('2025-12-19'),
      action: { kind: 'bonus', ratioNew: 2, ratioOld: 1 },
    });
    expect(values.find((v) => v.symbol === 'IOC')!.action).toMatchObject({ kind: 'dividend', amount: 5 });
    expect(values.find((v) => v.symbol === 'NUVAMA')).toMatchObject({
      exDate: day('2025-12-26'),
      action: { kind: 'split', ratioNew: 5, ratioOld: 1 },
    });
  });
});
