import { status } from '@mdp/grpc';
import { DEFAULT_SEED, generateDataset, generateIndices } from '@mdp/market';
import { day } from '@mdp/nse-calendar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { indicesArea } from '../../src/areas/indices/index.ts';
import { run } from '../../src/cli.ts';
import { runImport } from '../../src/importers/index.ts';
import { grpcError, type ServiceEnv, startService } from '../grpc-env.ts';
import { clockAt, istClock, readDocument } from '../support.ts';
import { CLOSE_FILES, NIFTY_PE_FILE } from './support.ts';

// Two fresh schemas served by the real gRPC server: one with a generated dataset loaded through the
// CLI, one holding only the real NSE index files imported through the import kinds.
const SIZE = 900;
const END = '2026-11-20';
const io = { log: () => {}, now: clockAt('2026-11-22') };

let gen: ServiceEnv;
let real: ServiceEnv;

beforeAll(async () => {
  gen = await startService({ prefix: 'eqidx', clock: istClock('2026-11-22T12:00:00') });
  await run(gen.pool, ['load-default', '--size', String(SIZE), '--end', END], io);
  await gen.reload();
  real = await startService({ prefix: 'eqidx', clock: istClock('2025-01-11T12:00:00') });
  await runImport(real.pool, 'index-close', CLOSE_FILES);
  await runImport(real.pool, 'index-valuations', [NIFTY_PE_FILE]);
  await real.reload();
}, 240_000);

afterAll(async () => {
  await gen?.close();
  await real?.close();
});

describe('generated indices in the database', () => {
  it('stores exactly what generateIndices gives for the loaded dataset', async () => {
    const ds = generateDataset({ seed: DEFAULT_SEED, size: SIZE, endDay: day(END), historyDays: 2_200 });
    const expected = generateIndices(ds);
    const data = gen.areas.get(indicesArea);
    expect(data.list.map((s) => s.name)).toEqual(expected.map((x) => x.name));
    for (const x of [expected[0]!, expected.find((e) => e.name === 'NIFTY BANK')!]) {
      const s = data.find(x.name)!;
      expect(s.family).toBe(x.family);
      expect(s.constituents).toBe(x.constituents.length);
      expect(s.days).toEqual(x.bars);
    }
    const { rows } = await gen.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM index_constituents c JOIN stocks s ON s.id = c.stock_id
        WHERE s.status = 'listed' AND s.stock_type = 'equity'`,
    );
    expect(rows[0]!.n).toBe(expected.reduce((a, x) => a + x.constituents.length, 0));
  });

  it('ranks over gRPC with the route defaults and the category filter', async () => {
    const { data, meta } = readDocument(
      await gen.client.call.listIndices({
        periods: 3,
        granularity: 'week',
        names: [],
        limit: 10,
        order: 'gainers',
      }),
    );
    expect(data).toHaveLength(10);
    expect(meta).toMatchObject({ window: { from: '2026-11-02', to: '2026-11-22' }, limit: 10 });
    expect(data[0].end.date).toBe('2026-11-20');
    const sectoral = readDocument(
      await gen.client.call.listIndices({
        periods: 2,
        granularity: 'month',
        category: 'sectoral',
        names: [],
        limit: 50,
        order: 'losers',
      }),
    ).data;
    expect(sectoral.every((r: { family: string }) => r.family === 'sectoral')).toBe(true);
    expect(sectoral[0].end.date).toBe('2026-10-30');
  });

  it('answers a bad parameter with INVALID_ARGUMENT naming it, an unknown index with NOT_FOUND', async () => {
    const e = await grpcError(
      gen.client.call.listIndices({
        periods: 3,
        granularity: 'week',
        names: ['NIFTY 50', 'NIFTY 999'],
        limit: 10,
        order: 'gainers',
      }),
    );
    expect(e).toMatchObject({ code: status.INVALID_ARGUMENT, param: 'names' });
    expect(e.details).toContain('NIFTY 999');
    expect(await grpcError(gen.client.call.getValuations({ index: 'nifty-50', years: 21 }))).toMatchObject({
      code: status.INVALID_ARGUMENT,
      param: 'years',
    });
    expect(
      (await grpcError(gen.client.call.getIndexHistory({ name: 'NIFTY 999', interval: '1m' }))).code,
    ).toBe(status.NOT_FOUND);
  });

  it('serves history and valuations of generated indices', async () => {
    const h = readDocument(
      await gen.client.call.getIndexHistory({ name: 'nifty financial services', interval: 'max' }),
    ).data;
    expect(h.name).toBe('NIFTY FINANCIAL SERVICES');
    expect(h.bars.length).toBeGreaterThan(300);
    const v = readDocument(await gen.client.call.getValuations({ index: 'nifty-next-50', years: 3 })).data;
    expect(v).toMatchObject({
      name: 'NIFTY NEXT 50',
      to: '2026-11-20',
      from: '2023-11-21',
      bar_interval: '1d',
    });
    expect(v.summary.pe.observations).toBe(v.series.length);
  });
});

describe('real index files imported into an empty schema', () => {
  it('imports every equity index row and rejects the others; a re-run changes nothing', async () => {
    const again = await runImport(real.pool, 'index-close', CLOSE_FILES);
    expect(again.read).toBe(129 * 6 + 136 * 2);
    expect(again.rejected).toBe(9 * 6 + 14 * 2);
    expect(again.loaded).toBe(again.read - again.rejected);
    expect(again.changed).toBe(0);
    const { rows } = await real.pool.query<{ n: number; families: string[] }>(
      'SELECT count(*)::int AS n, array_agg(DISTINCT family ORDER BY family) AS families FROM indices',
    );
    expect(rows[0]).toEqual({ n: 122, families: ['broad', 'sectoral', 'strategy', 'thematic'] });
  });

  it('ranks the real closes over gRPC as computed by hand', async () => {
    // Saturday 11 Jan 2025, one week: close of Wed 8 Jan over close of Fri 3 Jan (file values).
    //   Nifty Realty 1045.10 -> 1018.50: 1018.5 / 1045.1 - 1 = -2.5452 % -> -2.55
    //   Nifty Bank  50988.80 -> 49835.05: -2.2628 % -> -2.26
    const { data } = readDocument(
      await real.client.call.listIndices({
        periods: 1,
        granularity: 'week',
        names: ['nifty realty', 'NIFTY BANK'],
        limit: 10,
        order: 'losers',
      }),
    );
    expect(data.map((r: { name: string; return_pct: number }) => [r.name, r.return_pct])).toEqual([
      ['Nifty Realty', -2.55],
      ['Nifty Bank', -2.26],
    ]);
  });

  it('keeps the levels of a day when the valuation history adds its ratios, and serves 27 years of them', async () => {
    const { rows } = await real.pool.query(
      `SELECT b.open, b.close, b.pe FROM index_bars b JOIN indices i ON i.id = b.index_id
        WHERE i.name = 'Nifty 50' AND b.d = '2025-01-08'`,
    );
    expect(rows[0]).toEqual({ open: 23746.65, close: 23688.95, pe: 21.83 });
    const v = readDocument(await real.client.call.getValuations({ index: 'nifty-50', years: 20 })).data;
    // The clock stands at 11 Jan 2025: the last observation is 10 Jan 2025, twenty years back to Jan 2005.
    expect(v.to).toBe('2025-01-10');
    expect(v.from.slice(0, 7)).toBe('2005-01');
    expect(v.bar_interval).toBe('1w');
  });
});
