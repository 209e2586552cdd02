import { readdirSync } from 'node:fs';
import { status } from '@mdp/grpc';
import { type GeneratedDataset, generateDataset, generateFinancials } from '@mdp/market';
import { day } from '@mdp/nse-calendar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { financialsDocument } from '../../src/areas/financials/document.ts';
import { financialsArea } from '../../src/areas/financials/index.ts';
import { pgFinancialsSource } from '../../src/areas/financials/store.ts';
import { run } from '../../src/cli.ts';
import { runImport } from '../../src/importers/index.ts';
import { grpcError, type ServiceEnv, startService } from '../grpc-env.ts';
import { clockAt, REALDATA, readDocument } from '../support.ts';

// A generated dataset loaded through the CLI into a fresh schema, plus the six companies of the real
// XBRL filings, served by the real gRPC server and called through the real client.
const SIZE = 300;
const END = '2026-11-20';
const SEED = 20_260_101;
const logged: string[] = [];
const io = { log: (line: string) => logged.push(line), now: clockAt('2026-11-22') };
const XBRL = `${REALDATA}nse_xbrl_results/`;
const REAL = [
  ['INFY', 'Infosys Limited', 'INE009A01021'],
  ['SBIN', 'State Bank of India', 'INE062A01020'],
  ['BAJFINANCE', 'Bajaj Finance Limited', 'INE296A01024'],
  ['ITC', 'ITC Limited', 'INE154A01025'],
  ['TATASTEEL', 'Tata Steel Limited', 'INE081A01020'],
  ['ACC', 'ACC Limited', 'INE012A01025'],
] as const;
let env: ServiceEnv;
let generated: GeneratedDataset;

beforeAll(async () => {
  env = await startService({ prefix: 'eqfin', clock: clockAt('2026-11-22'), areas: [financialsArea] });
  const { pool } = env;
  await run(pool, ['load-default', '--size', String(SIZE), '--end', END, '--seed', String(SEED)], io);
  for (const [symbol, name, isin] of REAL)
    await pool.query(`INSERT INTO stocks (symbol, name, isin, nse_symbol) VALUES ($1, $2, $3, $1)`, [
      symbol,
      name,
      isin,
    ]);
  generated = generateDataset({ seed: SEED, size: SIZE, endDay: day(END), historyDays: 2_200 });
  await env.reload();
}, 300_000);

afterAll(async () => {
  await env?.close();
});

const SECTIONS = ['quarterly', 'profit_loss', 'balance_sheet', 'cash_flow', 'ratios'];

