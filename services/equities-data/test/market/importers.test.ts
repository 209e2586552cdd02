import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { INSTRUMENT_SIDES, type ParticipantRow } from '@mdp/market';
import { day, formatDay } from '@mdp/nse-calendar';
import { describe, expect, it } from 'vitest';
import { fiiDiiCash, granularityOf } from '../../src/areas/market/importers/cash.ts';
import { nseFiiDerivatives } from '../../src/areas/market/importers/fii-stats.ts';
import { nseParticipants } from '../../src/areas/market/importers/participants.ts';
import { readSource, type SourceFile } from '../../src/importers/csv.ts';
import { ImportFileError } from '../../src/importers/report.ts';
import { REALDATA } from '../support.ts';

const CASH = join(REALDATA, 'fii_dii_cash_monthly_2007-2026.csv');
const FO = join(REALDATA, 'nse_participant_oi_vol_fiider_2025');
const files = (sub: string) =>
  readdirSync(join(FO, sub))
    .sort()
    .map((f) => join(FO, sub, f));
const text = (name: string, body: string): SourceFile => ({ path: name, name, text: body });
const values = <R>(p: { rows: { value: unknown }[] }) => p.rows.map((r) => r.value as R);

describe('fii-dii-cash on the real file', () => {
  const parsed = fiiDiiCash.parse(readSource(CASH));
  const rows = values<{ period: string; d: number; fiiBuy: number; fiiSell: number; diiBuy: number }>(parsed);

  it('reads every row (226 months, 2007-04 to 2026-01) and finds the file monthly', () => {
    // wc -l gives 227 lines: the header and 226 months from 2007-04-30 to 2026-01-27.
    expect(parsed.read).toBe(226);
    expect(parsed.rejections).toEqual([]);
    expect(rows.every((r) => r.period === 'month')).toBe(true);
    expect(formatDay(rows[0]!.d)).toBe('2007-04-30');
    // The last month is in progress: its figure runs to the 27th.
    expect(formatDay(rows.at(-1)!.d)).toBe('2026-01-27');
    // 2007-04-30,43647.59,41913.05,1734.54,10137.73,...
    expect(rows[0]).toMatchObject({ fiiBuy: 4_364_759, fiiSell: 4_191_305, diiBuy: 1_013_773 });
  });

  it('rejects rows whose net is not buy minus sell, and tells daily files from monthly ones', () => {
    const head =
      'trade_date,gross_purchase_fii,gross_sales_fii,net_purchase_sales_fii,gross_purchase_dii,gross_sales_dii,net_purchase_sales_dii\n';
    const daily = fiiDiiCash.parse(
      text(
        'daily.csv',
        `${head}2025-11-20,100.00,50.00,50.00,10.00,20.00,-10.00\n2025-11-21,100.00,50.00,49.99,1,1,0\n2025-11-22,1,1,0,1,1,0\n2025-11-24,1,2,-1,-1,1,-2\n`,
      ),
    );
    expect(daily.read).toBe(4);
    expect(values<{ period: string }>(daily)).toEqual([
      expect.objectContaining({ period: 'day', d: day('2025-11-20') }),
    ]);
    expect(daily.rejections.map((r) => [r.line, r.reason])).toEqual([
      [3, 'net is not gross purchase minus gross sales'],
      [5, 'negative gross amount'],
      // A Saturday.
      [4, 'not an NSE trading day'],
    ]);
    expect(granularityOf([day('2025-10-31'), day('2025-11-28')])).toBe('month');
    expect(granularityOf([day('2025-11-27'), day('2025-11-28')])).toBe('day');
    expect(granularityOf([day('2025-11-28')])).toBe('day');
    // One session a month is still daily unless the sessions are month ends.
    expect(granularityOf([day('2025-10-30'), day('2025-11-03')])).toBe('day');
    expect(granularityOf([day('2025-09-30'), day('2025-10-31'), day('2025-11-21')])).toBe('month');
    expect(() => fiiDiiCash.parse(text('bad.csv', 'trade_date,gross_purchase_fii\n2025-11-20,1\n'))).toThrow(
      ImportFileError,
    );
  });
});

