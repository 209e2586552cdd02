import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dropSchema, migratedPool, type Pool } from '@mdp/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EquitiesDataset } from '../../src/areas/stocks/dataset.ts';
import { readDataset } from '../../src/areas/stocks/read.ts';
import { ImportFileError, runImport } from '../../src/importers/index.ts';
import { formatReport, type ImportReport } from '../../src/importers/report.ts';
import { DATABASE_URL, REALDATA } from '../support.ts';
import { HAND_WRITTEN, type SearchCase } from './search-set.ts';

// Every importer on the real exchange files in ../shared/realdata, into a fresh schema. The stock
// master and alias lists are imported whole; of the long price series, a month of bhavcopies and a
// few weeks of delivery files (the rest only adds run time). The report of every file is printed.
const schema = `eqimp_${randomBytes(5).toString('hex')}`;
const R = (p: string) => join(REALDATA, p);
const dir = (p: string, filter: (f: string) => boolean = () => true) =>
  readdirSync(R(p))
    .filter(filter)
    .sort()
    .map((f) => join(R(p), f));
const tmp = mkdtempSync(join(tmpdir(), 'eqimp-'));
let pool: Pool;
const reports: ImportReport[] = [];

async function imp(kind: string, files: string[]): Promise<ImportReport> {
  const report = await runImport(pool, kind, files);
  reports.push(report);
  return report;
}
const fileReport = (r: ImportReport, name: string) => r.files.find((f) => f.file.endsWith(name))!;
const one = async <T = Record<string, unknown>>(sql: string, params: unknown[] = []) =>
  (await pool.query(sql, params)).rows[0] as T;

const MASTER: [string, string[]][] = [
  [
    'nse-securities',
    [
      R('nse_EQUITY_L_2026-07.csv'),
      R('nse_lists/SME_EQUITY_L.csv'),
      R('nse_lists/REITS_L.csv'),
      R('nse_lists/INVITS_L.csv'),
      R('nse_lists/mf_close-end.csv'),
      R('nse_lists/IDR_W9.csv'),
    ],
  ],
  ['nse-etfs', [R('nse_lists/eq_etfseclist.csv')]],
  ['nse-index', [R('nse_ind_nifty500list_2026-02.csv'), R('nse_nifty750list_with_industry_2026-03.csv')]],
  ['bse-scrips', [R('bse_Equity_scrip_master_with_industry.csv')]],
  ['nse-delisted', [R('nse_delisted/nse_delisted.csv')]],
  ['bse-all-status', [R('bse_lists/bse_ListOfScrips_all_status_2015-07.csv')]],
  ['nse-symbol-changes', [R('nse_lists/symbolchange.csv')]],
  ['nse-name-changes', [R('nse_lists/namechange.csv')]],
  ['brands', []],
];
const BHAVCOPY = dir('nse_cm_bhavcopy_2025-08_to_2026-07', (f) => f.includes('2025-09-'));
const MTO = dir('nse_mto_delivery_2018-11_to_2020-01').slice(0, 10);
const HISTORIES = ['INFY', 'RELIANCE', 'TCS', 'SBIN', 'ITC'].map((s) =>
  R(`nifty50_stocks_daily_2017-2022/${s}.csv`),
);
const UDIFF = join(tmp, 'BhavCopy_NSE_CM_0_0_0_20260724_F_0000.csv');

