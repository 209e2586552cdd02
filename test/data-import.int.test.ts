import { execFile } from 'node:child_process';
import { once } from 'node:events';
import {
  copyFileSync,
  createWriteStream,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createPool } from '@mdp/db';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import yazl from 'yazl';
import { DATABASE_URL, PATIENT_DEADLINES, STACK_SHUTDOWN_MS, type Stack, startStack } from './stack.ts';

// `make import` on a folder assembled from the real NSE/BSE files as an operator would download them:
// every kind the services accept, nested folders, zips (one holding a whole PR-zip day with files no
// kind reads), an unknown file and one corrupt file. Then the platform answers with that data.

const REAL = new URL('../../shared/realdata/', import.meta.url).pathname;
const BHAV_DIR = 'nse_cm_bhavcopy_2025-08_to_2026-07/';
const bhavDays = readdirSync(`${REAL}${BHAV_DIR}`).sort().slice(-6);
const LAST_BHAV = bhavDays.at(-1)!;

let dir: string;
let stack: Stack;
let token: string;
let env: NodeJS.ProcessEnv;

function put(from: string, to: string): void {
  mkdirSync(dirname(join(dir, to)), { recursive: true });
  copyFileSync(`${REAL}${from}`, join(dir, to));
}

async function zip(to: string, members: [string, string][]): Promise<void> {
  const z = new yazl.ZipFile();
  for (const [from, name] of members) z.addFile(`${REAL}${from}`, name);
  z.end();
  mkdirSync(dirname(join(dir, to)), { recursive: true });
  const out = z.outputStream.pipe(createWriteStream(join(dir, to)));
  await once(out, 'close');
}

async function assemble(): Promise<void> {
  put('nse_EQUITY_L_2026-07.csv', 'lists/EQUITY_L.csv');
  put('nse_lists/SME_EQUITY_L.csv', 'lists/SME_EQUITY_L.csv');
  put('nse_lists/eq_etfseclist.csv', 'lists/eq_etfseclist.csv');
  put('nse_ind_nifty500list_2026-02.csv', 'lists/ind_nifty500list.csv');
  put('nse_lists/symbolchange.csv', 'lists/symbolchange.csv');
  put('nse_lists/namechange.csv', 'lists/namechange.csv');
  put('nse_delisted/nse_delisted.csv', 'lists/delisted.csv');
  put('bse_Equity_scrip_master_with_industry.csv', 'bse/Equity.csv');
  put('bse_lists/bse_ListOfScrips_all_status_2015-07.csv', 'bse/ListOfScrips.csv');
  // Three days loose in a nested folder, three (the last among them) in a zip.
  for (const day of bhavDays.slice(0, 3)) put(`${BHAV_DIR}${day}`, `equities/2026/07/${day}`);
  await zip(
    'equities/bhavcopies.zip',
    bhavDays.slice(3).map((d) => [`${BHAV_DIR}${d}`, `cm/${d}`]),
  );
  put(
    'nse_sec_bhavdata_full_2025-03/sec_bhavdata_full_03Mar2025.csv',
    'equities/sec_bhavdata_full_03032025.csv',
  );
  put('nse_mto_delivery_2018-11_to_2020-01/MTO_20190607.csv', 'equities/MTO_20190607.csv');
  put('nifty50_stocks_daily_2017-2022/LT.csv', 'history/LT.csv');
  // A PR zip as NSE publishes it: market report files, corporate actions, and files no kind reads.
  await zip('PR161225.zip', [
    ['nse_pr_2025-12-16/mcap16122025.csv', 'mcap16122025.csv'],
    ['nse_pr_2025-12-16/PE_161225.csv', 'PE_161225.csv'],
    ['nse_pr_2025-12-16/bc16122025.csv', 'bc16122025.csv'],
    ['nse_pr_2025-12-16/pr_readme.txt', 'readme.txt'],
  ]);
  const xbrl = '01Feb2023_1811_INDAS_88297_783172_01022023061116_WEB.xml';
  put(`nse_xbrl_results/acc/${xbrl}`, `results/ACC/${xbrl}`);
  put('nse_deals/block_16122025.csv', 'deals/block.csv');
  put('nse_bulk_deals_2026-08-21.csv', 'deals/bulk.csv');
  put('nse_corp_actions/nse_corp_actions_api_sample.json', 'corporate/actions.json');
  put('nse_ind_close_all_2025/ind_close_all_01012025.csv', 'indices/ind_close_all_01012025.csv');
  put('nifty50_pe_pb_divyield_1999-2026.csv', 'indices/nifty50_pe_pb_divyield.csv');
  put('fii_dii_cash_monthly_2007-2026.csv', 'flows/fii_dii_cash.csv');
  put(
    'nse_participant_oi_vol_fiider_2025/part_w_oi/fao_participant_oi_01082025.csv',
    'flows/fao_participant_oi_01082025.csv',
  );
  put(
    'nse_participant_oi_vol_fiider_2025/part_w_vol/fao_participant_vol_01082025.csv',
    'flows/fao_participant_vol_01082025.csv',
  );
  put(
    'nse_participant_oi_vol_fiider_2025/fii_der/fii_stats_01-Aug-2025.csv',
    'flows/fii_stats_01-Aug-2025.csv',
  );
  put('nse_fo/fo_mktlots_2026-08.csv', 'fo/fo_mktlots.csv');
  await zip('fo/fo_27032026.zip', [
    ['nse_fo_udiff_NIFTY_BANKNIFTY_2025-01_2026-03/NIFTY_2026-03-27.csv', 'NIFTY_2026-03-27.csv'],
    ['nse_fo_udiff_NIFTY_BANKNIFTY_2025-01_2026-03/BANKNIFTY_2026-03-27.csv', 'BANKNIFTY_2026-03-27.csv'],
  ]);
  put('pdfs/concall_irctc_Q3FY25.pdf', 'filings/IRCTC_concall_Q3FY25_2025-02-13.pdf');
  // Brands are public knowledge rather than exchange files: an operator's own list adds to the built-in one.
  writeFileSync(join(dir, 'brands.csv'), 'symbol,brand\nIRCTC,Bharat Gaurav Trains\n');
  put('nse_fo/FOVOLT_16122025.csv', 'fo/FOVOLT_16122025.csv');
  // Corrupt: one closing level of an index file is not a number (line 6).
  const lines = readFileSync(`${REAL}nse_ind_close_all_2025/ind_close_all_02012025.csv`, 'latin1').split(
    '\n',
  );
  const cells = lines[5]!.split(',');
  cells[5] = '1624l.95';
  lines[5] = cells.join(',');
  writeFileSync(join(dir, 'indices/ind_close_all_02012025.csv'), lines.join('\n'), 'latin1');
}