describe('GetFinancials over generated data', () => {
  it('is loaded with the generated dataset, for every listed company', async () => {
    expect(logged).toContainEqual(expect.stringMatching(/^\d+ statement periods of \d+ companies$/));
    let expected = 0;
    generateFinancials(generated, (_, rows) => {
      expected += rows.length;
    });
    const { rows } = await env.pool.query<{ n: string; companies: string }>(
      `SELECT count(*) AS n, count(DISTINCT stock_id) AS companies FROM financial_periods`,
    );
    expect(Number(rows[0]!.n)).toBe(expected);
    const listed = generated.stocks.filter((s) => s.stockType === 'equity' && s.status === 'listed');
    expect(Number(rows[0]!.companies)).toBe(listed.length);
  });

  it('serves every section of an equity, agreeing with its annual results', async () => {
    const stock = generated.stocks.find((s) => s.stockType === 'equity' && s.status === 'listed')!;
    const { data } = readDocument(await env.client.call.getFinancials({ symbol: stock.symbol }));
    expect(data).toMatchObject({ symbol: stock.symbol, name: stock.name, source: 'generated' });
    for (const s of SECTIONS) {
      expect(data[s].periods.length).toBeGreaterThan(0);
      expect(data[s].availability).toHaveLength(data[s].periods.length);
      for (const a of data[s].availability) expect(a.available_from <= '2026-11-22').toBe(true);
    }
    const annual = generated.annual.filter((a) => a.stockId === stock.id);
    expect(data.profit_loss.periods).toEqual(annual.map((a) => `FY${a.fiscalYear}`));
    for (const a of annual) {
      expect(data.profit_loss.data.Revenue[`FY${a.fiscalYear}`]).toBeCloseTo(a.sales, 2);
      expect(data.profit_loss.data['Net Profit'][`FY${a.fiscalYear}`]).toBeCloseTo(a.netProfit, 2);
      expect(data.balance_sheet.data['Total Equity'][`FY${a.fiscalYear}`]).toBeCloseTo(a.equity, 2);
    }
    // The profile's growth figures come from the same years.
    const profile = readDocument(
      await env.client.call.getStockProfile({ symbol: stock.symbol, include: [] }),
    ).data;
    for (const g of profile.growth.growth_rates) {
      expect(g.sales_cr).toBeCloseTo(data.profit_loss.data.Revenue[g.fiscal_year], 2);
      expect(g.net_profit_cr).toBeCloseTo(data.profit_loss.data['Net Profit'][g.fiscal_year], 2);
    }
  });

  it('serves one section, and the latest N periods', async () => {
    const stock = generated.stocks.find((s) => s.stockType === 'equity' && s.status === 'listed')!;
    const all = readDocument(await env.client.call.getFinancials({ symbol: stock.symbol })).data;
    const one = readDocument(
      await env.client.call.getFinancials({ symbol: stock.symbol, section: 'balance_sheet' }),
    ).data;
    expect(SECTIONS.filter((s) => s in one)).toEqual(['balance_sheet']);
    expect(one.balance_sheet).toEqual(all.balance_sheet);
    const last4 = readDocument(
      await env.client.call.getFinancials({ symbol: stock.symbol, periods: 4 }),
    ).data;
    for (const s of SECTIONS) expect(last4[s].periods).toEqual(all[s].periods.slice(-4));
    const q2 = readDocument(
      await env.client.call.getFinancials({ symbol: stock.symbol, section: 'quarterly', periods: 2 }),
    ).data;
    expect(q2.quarterly.periods).toEqual(all.quarterly.periods.slice(-2));
    expect(q2.quarterly.pct_changes).toEqual(
      Object.fromEntries(
        Object.entries(all.quarterly.pct_changes as Record<string, Record<string, number>>).map(([r, v]) => [
          r,
          Object.fromEntries(Object.entries(v).slice(-2)),
        ]),
      ),
    );
  });

  it('answers 404 for ETFs, index funds and bonds, and for an unknown symbol', async () => {
    for (const type of ['etf', 'index_fund', 'bond'] as const) {
      const s = generated.stocks.find((x) => x.stockType === type);
      expect(s, `a generated ${type}`).toBeDefined();
      expect((await grpcError(env.client.call.getFinancials({ symbol: s!.symbol }))).code).toBe(
        status.NOT_FOUND,
      );
    }
    expect((await grpcError(env.client.call.getFinancials({ symbol: 'NOSUCHCO' }))).code).toBe(
      status.NOT_FOUND,
    );
  });

  it('rejects an unknown section and periods out of 1..40 naming the parameter', async () => {
    const symbol = generated.stocks.find((s) => s.stockType === 'equity' && s.status === 'listed')!.symbol;
    expect(await grpcError(env.client.call.getFinancials({ symbol, section: 'pnl' }))).toMatchObject({
      code: status.INVALID_ARGUMENT,
      param: 'section',
    });
    for (const periods of [0, 41])
      expect(await grpcError(env.client.call.getFinancials({ symbol, periods }))).toMatchObject({
        code: status.INVALID_ARGUMENT,
        param: 'periods',
      });
  });
});

