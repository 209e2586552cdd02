import { status } from '@mdp/grpc';
import { generateDataset } from '@mdp/market';
import { day } from '@mdp/nse-calendar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corporateArea } from '../../src/areas/corporate/index.ts';
import { readDataset } from '../../src/areas/stocks/read.ts';
import { run } from '../../src/cli.ts';
import { runImport } from '../../src/importers/index.ts';
import { grpcError, type ServiceEnv, startService } from '../grpc-env.ts';
import { clockAt, REALDATA, readDocument } from '../support.ts';

// The corporate routes of a reduced default dataset loaded through the CLI into a fresh schema,
// served by the real gRPC server; then the real deal and corporate-action files imported into it.
const SIZE = 300;
const END = '2026-11-20';
let env: ServiceEnv;
const io = { log: () => {}, now: clockAt('2026-11-22') };

beforeAll(async () => {
  env = await startService({ prefix: 'eqcorp', clock: clockAt('2026-11-22') });
  await run(env.pool, ['load-default', '--size', String(SIZE), '--end', END, '--seed', '11'], io);
  await env.reload();
}, 180_000);

afterAll(async () => {
  await env?.close();
});

describe('the generated corporate data, stored and served', () => {
  const ds = generateDataset({ seed: 11, size: SIZE, endDay: day(END), historyDays: 2_200 });

  it('reads back what the generator made, and the rating history with its instruments', async () => {
    const data = env.areas.get(corporateArea);
    const counts = await env.pool.query<Record<string, string>>(
      `SELECT (SELECT count(*) FROM shareholding) AS sh, (SELECT count(*) FROM news) AS news,
              (SELECT count(*) FROM deals) AS deals, (SELECT count(*) FROM credit_ratings) AS ratings`,
    );
    expect(Number(counts.rows[0]!.sh)).toBe([...data.shareholding.values()].flat().length);
    expect(Number(counts.rows[0]!.sh)).toBeGreaterThan(500);
    expect(Number(counts.rows[0]!.deals)).toBeGreaterThan(50);
    expect(Number(counts.rows[0]!.ratings)).toBe(ds.ratings.length);
    const snapshot = await readDataset(env.pool);
    expect(snapshot.ratings).toEqual(ds.ratings);
  });

  it('answers every corporate route for a listed company over gRPC', async () => {
    const e = env.dataset.entries.find(
      (x) =>
        x.row.stockType === 'equity' &&
        x.ratings.length > 0 &&
        (env.areas.get(corporateArea).deals.get(x.row.id)?.length ?? 0) > 0,
    )!;
    const symbol = e.row.symbol;
    const sh = readDocument(await env.client.call.getShareholding({ symbol }));
    for (const q of sh.data.quarters)
      expect(Math.round((q.promoter + q.fii + q.dii + q.government + q.public) * 100)).toBe(10_000);
    const pledge = readDocument(await env.client.call.getPledge({ symbol }));
    expect(pledge.data.quarters).toHaveLength(sh.data.quarters.length);
    const fc = readDocument(await env.client.call.getForecasts({ symbol }));
    expect(fc.data).toHaveProperty('annual');
    const ratings = readDocument(await env.client.call.getRatings({ symbol }));
    expect(ratings.data.length).toBe(ds.ratings.filter((r) => r.stockId === e.row.id).length);
    const deals = readDocument(await env.client.call.getDeals({ symbol, limit: 25 }));
    expect(deals.data.length).toBeGreaterThan(0);
    for (const type of ['news', 'corporate_actions', 'filings']) {
      const ev = readDocument(await env.client.call.getStockEvents({ symbol, type, limit: 20 }));
      expect(ev.meta.type).toBe(type);
      expect(ev.data.length).toBeLessThanOrEqual(20);
    }
    // Results in the filings list are dated by the stored statements, as the financials route serves them.
    const filings = readDocument(
      await env.client.call.getStockEvents({ symbol, type: 'filings', limit: 50 }),
    );
    const statements = readDocument(
      await env.client.call.getFinancials({ symbol, section: 'quarterly' }),
    ).data;
    const latest = statements.quarterly.availability.at(-1);
    expect(
      filings.data.filter(
        (f: { type: string; title: string }) => f.type === 'results' && f.title.endsWith(latest.period_end),
      ),
    ).toMatchObject([{ date: latest.available_from }]);
    const news = readDocument(await env.client.call.getMarketNews({ limit: 10, sentiment: 'positive' }));
    expect(news.data).toHaveLength(10);
    for (const n of news.data) {
      expect(n.sentiment).toBe('positive');
      for (const s of n.related_symbols) expect(env.dataset.resolve(s)).toBeDefined();
    }
  });

  it('answers NOT_FOUND for an ETF’s shareholding and INVALID_ARGUMENT with the parameter for bad limits', async () => {
    const etf = env.dataset.entries.find((x) => x.row.stockType === 'etf')!;
    expect((await grpcError(env.client.call.getShareholding({ symbol: etf.row.symbol }))).code).toBe(
      status.NOT_FOUND,
    );
    expect((await grpcError(env.client.call.getRatings({ symbol: 'NOSUCHCO' }))).code).toBe(status.NOT_FOUND);
    const e = env.dataset.entries[0]!;
    expect(await grpcError(env.client.call.getDeals({ symbol: e.row.symbol, limit: 101 }))).toMatchObject({
      code: status.INVALID_ARGUMENT,
      param: 'limit',
    });
    expect(await grpcError(env.client.call.getMarketNews({ limit: 5, category: 'sports' }))).toMatchObject({
      code: status.INVALID_ARGUMENT,
      param: 'category',
    });
  });
});