const run = (...args: string[]) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      'make',
      ['-s', 'import', `DIR=${dir}`, ...args],
      { env, maxBuffer: 16 << 20 },
      (err, stdout, stderr) =>
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });

const get = async (path: string) => {
  const res = await fetch(`${stack.baseUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, body: (await res.json()) as { data: Record<string, unknown> & unknown[] } };
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mdp-import-'));
  await assemble();
  // What the import changes is the question, not the deadlines: a first call to services just started
  // beside the suite may outwait production's 300 ms.
  stack = await startStack(PATIENT_DEADLINES);
  token = (await stack.admin('demo-token', '--plan', 'pro')).split('\n').at(-1)!;
  env = { ...process.env, ...stack.importEnv() };
}, 300_000);

afterAll(async () => {
  await stack?.shutdown();
  if (dir) rmSync(dir, { recursive: true, force: true });
}, STACK_SHUTDOWN_MS);

describe('make import DIR=<folder of real exchange files>', () => {
  let first: { code: number; stdout: string; stderr: string };

  it('recognises every kind, reports unknown files, and stops only the corrupt file’s kind, naming file:line', async () => {
    first = await run();
    const out = first.stdout;
    // The tool exits 1 when a kind failed; make reports any failed recipe as 2.
    expect(first.code, first.stderr).toBe(2);
    expect(first.stderr).toMatch(/Error 1/);
    for (const kind of [
      'nse-securities',
      'nse-etfs',
      'nse-index',
      'bse-scrips',
      'nse-delisted',
      'bse-all-status',
      'nse-symbol-changes',
      'nse-name-changes',
      'brands',
      'bhavcopy',
      'daily-history',
      'delivery',
      'market-report',
      'nse-xbrl',
      'nse-deals',
      'nse-corporate-actions',
      'index-valuations',
      'fii-dii-cash',
      'nse-participants',
      'nse-fii-derivatives',
      'fo-lots',
      'fo-bhavcopy',
      'filings',
    ])
      expect(out).toMatch(
        new RegExp(
          `^  ${kind} +\\d+ files? +read [\\d,]+, loaded [\\d,]+, rejected [\\d,]+, [\\d,]+ changed`,
          'm',
        ),
      );
    expect(out).toMatch(
      /^ {2}index-close +FAILED \(2 files\), nothing of this kind written: indices\/ind_close_all_02012025\.csv:6: CLOSING INDEX VALUE "1624l\.95" is not a number/m,
    );
    expect(out).toMatch(/^ {2}bhavcopy +6 files/m);
    expect(out).toContain('(3 zip archives opened)');
    // Rows rejected are counted by reason with places to look.
    expect(out).toMatch(
      /^ {6}[\d,]+ × symbol not in the stock master .*\(e\.g\. equities\/(2026\/07\/|bhavcopies\.zip\/cm\/)\S+:\d+/m,
    );
    // Files not recognised are grouped by the kind of their reason, with their first lines and paths.
    expect(out).toMatch(/^not recognised: \d+ files \(--json lists each\)$/m);
    const noKind = out
      .split('\n')
      .find((l) => / × no kind matches its name and first line \("<value>"\)/.test(l));
    expect(noKind).toMatch(/^ {2}\d+ × .*; \d+ distinct values: .*"National Stock Exchange/);
    expect(noKind).toContain('PR161225.zip/readme.txt');
    expect(noKind).toContain('fo/FOVOLT_16122025.csv');
    expect(out).toMatch(/^total: loaded [\d,]+, rejected [\d,]+, [\d,]+ changed, in [\d.]+ s$/m);
    expect(out).toMatch(/^FAILED kinds: index-close/m);
    // Progress went to stderr, one line per kind when not on a terminal.
    expect(first.stderr).toMatch(/^import: bhavcopy: 6 file\(s\)\.\.\.$/m);
  }, 240_000);

  it('writes nothing of the failed kind and everything of the others', async () => {
    const pool = createPool({
      url: DATABASE_URL,
      schema: env.EQUITIES_DB_SCHEMA!,
      max: 1,
      applicationName: 'test',
    });
    try {
      const count = async (table: string) =>
        Number((await pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`)).rows[0]!.n);
      // Index levels come only from the index-close files; the P/E history (another kind) is there.
      expect(await count('index_bars WHERE close IS NOT NULL')).toBe(0);
      expect(await count('index_bars WHERE pe IS NOT NULL')).toBeGreaterThan(5_000);
      expect(await count('daily_bars')).toBeGreaterThan(10_000);
      // Delivery figures of a day only the per-symbol history holds: daily-history ran before delivery.
      const lt = await pool.query<{ q: string }>(
        `SELECT b.delivery_qty AS q FROM daily_bars b JOIN stocks s ON s.id = b.stock_id WHERE s.symbol = 'LT' AND b.d = '2019-06-07'`,
      );
      expect(Number(lt.rows[0]?.q)).toBeGreaterThan(0);
    } finally {
      await pool.end();
    }
  });

  it('a second run changes nothing and says so', async () => {
    const again = await run();
    expect(again.code).toBe(2); // the corrupt file is still there
    expect(again.stdout).toMatch(/^total: loaded [\d,]+, rejected [\d,]+, 0 changed/m);
    expect(again.stdout).toContain('nothing changed: everything else in this folder was imported before');
    expect(again.stdout).toMatch(/^ {2}fo-bhavcopy +2 files .*unchanged \(2 files imported before\)/m);
    for (const line of again.stdout
      .split('\n')
      .filter((l) => /^ {2}[a-z-]+ +(\d+ files?|built-in) +read/.test(l)))
      expect(line).toMatch(/unchanged/);
  }, 240_000);

  it('the platform then serves the real data: RELIANCE’s quote is the last bhavcopy’s close', async () => {
    const rows = parse(readFileSync(`${REAL}${BHAV_DIR}${LAST_BHAV}`), { columns: true }) as Record<
      string,
      string
    >[];
    const close = Number(rows.find((r) => r.SYMBOL === 'RELIANCE' && r.SERIES === 'EQ')!.CLOSE);
    expect(close).toBeGreaterThan(0);
    let quote: { status: number; body: { data: Record<string, unknown> } } | undefined;
    const until = Date.now() + 30_000;
    while (Date.now() < until) {
      quote = await get('/v1/stocks/RELIANCE/quote');
      if (quote.status === 200 && quote.body.data.ltp === close) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(quote?.status).toBe(200);
    expect(quote?.body.data.ltp).toBe(close);
    // The operator's brand file and the built-in list both find their owner.
    const brand = await get('/v1/stocks?q=bharat%20gaurav%20trains&limit=1');
    expect((brand.body.data as unknown as { symbol: string }[])[0]?.symbol).toBe('IRCTC');
    const campa = await get('/v1/stocks?q=campa%20cola&limit=1');
    expect((campa.body.data as unknown as { symbol: string }[])[0]?.symbol).toBe('RELIANCE');
    // The options service serves the imported day's chain, the filings service the filing.
    const chain = await get('/v1/options/NIFTY/chain?strikes=2');
    expect(chain.status).toBe(200);
    expect(String(chain.body.data.snapshot_ts)).toMatch(/^2026-03-27/);
    const docs = await get('/v1/stocks/IRCTC/documents');
    expect(docs.status).toBe(200);
    expect(docs.body.data).toHaveLength(1);
  }, 60_000);
});