describe('import nse-xbrl', () => {
  it('imports the six companies real filings and serves them', async () => {
    const files = REAL.flatMap(([symbol]) => {
      const dir = `${XBRL}${symbol.toLowerCase()}/`;
      return readdirSync(dir).map((f) => dir + f);
    });
    expect(files).toHaveLength(310);
    const report = await runImport(env.pool, 'nse-xbrl', files);
    expect(report.loaded).toBe(309);
    const reasons = report.files.flatMap((f) =>
      Object.keys(f.reasons).map((r) => `${f.file.split('/').at(-1)}: ${r}`),
    );
    expect(reasons.sort()).toEqual([
      '03May2023_1712_INDAS_91122_836709_03052023051247.xml: FY2023 standalone revenue 22209.97 exceeds the sum of its quarters (17783.47): year not imported',
      '03May2023_1714_INDAS_91123_836716_03052023051432.xml: FY2023 consolidated revenue 22210.18 exceeds the sum of its quarters (17783.64): year not imported',
      '21Jun2018_1801_NONINDAS_35272_9888_17052018060424_WEB.xml: pre-Ind AS (Indian GAAP) results format is not imported',
    ]);
    // Importing the same files again changes nothing.
    expect((await runImport(env.pool, 'nse-xbrl', files)).changed).toBe(0);

    const infy = readDocument(await env.client.call.getFinancials({ symbol: 'INFY' })).data;
    expect(infy.source).toBe('nse-xbrl');
    expect(infy.profit_loss.basis).toBe('consolidated');
    expect(infy.profit_loss.periods).toEqual(['FY2019', 'FY2020', 'FY2021', 'FY2022', 'FY2023', 'FY2024']);
    // infy/19Apr2024_1128_...xml FourD RevenueFromOperations 1536700000000.00, filed 19 April 2024
    expect(infy.profit_loss.data.Revenue.FY2024).toBe(153_670);
    expect(infy.profit_loss.availability.at(-1)).toEqual({
      period: 'FY2024',
      period_end: '2024-03-31',
      available_from: '2024-04-19',
    });
    expect(infy.balance_sheet.periods).toEqual(['FY2023', 'FY2024']);
    expect(infy.ratios.periods).toEqual(['FY2023', 'FY2024']);
    // ROE = owners' profit / total equity: 26233 / 88461
    expect(infy.ratios.data['ROE %'].FY2024).toBe(29.65);
    expect(infy.quarterly.periods.at(-1)).toBe('Q3 FY2025');

    const sbin = readDocument(
      await env.client.call.getFinancials({ symbol: 'SBIN', section: 'balance_sheet' }),
    ).data;
    const bs = sbin.balance_sheet;
    expect(bs.basis).toBe('consolidated');
    expect(bs.periods).toEqual(['FY2024']);
    expect(bs.data.Deposits.FY2024).toBeGreaterThan(bs.data.Borrowings.FY2024);
    const total = bs.data['Total Equity'].FY2024 + bs.data['Total Liabilities'].FY2024;
    expect(total).toBeCloseTo(bs.data['Total Assets'].FY2024, 1);

    // The profile's growth figures are rewritten from the imported statements (years with a balance sheet).
    await env.reload();
    const growth = readDocument(await env.client.call.getStockProfile({ symbol: 'INFY', include: [] })).data
      .growth;
    expect(growth.growth_rates.map((g: { fiscal_year: string }) => g.fiscal_year)).toEqual([
      'FY2023',
      'FY2024',
    ]);
    for (const g of growth.growth_rates) {
      expect(g.sales_cr).toBe(infy.profit_loss.data.Revenue[g.fiscal_year]);
      expect(g.net_profit_cr).toBe(infy.profit_loss.data['Net Profit'][g.fiscal_year]);
      expect(g.roe_pct).toBe(infy.ratios.data['ROE %'][g.fiscal_year]);
    }
    expect(growth.growth_rates[1].sales_growth_pct).toBe(infy.profit_loss.pct_changes.Revenue.FY2024);

    // Point in time: on 18 April 2024 INFY's FY2024 results were not out yet.
    const { rows } = await env.pool.query<{ id: number }>(`SELECT id FROM stocks WHERE symbol = 'INFY'`);
    const periods = await pgFinancialsSource(env.pool).periods(rows[0]!.id);
    const before = financialsDocument(periods, day('2024-04-18'));
    expect(before.profit_loss!.periods.at(-1)).toBe('FY2023');
    expect(before.quarterly!.periods.at(-1)).toBe('Q3 FY2024');
    expect(financialsDocument(periods, day('2024-04-19')).profit_loss!.periods.at(-1)).toBe('FY2024');
  });

  it('runs from the CLI, and an imported company replaces its generated statements', async () => {
    const stock = generated.stocks.find((s) => s.stockType === 'equity' && s.status === 'listed')!;
    await env.pool.query(
      `UPDATE stocks SET nse_symbol = NULL, isin = NULL WHERE nse_symbol = 'ITC' OR isin = 'INE154A01025'`,
    );
    await env.pool.query(`UPDATE stocks SET nse_symbol = 'ITC', isin = 'INE154A01025' WHERE id = $1`, [
      stock.id,
    ]);
    const dir = `${XBRL}itc/`;
    const line = await run(env.pool, ['import', 'nse-xbrl', ...readdirSync(dir).map((f) => dir + f)], io);
    expect(line).toMatch(/^nse-xbrl: read 50, loaded 50, changed \d+, rejected 0$/);
    const { data } = readDocument(
      await env.client.call.getFinancials({ symbol: stock.symbol, section: 'profit_loss' }),
    );
    expect(data.source).toBe('nse-xbrl');
    // Consolidated years only, none generated left: itc/23May2024_1703_...xml FourD RevenueFromOperations
    // 768404900000.00 and itc/26Jun2020_2114_...xml 513934700000.00.
    expect(data.profit_loss.basis).toBe('consolidated');
    expect(data.profit_loss.periods).toEqual(['FY2020', 'FY2021', 'FY2022', 'FY2023', 'FY2024']);
    expect(data.profit_loss.data.Revenue.FY2024).toBe(76_840.49);
    expect(data.profit_loss.data.Revenue.FY2020).toBe(51_393.47);
    await env.reload();
    const growth = readDocument(await env.client.call.getStockProfile({ symbol: stock.symbol, include: [] }))
      .data.growth;
    expect(growth.growth_rates.length).toBeGreaterThan(0);
    for (const g of growth.growth_rates)
      expect(g.sales_cr).toBe(data.profit_loss.data.Revenue[g.fiscal_year]);
  });
});