describe('nse-participants on the real files', () => {
  it('reads the five rows of a day (client, DII, FII, pro, total) with the file’s figures', () => {
    const p = nseParticipants.parse(readSource(join(FO, 'part_w_oi', 'fao_participant_oi_01082025.csv')));
    expect(p.read).toBe(5);
    expect(p.rejections).toEqual([]);
    const rows = values<ParticipantRow>(p);
    expect(rows.map((r) => r.participant)).toEqual(['client', 'dii', 'fii', 'pro', 'total']);
    expect(rows.every((r) => r.kind === 'oi' && r.d === day('2025-08-01'))).toBe(true);
    // FII,16421,174605,3340768,2034752,283704,411973,361271,210981,20962,48180,45653,25760,...
    expect(rows[2]!.positions).toEqual({
      futIdxLong: 16421,
      futIdxShort: 174605,
      futStkLong: 3340768,
      futStkShort: 2034752,
      optIdxCallLong: 283704,
      optIdxPutLong: 411973,
      optIdxCallShort: 361271,
      optIdxPutShort: 210981,
      optStkCallLong: 20962,
      optStkPutLong: 48180,
      optStkCallShort: 45653,
      optStkPutShort: 25760,
    });
    const vol = nseParticipants.parse(readSource(join(FO, 'part_w_vol', 'fao_participant_vol_01082025.csv')));
    expect(values<ParticipantRow>(vol)[4]).toMatchObject({
      kind: 'volume',
      positions: { futIdxLong: 132590 },
    });
  });

  it('finds long = short per instrument on every real OI and volume file', () => {
    const all = [...files('part_w_oi'), ...files('part_w_vol')];
    // 104 OI files and 103 volume files, 2025-07-10 to 2025-12-11.
    expect(all).toHaveLength(207);
    for (const f of all) {
      const p = nseParticipants.parse(readSource(f));
      expect(p.rejections, f).toEqual([]);
      expect(p.read, f).toBe(5);
      const rows = values<ParticipantRow>(p);
      const total = rows.find((r) => r.participant === 'total')!.positions;
      for (const [long, short] of Object.values(INSTRUMENT_SIDES)) {
        // Every contract has a buyer and a seller: NSE's totals balance exactly...
        expect(total[long], `${f} ${long}`).toBe(total[short]);
        // ...and the participants' index-option OI is rounded to whole contracts, one at most each.
        const sum = (field: typeof long | typeof short) =>
          rows.filter((r) => r.participant !== 'total').reduce((a, r) => a + r.positions[field], 0);
        expect(Math.abs(sum(long) - sum(short)), `${f} ${long}`).toBeLessThanOrEqual(2);
      }
    }
  });

  it('rejects a day whose totals do not balance, and refuses a file that is not a participant file', () => {
    const good = readSource(join(FO, 'part_w_oi', 'fao_participant_oi_01082025.csv'));
    const unbalanced = nseParticipants.parse(
      text('x.csv', good.text.replace('TOTAL,321758,321758', 'TOTAL,321758,321759')),
    );
    expect(unbalanced.rows).toEqual([]);
    expect(unbalanced.rejections[0]!.reason).toBe('the total long and short contracts differ');
    const unsummed = nseParticipants.parse(text('v.csv', good.text.replace('FII,16421,', 'FII,16521,')));
    expect(unsummed.rejections.map((r) => r.reason)).toEqual(
      Array(5).fill('the participants do not add up to the total'),
    );
    expect(() => nseParticipants.parse(text('y.csv', good.text.replace('Open Interest', 'Margins')))).toThrow(
      ImportFileError,
    );
    expect(() =>
      nseParticipants.parse(text('z.csv', good.text.replace('as on Aug 01, 2025', 'as on'))),
    ).toThrow(ImportFileError);
    expect(() => nseParticipants.parse(text('w.csv', good.text.replace('\nPro,', '\nProp,')))).toThrow(
      /unknown client type/,
    );
  });
});

describe('nse-fii-derivatives on the real files', () => {
  it('reads the four instrument rows of a day', () => {
    const p = nseFiiDerivatives.parse(readSource(join(FO, 'fii_der', 'fii_stats_01-Aug-2025.csv')));
    expect(p.read).toBe(4);
    // INDEX FUTURES,11143,2100.74,31667,5921.43,191026,35444.4
    expect(p.rows[0]!.value).toEqual({
      d: day('2025-08-01'),
      instrument: 'index_futures',
      buyContracts: 11143,
      buyAmount: 210_074,
      sellContracts: 31667,
      sellAmount: 592_143,
      oiContracts: 191026,
      oiAmount: 3_544_440,
    });
    expect(p.rows.map((r) => (r.value as { instrument: string }).instrument)).toEqual([
      'index_futures',
      'index_options',
      'stock_futures',
      'stock_options',
    ]);
  });

  it('reads every real file, and agrees with the FII rows of the participant volume file', () => {
    const all = files('fii_der');
    expect(all).toHaveLength(103);
    for (const f of all) expect(nseFiiDerivatives.parse(readSource(f)).read, f).toBe(4);
    // INDEX OPTIONS bought 4,717,676 = FII index calls long 2,248,328 + puts long 2,469,348 (volume file).
    const stats = nseFiiDerivatives.parse(readSource(join(FO, 'fii_der', 'fii_stats_01-Aug-2025.csv')));
    expect((stats.rows[1]!.value as { buyContracts: number }).buyContracts).toBe(2_248_328 + 2_469_348);
  });
});
