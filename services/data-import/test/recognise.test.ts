import { readFileSync } from 'node:fs';
import { IMPORT_KINDS, RECOGNISED_KINDS } from '@mdp/equities-data/import';
import { describe, expect, it } from 'vitest';
import { listFolder } from '../src/folder.ts';
import { plan } from '../src/import-folder.ts';
import { FILE_KINDS, recognise } from '../src/kinds.ts';

const REAL = new URL('../../../../shared/realdata/', import.meta.url).pathname;

async function kindOf(path: string, name = path.split('/').at(-1)!): Promise<string> {
  const head = readFileSync(`${REAL}${path}`).subarray(0, 4096);
  const r = recognise({ name, head });
  return 'kind' in r ? r.kind.name : `none: ${r.reason}`;
}

describe('recognising exchange files by name and header', () => {
  it('has a rule for every kind the equities service imports, and nothing else', () => {
    expect([...RECOGNISED_KINDS].sort()).toEqual(Object.keys(IMPORT_KINDS).sort());
    expect(FILE_KINDS.map((k) => k.name)).toEqual([
      'holidays',
      ...Object.keys(IMPORT_KINDS),
      'fo-lots',
      'fo-bhavcopy',
      'filings',
    ]);
  });

  it.each([
    ['nse_EQUITY_L_2026-07.csv', 'nse-securities'],
    ['nse_lists/SME_EQUITY_L.csv', 'nse-securities'],
    ['nse_lists/mf_close-end.csv', 'nse-securities'],
    ['nse_lists/eq_etfseclist.csv', 'nse-etfs'],
    ['nse_ind_nifty500list_2026-02.csv', 'nse-index'],
    ['bse_Equity_scrip_master_with_industry.csv', 'bse-scrips'],
    ['bse_lists/bse_ListOfScrips_all_status_2015-07.csv', 'bse-all-status'],
    ['nse_delisted/nse_delisted.csv', 'nse-delisted'],
    ['nse_lists/symbolchange.csv', 'nse-symbol-changes'],
    ['nse_lists/namechange.csv', 'nse-name-changes'],
    ['nse_cm_bhavcopy_2025-08_to_2026-07/cm_bhav_2026-07-23.csv', 'bhavcopy'],
    ['nse_sec_bhavdata_full_2025-03/sec_bhavdata_full_03Mar2025.csv', 'delivery'],
    ['nse_mto_delivery_2018-11_to_2020-01/MTO_20190607.csv', 'delivery'],
    ['nifty50_stocks_daily_2017-2022/LT.csv', 'daily-history'],
    ['nse_pr_2025-12-16/mcap16122025.csv', 'market-report'],
    ['nse_pr_2025-12-16/PE_161225.csv', 'market-report'],
    ['nse_xbrl_results/acc/01Feb2023_1811_INDAS_88297_783172_01022023061116_WEB.xml', 'nse-xbrl'],
    ['nse_deals/block_deals_2026-09_export.csv', 'nse-deals'],
    ['nse_bulk_deals_2026-08-21.csv', 'nse-deals'],
    ['nse_corp_actions/nse_corp_actions_api_sample.json', 'nse-corporate-actions'],
    ['nse_pr_2025-12-16/bc16122025.csv', 'nse-corporate-actions'],
    ['nse_ind_close_all_2025/ind_close_all_01012025.csv', 'index-close'],
    ['nifty50_pe_pb_divyield_1999-2026.csv', 'index-valuations'],
    ['fii_dii_cash_monthly_2007-2026.csv', 'fii-dii-cash'],
    ['nse_participant_oi_vol_fiider_2025/part_w_oi/fao_participant_oi_01082025.csv', 'nse-participants'],
    ['nse_participant_oi_vol_fiider_2025/fii_der/fii_stats_01-Aug-2025.csv', 'nse-fii-derivatives'],
    ['nse_fo/fo_mktlots_2026-08.csv', 'fo-lots'],
    ['nse_fo_udiff_full_day/BhavCopy_NSE_FO_reconstructed_20260327.csv', 'fo-bhavcopy'],
    ['nse_fo_udiff_NIFTY_BANKNIFTY_2025-01_2026-03/NIFTY_2026-02-20.csv', 'fo-bhavcopy'],
    ['nse_trading_holidays_weekday_1990-2025.csv', 'holidays'],
  ])('%s is %s', async (path, kind) => {
    expect(await kindOf(path)).toBe(kind);
  });

  it('a filing is known by the name the operator gives it, and a misnamed one says what name it needs', async () => {
    expect(await kindOf('pdfs/concall_irctc_Q3FY25.pdf', 'IRCTC_concall_Q3FY25_2025-02-13.pdf')).toBe(
      'filings',
    );
    expect(await kindOf('pdfs/concall_irctc_Q3FY25.pdf')).toMatch(
      /none: a document whose name is not <SYMBOL>_<doc_type>_<period>_<YYYY-MM-DD>/,
    );
  });

  it.each([
    ['nse_pr_2025-12-16/pr_readme.txt', 'National Stock Exchange'],
    ['nse_fo/FOVOLT_16122025.csv', 'Date, Symbol'],
    ['nse_lists/PREF.csv', 'SYMBOL, NAME OF COMPANY'],
    ['nse_option_chain_snapshots_2025-07/NIFTY_prev.csv', 'strikePrice'],
  ])('%s is not recognised, and the reason quotes its first line', async (path, quoted) => {
    const r = await kindOf(path);
    expect(r).toMatch(/^none: no kind matches its name and first line/);
    expect(r).toContain(quoted);
  });

  it('an empty file is named as empty', () => {
    expect(recognise({ name: 'bhav.csv', head: Buffer.alloc(0) })).toEqual({ reason: 'the file is empty' });
  });

  it('no real file matches two kinds', async () => {
    const { files } = await listFolder(REAL);
    const ambiguous: string[] = [];
    for (const f of files) {
      const r = recognise({ name: f.name, head: await f.head() });
      if ('reason' in r && r.reason.startsWith('it matches several kinds'))
        ambiguous.push(`${f.path}: ${r.reason}`);
    }
    expect(files.length).toBeGreaterThan(1000);
    expect(ambiguous).toEqual([]);
  });

  it('runs the stock master before prices, and brands after the master even without a brand file', () => {
    const kind = (name: string) => FILE_KINDS.find((k) => k.name === name)!;
    const file = (path: string) => ({
      path,
      name: path,
      size: 1,
      head: async () => Buffer.alloc(0),
      bytes: async () => Buffer.alloc(0),
    });
    const steps = plan([
      { file: file('bhav.csv'), kind: kind('bhavcopy') },
      { file: file('lots.csv'), kind: kind('fo-lots') },
      { file: file('EQUITY_L.csv'), kind: kind('nse-securities') },
    ]);
    expect(steps.map((s) => [s.kind.name, s.files.map((f) => f.path)])).toEqual([
      ['nse-securities', ['EQUITY_L.csv']],
      ['brands', []],
      ['bhavcopy', ['bhav.csv']],
      ['fo-lots', ['lots.csv']],
    ]);
    // A holiday list goes first, and alone it brings no brands step.
    expect(plan([{ file: file('holidays.json'), kind: kind('holidays') }]).map((s) => s.kind.name)).toEqual([
      'holidays',
    ]);
    expect(
      plan([
        { file: file('bhav.csv'), kind: kind('bhavcopy') },
        { file: file('holidays.json'), kind: kind('holidays') },
      ]).map((s) => s.kind.name),
    ).toEqual(['holidays', 'brands', 'bhavcopy']);
  });
});