beforeAll(async () => {
  pool = await migratedPool({
    url: DATABASE_URL,
    schema,
    dir: new URL('../../migrations/', import.meta.url).pathname,
    max: 4,
    applicationName: 'equities-import-test',
  });
  // No real UDiFF cash-market file is in the shared folder: this one follows NSE's UDiFF layout (the
  // same header as the real F&O UDiFF file there), with one equity row, one debt row and one F&O row.
  const header = readFileSync(
    R('nse_fo_udiff_full_day/BhavCopy_NSE_FO_reconstructed_20260327.csv'),
    'utf8',
  ).split(/\r?\n/)[0];
  writeFileSync(
    UDIFF,
    [
      header,
      '2026-07-24,2026-07-24,CM,NSE,STK,2885,INE002A01018,RELIANCE,EQ,,,,,RELIANCE INDUSTRIES LTD,1400.00,1420.50,1395.10,1412.30,1412.00,1398.70,,1412.30,,,5123456,7234567890.12,123456,F1,1,,,,,',
      '2026-07-24,2026-07-24,CM,NSE,STK,3045,INE062A01020,SBIN,EQ,,,,,STATE BANK OF INDIA,800.00,812.00,798.50,810.25,810.00,801.10,,810.25,,,9876543,7999999999.50,234567,F1,1,,,,,',
      '2026-07-24,2026-07-24,CM,NSE,STK,99999,IN0020230085,718GS2033,GS,,,,,GOI LOAN 7.18% 2033,100.10,100.20,100.00,100.15,100.15,100.05,,100.15,,,1500,150225.00,5,F1,1,,,,,',
      '2026-07-24,2026-07-24,FO,NSE,STF,35001,,RELIANCE,,2026-07-30,2026-07-30,,,RELIANCE26JULFUT,1401.00,1422.00,1396.00,1413.00,1413.00,1399.00,1412.30,1413.00,100,5,500,700000.00,50,F1,500,,,,,',
    ].join('\n'),
  );
});

afterAll(async () => {
  // What each real file gave, for the record of the run.
  console.log(reports.map(formatReport).join('\n'));
  await pool?.end();
  await dropSchema(DATABASE_URL, schema);
  rmSync(tmp, { recursive: true, force: true });
});

