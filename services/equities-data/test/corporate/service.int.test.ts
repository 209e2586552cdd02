import { randomBytes } from 'node:crypto';
import { createPool, dropSchema, migrate, type Pool } from '@mdp/db';
import { createClient, type GrpcServer, PARAM_METADATA_KEY, status, type TypedClient } from '@mdp/grpc';
import { generateDataset } from '@mdp/market';
import { day } from '@mdp/nse-calendar';
import { equities } from '@mdp/proto';
import { createLogger, createRegistry, grpcClientMetrics, trace } from '@mdp/telemetry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, equitiesImpl } from '../../src/app.ts';
import { corporateArea } from '../../src/areas/corporate/index.ts';
import { AreaData } from '../../src/areas/index.ts';
import { run } from '../../src/cli.ts';
import { runImport } from '../../src/importers/index.ts';
import { EquitiesDataset } from '../../src/service/dataset.ts';
import { pgBarSource } from '../../src/store/bar-source.ts';
import { readDataset } from '../../src/store/read-dataset.ts';
import { clockAt, DATABASE_URL, REALDATA } from '../support.ts';
import { read } from './support.ts';

// The corporate routes of a reduced default dataset loaded through the CLI into a fresh schema,
// served by the real gRPC server; then the real deal and corporate-action files imported into it.
const schema = `eqcorp_${randomBytes(5).toString('hex')}`;
const SIZE = 300;
const END = '2026-11-20';
const silent = createLogger('t', 'silent');
let pool: Pool;
let server: GrpcServer;
let client: TypedClient<typeof equities.EquitiesDataServiceService>;
let dataset: EquitiesDataset;
let areas: AreaData;
const io = { log: () => {}, now: () => Date.parse('2026-11-22T06:30:00Z') };

async function reload() {
  dataset = new EquitiesDataset(await readDataset(pool));
  areas = await AreaData.read(pool);
}

beforeAll(async () => {
  await migrate({
    url: DATABASE_URL,
    schema,
    dir: new URL('../../migrations/', import.meta.url).pathname,
    logger: silent,
  });
  pool = createPool({ url: DATABASE_URL, schema, max: 4, applicationName: 'equities-corporate-test' });
  await run(pool, ['load-default', '--size', String(SIZE), '--end', END, '--seed', '11'], io);
  await reload();
  server = buildApp({
    logger: silent,
    tracer: trace.getTracer('t'),
    registry: createRegistry('equities-data'),
    impl: equitiesImpl({
      dataset: () => dataset,
      bars: pgBarSource(pool),
      clock: clockAt('2026-11-22'),
      areas: () => areas,
      pool,
    }),
  });
  const port = await server.listen('127.0.0.1', 0);
  client = createClient(equities.EquitiesDataServiceService, `127.0.0.1:${port}`, {
    target: 'equities-data',
    metrics: grpcClientMetrics(createRegistry('client')),
    defaultDeadlineMs: 10_000,
  });
}, 180_000);

afterAll(async () => {
  client?.close();
  await server?.shutdown(500);
  await pool?.end();
  await dropSchema(DATABASE_URL, schema);
});

async function grpcError(p: Promise<unknown>) {
  const err = (await p.then(
    () => undefined,
    (e: unknown) => e,
  )) as { code: number; metadata?: { get(k: string): unknown[] } } | undefined;
  if (!err) throw new Error('expected the call to fail');
  return { code: err.code, param: err.metadata?.get(PARAM_METADATA_KEY)[0] };
}