describe('importing the real NSE files', () => {
  beforeAll(async () => {
    // The companies of the real files, added to the generated master under their real symbols.
    await env.pool.query(
      `INSERT INTO stocks (symbol, name, isin, nse_symbol, stock_type, status, listed_on)
       VALUES ('RHIM', 'RHI Magnesita India Limited', 'INE743M01012', 'RHIM', 'equity', 'listed', '2010-01-01'),
              ('SBFC', 'SBFC Finance Limited', 'INE423Y01016', 'SBFC', 'equity', 'listed', '2023-08-16'),
              ('LALPATHLAB', 'Dr. Lal Path Labs Ltd.', 'INE600L01024', 'LALPATHLAB', 'equity', 'listed', '2015-12-23'),
              ('IOC', 'Indian Oil Corporation Limited', 'INE242A01010', 'IOC', 'equity', 'listed', '1995-01-01'),
              ('PAVNAIND', 'Pavna Industries Limited', 'INE07S101020', 'PAVNAIND', 'equity', 'listed', '2022-01-01'),
              ('AMAGI', 'Amagi Media Labs Limited', 'INE0K1B01012', 'AMAGI', 'equity', 'listed', '2026-01-21')`,
    );
  });

  it('loads block and bulk deals, served newest first with their Indian-grouped quantities', async () => {
    const report = await runImport(env.pool, 'nse-deals', [
      `${REALDATA}nse_deals/block_deals_2026-09_export.csv`,
      `${REALDATA}nse_deals/block_16122025.csv`,
      `${REALDATA}nse_bulk_deals_2026-08-21.csv`,
    ]);
    const amagiRows = report.loaded - 10;
    expect(amagiRows).toBeGreaterThan(2);
    await env.reload();
    const { data } = readDocument(
      await env.client.call.getDeals({ symbol: 'RHIM', type: 'block', limit: 100 }),
    );
    expect(data).toHaveLength(5);
    expect(
      data.find((d: { counterparty: string }) => d.counterparty === 'DALMIA BHARAT REFRACTORIES LIMITED'),
    ).toEqual({
      date: '2026-09-22',
      type: 'block',
      counterparty: 'DALMIA BHARAT REFRACTORIES LIMITED',
      side: 'sell',
      quantity: 22_941_224,
      price: 360,
      value: 8_258_840_640,
      remarks: null,
    });
    const sbfc = readDocument(await env.client.call.getDeals({ symbol: 'SBFC', limit: 100 })).data;
    expect(sbfc.map((d: { date: string }) => d.date)).toEqual(Array(5).fill('2025-12-16'));
    expect(
      readDocument(await env.client.call.getDeals({ symbol: 'SBFC', type: 'bulk', limit: 100 })).data,
    ).toEqual([]);
    const amagi = readDocument(await env.client.call.getDeals({ symbol: 'AMAGI', limit: 100 })).data;
    expect(amagi).toHaveLength(amagiRows);
    expect(amagi.every((d: { type: string }) => d.type === 'bulk')).toBe(true);
    expect(amagi).toContainEqual(
      expect.objectContaining({
        counterparty: 'SBI MUTUAL FUND',
        side: 'buy',
        quantity: 3_248_305,
        price: 560,
      }),
    );
    // Importing the same files again changes nothing.
    expect(
      (await runImport(env.pool, 'nse-deals', [`${REALDATA}nse_deals/block_16122025.csv`])).changed,
    ).toBe(0);
  });

  it('loads corporate actions: bonuses and splits into the actions that adjust prices, dividends as events', async () => {
    const files = [
      `${REALDATA}nse_pr_2025-12-16/bc16122025.csv`,
      `${REALDATA}nse_corp_actions/nse_corp_actions_api_sample.json`,
    ];
    const report = await runImport(env.pool, 'nse-corporate-actions', files);
    // LALPATHLAB's bonus and IOC's dividend from the bc file, PAVNAIND's split from the API sample.
    expect(report.changed).toBe(3);
    expect((await runImport(env.pool, 'nse-corporate-actions', files)).changed).toBe(0);
    await env.reload();
    const lal = env.dataset.resolve('LALPATHLAB')!;
    expect(lal.actions.map((a) => [a.kind, a.ratioNew, a.ratioOld])).toEqual([['bonus', 2, 1]]);
    const events = readDocument(
      await env.client.call.getStockEvents({ symbol: 'LALPATHLAB', type: 'corporate_actions', limit: 10 }),
    );
    expect(events.data[0]).toMatchObject({ type: 'bonus', ex_date: '2025-12-19', ratio: { new: 2, old: 1 } });
    const ioc = readDocument(
      await env.client.call.getStockEvents({ symbol: 'IOC', type: 'corporate_actions', limit: 10 }),
    );
    expect(ioc.data).toEqual([
      expect.objectContaining({
        type: 'dividend',
        ex_date: '2025-12-18',
        record_date: '2025-12-18',
        amount: 5,
      }),
    ]);
    const pavna = readDocument(
      await env.client.call.getStockEvents({ symbol: 'PAVNAIND', type: 'corporate_actions', limit: 10 }),
    );
    expect(pavna.data[0]).toMatchObject({ type: 'split', ex_date: '2025-09-01', ratio: { new: 10, old: 1 } });
  });
});