// Real files of thousands of rows each: on two cores at load 24 the master lists alone outlasted 30 s.
describe('importers on the real exchange files', { timeout: 120_000 }, () => {
  it('builds the stock master from the NSE and BSE lists, one stock per ISIN', async () => {
    const nse = await imp(...MASTER[0]!);
    expect(fileReport(nse, 'nse_EQUITY_L_2026-07.csv')).toMatchObject({
      read: 2384,
      loaded: 2384,
      rejected: 0,
    });
    expect(fileReport(nse, 'SME_EQUITY_L.csv')).toMatchObject({ read: 545, loaded: 545 });
    // A footnote row under the REIT list is reported, not loaded.
    expect(fileReport(nse, 'REITS_L.csv')).toMatchObject({ loaded: 3, rejected: 1 });
    expect((await imp(...MASTER[1]!)).loaded).toBe(320);
    const index = await imp(...MASTER[2]!);
    expect(index.rejected).toBe(1); // a dummy ISIN in the Nifty 750 list
    const bse = await imp(...MASTER[3]!);
    expect(bse).toMatchObject({ read: 4601, loaded: 4601, rejected: 0 });

    const reliance = await one(
      `SELECT symbol, bse_code, bse_symbol, macro_sector, sector, industry, basic_industry, status FROM stocks WHERE isin = 'INE002A01018'`,
    );
    expect(reliance).toEqual({
      symbol: 'RELIANCE',
      bse_code: '500325',
      bse_symbol: 'RELIANCE',
      macro_sector: 'Energy',
      sector: 'Oil, Gas & Consumable Fuels',
      industry: 'Petroleum Products',
      basic_industry: 'Refineries & Marketing',
      status: 'listed',
    });
    const types = await pool.query<{ stock_type: string; n: string }>(
      'SELECT stock_type, count(*) AS n FROM stocks GROUP BY 1 ORDER BY 1',
    );
    expect(Object.fromEntries(types.rows.map((r) => [r.stock_type, Number(r.n)]))).toMatchObject({
      etf: 320,
      reit: 3,
      invit: 5,
      closed_end_fund: 143,
      depository_receipt: 1,
    });
    // A BSE-only company is addressed by its BSE code.
    expect(
      await one(`SELECT count(*)::int AS n FROM stocks WHERE nse_symbol IS NULL AND symbol <> bse_code`),
    ).toEqual({ n: 0 });
  });

  it('adds the delisted and suspended companies: the real universe is well over 7,000 stocks', async () => {
    const nse = await imp(...MASTER[4]!);
    expect(nse.loaded).toBeGreaterThan(400);
    const bse = await imp(...MASTER[5]!);
    expect(bse.loaded).toBeGreaterThan(3_000);
    const counts = await one<{ all: number; listed: number; delisted: number; suspended: number }>(
      `SELECT count(*)::int AS all, count(*) FILTER (WHERE status = 'listed')::int AS listed,
              count(*) FILTER (WHERE status = 'delisted')::int AS delisted,
              count(*) FILTER (WHERE status = 'suspended')::int AS suspended FROM stocks`,
    );
    console.log('real universe:', counts);
    expect(counts.all).toBeGreaterThan(8_500);
    expect(counts.listed).toBeGreaterThan(5_500);
    expect(counts.delisted).toBeGreaterThan(1_500);
    expect(
      await one(`SELECT status, delisted_on::text, delisting_reason FROM stocks WHERE isin = 'INE144B01016'`),
    ).toEqual({
      status: 'delisted',
      delisted_on: '2002-04-15',
      delisting_reason: 'Voluntary Delisting',
    });
  });

  it('takes post-rename aliases from the symbol and name change lists, brands from the built-in list', async () => {
    const symbols = await imp(...MASTER[6]!);
    expect(symbols.loaded).toBeGreaterThan(600);
    expect(fileReport(symbols, 'symbolchange.csv').reasons['old and new symbol are the same']?.count).toBe(6);
    const names = await imp(...MASTER[7]!);
    expect(names.loaded).toBeGreaterThan(900);
    expect((await imp(...MASTER[8]!)).rejected).toBe(0);
    const aliases = await pool.query<{ kind: string; alias: string; until: string | null }>(
      `SELECT kind, alias, until::text FROM aliases a JOIN stocks s ON s.id = a.stock_id WHERE s.symbol = 'ETERNAL' ORDER BY kind, alias`,
    );
    expect(aliases.rows).toEqual([
      { kind: 'brand', alias: 'Blinkit', until: null },
      { kind: 'brand', alias: 'Zomato', until: null },
      { kind: 'former_name', alias: 'Zomato Limited', until: '2025-04-09' },
      { kind: 'former_symbol', alias: 'ZOMATO', until: '2025-04-09' },
    ]);
    // A chain of renames ends at today's symbol: TELCO → TATAMOTORS → TMPV.
    expect(
      await one(`SELECT s.symbol FROM aliases a JOIN stocks s ON s.id = a.stock_id WHERE a.alias = 'TELCO'`),
    ).toEqual({ symbol: 'TMPV' });
  });

  it('loads bhavcopies, legacy as found and UDiFF, resolving each symbol as it was on the day', async () => {
    const legacy = await imp('bhavcopy', BHAVCOPY);
    expect(BHAVCOPY).toHaveLength(22);
    expect(legacy.loaded).toBeGreaterThan(22 * 2_500);
    expect(
      fileReport(legacy, 'cm_bhav_2025-09-01.csv').reasons['not a stock series (debt, rights or other)'],
    ).toBeDefined();
    const bar = await one(
      `SELECT open, high, low, close, volume FROM daily_bars b JOIN stocks s ON s.id = b.stock_id
        WHERE s.symbol = 'RELIANCE' AND b.d = '2025-09-01'`,
    );
    expect(bar).toEqual({ open: 135600, high: 136320, low: 134060, close: 135390, volume: '11232238' });
    // Rows of TATAMOTORS in September 2025 are the bars of today's TMPV (renamed 2025-10-24).
    expect(
      await one(
        `SELECT close FROM daily_bars b JOIN stocks s ON s.id = b.stock_id WHERE s.symbol = 'TMPV' AND b.d = '2025-09-01'`,
      ),
    ).toEqual({ close: 69015 });

    const udiff = await imp('bhavcopy', [UDIFF]);
    expect(udiff.files[0]).toMatchObject({ read: 3, loaded: 2, rejected: 1 });
    expect(
      await one(
        `SELECT close, volume FROM daily_bars b JOIN stocks s ON s.id = b.stock_id WHERE s.symbol = 'SBIN' AND b.d = '2026-07-24'`,
      ),
    ).toEqual({ close: 81025, volume: '9876543' });
  });

  it('loads delivery from sec_bhavdata_full and MTO files, and per-symbol daily histories', async () => {
    const full = await imp('delivery', dir('nse_sec_bhavdata_full_2025-03'));
    expect(full.loaded).toBeGreaterThan(3 * 2_400);
    expect(
      await one(
        `SELECT close, volume, delivery_qty FROM daily_bars b JOIN stocks s ON s.id = b.stock_id WHERE s.symbol = '20MICRONS' AND b.d = '2025-03-03'`,
      ),
    ).toEqual({ close: 17229, volume: '118323', delivery_qty: '55599' });

    const history = await imp('daily-history', HISTORIES);
    expect(history).toMatchObject({ read: 5 * 1277, rejected: 0 });
    const mto = await imp('delivery', MTO);
    // Delivery attaches to the bars held (the five histories); other symbols have no bar those days.
    expect(mto.loaded).toBe(5 * 10);
    expect(fileReport(mto, 'MTO_20181115.csv').reasons).toHaveProperty([
      "no price bar held for this stock on 2018-11-15 (import that day's bhavcopy first)",
    ]);
    expect(
      await one(
        `SELECT delivery_qty FROM daily_bars b JOIN stocks s ON s.id = b.stock_id WHERE s.symbol = 'INFY' AND b.d = '2018-11-15'`,
      ),
    ).toEqual({ delivery_qty: '3270275' });
  });

  it('loads market cap and P/E from the market report', async () => {
    const report = await imp('market-report', [
      R('nse_pr_2025-12-16/mcap16122025.csv'),
      R('nse_pr_2025-12-16/PE_161225.csv'),
    ]);
    expect(fileReport(report, 'mcap16122025.csv').loaded).toBeGreaterThan(2_700);
    expect(fileReport(report, 'PE_161225.csv').loaded).toBeGreaterThan(2_000);
    expect(
      await one(
        `SELECT close, issue_size, pe IS NOT NULL AS has_pe FROM market_reports m JOIN stocks s ON s.id = m.stock_id WHERE s.symbol = 'RELIANCE'`,
      ),
    ).toEqual({ close: 154230, issue_size: '13532472634', has_pe: true });
  });

  it('is idempotent: importing everything again changes nothing', async () => {
    const checksum = async () =>
      one<{ stocks: string; aliases: string; bars: string; reports: string }>(
        `SELECT (SELECT md5(string_agg(t::text, '|' ORDER BY id)) FROM stocks t) AS stocks,
                (SELECT md5(string_agg(t::text, '|' ORDER BY stock_id, kind, alias)) FROM aliases t) AS aliases,
                (SELECT md5(string_agg(t::text, '|' ORDER BY stock_id, d)) FROM daily_bars t) AS bars,
                (SELECT md5(string_agg(t::text, '|' ORDER BY stock_id, d)) FROM market_reports t) AS reports`,
      );
    const before = await checksum();
    const again: [string, string[]][] = [
      ...MASTER,
      ['bhavcopy', [...BHAVCOPY.slice(0, 3), UDIFF]],
      ['delivery', [...dir('nse_sec_bhavdata_full_2025-03'), ...MTO]],
      ['daily-history', HISTORIES],
      ['market-report', [R('nse_pr_2025-12-16/mcap16122025.csv'), R('nse_pr_2025-12-16/PE_161225.csv')]],
    ];
    for (const [kind, files] of again) {
      const r = await runImport(pool, kind, files);
      expect(r.changed, kind).toBe(0);
    }
    expect(await checksum()).toEqual(before);
  });

  it('refuses a malformed file with its name and line, and loads nothing of the import', async () => {
    const count = async () => one<{ n: number }>('SELECT count(*)::int AS n FROM daily_bars');
    const before = await count();
    const good = readFileSync(BHAVCOPY[0]!, 'utf8').split('\n');
    const bad = join(tmp, 'cm_bhav_bad.csv');
    writeFileSync(
      bad,
      [...good.slice(0, 40), good[40]!.replace(/,\d+(\.\d+)?,/, ',12..5,'), ...good.slice(41)].join('\n'),
    );
    // The good file first: the import is all or nothing.
    const err = await runImport(pool, 'bhavcopy', [BHAVCOPY[1]!, bad]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ImportFileError);
    expect((err as Error).message).toMatch(/cm_bhav_bad\.csv:41: OPEN "12\.\.5" is not a number/);
    expect(await count()).toEqual(before);

    const wrong = join(tmp, 'not-a-bhavcopy.csv');
    writeFileSync(wrong, 'a,b,c\n1,2,3\n');
    await expect(runImport(pool, 'bhavcopy', [wrong])).rejects.toThrow(
      /not-a-bhavcopy\.csv:1: missing column\(s\) SYMBOL/,
    );
    const broken = join(tmp, 'broken-quotes.csv');
    writeFileSync(
      broken,
      `${readFileSync(R('nse_EQUITY_L_2026-07.csv'), 'utf8').slice(0, 300)}"unclosed,x\n`,
    );
    await expect(runImport(pool, 'nse-securities', [broken])).rejects.toThrow(
      /broken-quotes\.csv:\d+: not valid CSV/,
    );
    await expect(runImport(pool, 'bhavcopy', [join(tmp, 'missing.csv')])).rejects.toThrow(
      /missing\.csv:0: cannot read/,
    );
  });

  it('finds the expected company first for at least 95% of 100+ real-world queries', async () => {
    const ds = new EquitiesDataset(await readDataset(pool));
    const nifty = readFileSync(R('nse_ind_nifty500list_2026-02.csv'), 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => l.split(','))
      .filter((_, i) => i % 10 === 0);
    const cases: SearchCase[] = [
      ...HAND_WRITTEN,
      ...nifty.map(([, , symbol]) => ({ q: symbol!, top: symbol!, kind: 'symbol' as const })),
      ...nifty.map(([, , symbol, , isin]) => ({ q: isin!.trim(), top: symbol!, kind: 'isin' as const })),
      ...nifty.slice(0, 20).flatMap(([, , symbol]) => {
        const code = ds.resolve(symbol!)?.row.bseCode;
        return code ? [{ q: code, top: symbol!, kind: 'bse_code' as const }] : [];
      }),
    ];
    expect(cases.length).toBeGreaterThanOrEqual(100);
    const misses: string[] = [];
    for (const c of cases) {
      const r = ds.search.search({ q: c.q, sector: c.sector, industry: c.industry, limit: 5 });
      const got = r.hits.map((h) => ds.entries[h]!.row.symbol);
      if (got[0] !== c.top)
        misses.push(`${c.kind} "${c.q}": wanted ${c.top}, got ${got.join(', ') || 'nothing'}`);
    }
    const rate = 1 - misses.length / cases.length;
    console.log(
      `search test set: ${cases.length - misses.length}/${cases.length} top-1 (${(rate * 100).toFixed(1)}%)`,
      misses,
    );
    expect(rate).toBeGreaterThanOrEqual(0.95);
  });
});