describe('the generated corporate data, stored and served', () => {
  const ds = generateDataset({ seed: 11, size: SIZE, endDay: day(END), historyDays: 2_200 });

  it('reads back what the generator made, and the rating history with its instruments', async () => {
    const data = areas.get(corporateArea);
    const counts = await pool.query<Record<string, string>>(
      `SELECT (SELECT count(*) FROM shareholding) AS sh, (SELECT count(*) FROM news) AS news,
              (SELECT count(*) FROM deals) AS deals, (SELECT count(*) FROM credit_ratings) AS ratings`,
    );
    expect(Number(counts.rows[0]!.sh)).toBe([...data.shareholding.values()].flat().length);
    expect(Number(counts.rows[0]!.sh)).toBeGreaterThan(500);
    expect(Number(counts.rows[0]!.deals)).toBeGreaterThan(50);
    expect(Number(counts.rows[0]!.ratings)).toBe(ds.ratings.length);
    const snapshot = await readDataset(pool);
    expect(snapshot.ratings).toEqual(ds.ratings);
  });

  it('answers every corporate route for a listed company over gRPC', async () => {
    const e = dataset.entries.find(
      (x) =>
        x.row.stockType === 'equity' &&
        x.ratings.length > 0 &&
        (areas.get(corporateArea).deals.get(x.row.id)?.length ?? 0) > 0,
    )!;
    const symbol = e.row.symbol;
    const sh = read(await client.call.getShareholding({ symbol }));
    for (const q of sh.data.quarters)
      expect(Math.round((q.promoter + q.fii + q.dii + q.government + q.public) * 100)).toBe(10_000);
    const pledge = read(await client.call.getPledge({ symbol }));
    expect(pledge.data.quarters).toHaveLength(sh.data.quarters.length);
    const fc = read(await client.call.getForecasts({ symbol }));
    expect(fc.data).toHaveProperty('annual');
    const ratings = read(await client.call.getRatings({ symbol }));
    expect(ratings.data.length).toBe(ds.ratings.filter((r) => r.stockId === e.row.id).length);
    const deals = read(await client.call.getDeals({ symbol, limit: 25 }));
    expect(deals.data.length).toBeGreaterThan(0);
    for (const type of ['news', 'corporate_actions', 'filings']) {
      const ev = read(await client.call.getStockEvents({ symbol, type, limit: 20 }));
      expect(ev.meta.type).toBe(type);
      expect(ev.data.length).toBeLessThanOrEqual(20);
    }
    const news = read(await client.call.getMarketNews({ limit: 10, sentiment: 'positive' }));
    expect(news.data).toHaveLength(10);
    for (const n of news.data) {
      expect(n.sentiment).toBe('positive');
      for (const s of n.related_symbols) expect(dataset.resolve(s)).toBeDefined();
    }
  });

  it('answers NOT_FOUND for an ETF’s shareholding and INVALID_ARGUMENT with the parameter for bad limits', async () => {
    const etf = dataset.entries.find((x) => x.row.stockType === 'etf')!;
    expect((await grpcError(client.call.getShareholding({ symbol: etf.row.symbol }))).code).toBe(
      status.NOT_FOUND,
    );
    expect((await grpcError(client.call.getRatings({ symbol: 'NOSUCHCO' }))).code).toBe(status.NOT_FOUND);
    const e = dataset.entries[0]!;
    expect(await grpcError(client.call.getDeals({ symbol: e.row.symbol, limit: 101 }))).toEqual({
      code: status.INVALID_ARGUMENT,
      param: 'limit',
    });
    expect(await grpcError(client.call.getMarketNews({ limit: 5, category: 'sports' }))).toEqual({
      code: status.INVALID_ARGUMENT,
      param: 'category',
    });
  });
});

describe('importing the real NSE files', () => {
  beforeAll(async () => {
    // The companies of the real files, added to the generated master under their real symbols.
    await pool.query(
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
    const report = await runImport(pool, 'nse-deals', [
      `${REALDATA}nse_deals/block_deals_2026-09_export.csv`,
      `${REALDATA}nse_deals/block_16122025.csv`,
      `${REALDATA}nse_bulk_deals_2026-08-21.csv`,
    ]);
    const amagiRows = report.loaded - 10;
    expect(amagiRows).toBeGreaterThan(2);
    await reload();
    const { data } = read(await client.call.getDeals({ symbol: 'RHIM', type: 'block', limit: 100 }));
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
    const sbfc = read(await client.call.getDeals({ symbol: 'SBFC', limit: 100 })).data;
    expect(sbfc.map((d: { date: string }) => d.date)).toEqual(Array(5).fill('2025-12-16'));
    expect(read(await client.call.getDeals({ symbol: 'SBFC', type: 'bulk', limit: 100 })).data).toEqual([]);
    const amagi = read(await client.call.getDeals({ symbol: 'AMAGI', limit: 100 })).data;
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
    expect((await runImport(pool, 'nse-deals', [`${REALDATA}nse_deals/block_16122025.csv`])).changed).toBe(0);
  });

  it('loads corporate actions: bonuses and splits into the actions that adjust prices, dividends as events', async () => {
    const files = [
      `${REALDATA}nse_pr_2025-12-16/bc16122025.csv`,
      `${REALDATA}nse_corp_actions/nse_corp_actions_api_sample.json`,
    ];
    const report = await runImport(pool, 'nse-corporate-actions', files);
    // LALPATHLAB's bonus and IOC's dividend from the bc file, PAVNAIND's split from the API sample.
    expect(report.changed).toBe(3);
    expect((await runImport(pool, 'nse-corporate-actions', files)).changed).toBe(0);
    await reload();
    const lal = dataset.resolve('LALPATHLAB')!;
    expect(lal.actions.map((a) => [a.kind, a.ratioNew, a.ratioOld])).toEqual([['bonus', 2, 1]]);
    const events = read(
      await client.call.getStockEvents({ symbol: 'LALPATHLAB', type: 'corporate_actions', limit: 10 }),
    );
    expect(events.data[0]).toMatchObject({ type: 'bonus', ex_date: '2025-12-19', ratio: { new: 2, old: 1 } });
    const ioc = read(
      await client.call.getStockEvents({ symbol: 'IOC', type: 'corporate_actions', limit: 10 }),
    );
    expect(ioc.data).toEqual([
      expect.objectContaining({
        type: 'dividend',
        ex_date: '2025-12-18',
        record_date: '2025-12-18',
        amount: 5,
      }),
    ]);
    const pavna = read(
      await client.call.getStockEvents({ symbol: 'PAVNAIND', type: 'corporate_actions', limit: 10 }),
    );
    expect(pavna.data[0]).toMatchObject({ type: 'split', ex_date: '2025-09-01', ratio: { new: 10, old: 1 } });
  });
});
