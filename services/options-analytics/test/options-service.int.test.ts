import { status } from '@mdp/grpc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { marketOf } from '../src/generate/dataset.ts';
import { fnoStocks } from '../src/generate/universe.ts';
import { writeGeneratedDataset } from '../src/generate/write-dataset.ts';
import { importFoFile } from '../src/import/import-fo.ts';
import { importLotFile } from '../src/import/import-lots.ts';
import { failure, freshSchema, R, serve } from './harness.ts';
import { FULL_DAY_FILE, LOT_FILE, NIFTY_BANKNIFTY_DIR, realPath } from './realdata.ts';

const AS_OF = '2026-11-20';
// Options on a smaller generated market (same rules as the default): its largest company has F&O, and
// the largest one whose F&O has ended keeps an IV history only.
const MARKET = { seed: 20_260_101, asOf: AS_OF, r: R, marketSize: 3_000, historyDays: 1_000 };
const fno = fnoStocks(marketOf(MARKET));
const STOCK = fno.current[0]!.nseSymbol!;
const FORMER = fno.former[0]!.nseSymbol!;
const SYMBOLS = ['NIFTY', 'BANKNIFTY', 'FINNIFTY', 'MIDCPNIFTY', STOCK, fno.current[1]!.nseSymbol!, FORMER];

type Env = Awaited<ReturnType<typeof freshSchema>> & { api: Awaited<ReturnType<typeof serve>> };
let generated: Env;
let real: Env;
let empty: Env;

async function env(prefix: string, versionTtlMs?: number): Promise<Env> {
  const s = await freshSchema(prefix);
  return { ...s, api: await serve(s.pool, { versionTtlMs }) };
}

beforeAll(async () => {
  // The real-data service re-reads the data version on every call, to show a new import at once.
  [generated, real, empty] = await Promise.all([env('opt_gen'), env('opt_real', 0), env('opt_empty')]);
  await writeGeneratedDataset(generated.pool, MARKET, { ifEmpty: true, only: SYMBOLS });
  await importLotFile(real.pool, realPath(LOT_FILE));
  for (const day of ['2026-03-26', '2026-03-25', '2026-03-27']) {
    if (day === '2026-03-26') continue; // a holiday: no file
    for (const symbol of ['NIFTY', 'BANKNIFTY'])
      await importFoFile(real.pool, realPath(`${NIFTY_BANKNIFTY_DIR}${symbol}_${day}.csv`), { r: R });
  }
});

afterAll(async () => {
  for (const e of [generated, real, empty]) {
    await e?.api.close();
    await e?.drop();
  }
});

describe('GetOptionChain', () => {
  it('serves the nearest expiry by default: snapshot_ts, forward, IV and Greeks per strike, max pain and PCR', async () => {
    const { data, meta } = await generated.api.chain({ symbol: 'NIFTY' });
    expect(data.expiry).toBe('2026-11-23');
    expect(data.expiries[0]).toBe('2026-11-23');
    expect(data.snapshot_ts).toBe('2026-11-20T10:00:00.000Z');
    expect(meta).toEqual({ snapshot_ts: '2026-11-20T10:00:00.000Z', source: 'generated' });
    expect(data).toMatchObject({
      symbol: 'NIFTY',
      trade_date: AS_OF,
      lot_size: 65,
      forward_source: 'put_call_parity',
      days_to_expiry: 3,
    });
    expect(data.risk_free_rate).toBe(6.5);
    expect(data.atm_iv).toBeGreaterThan(3); // a percent
    expect(data.atm_iv).toBeLessThan(80);
    expect(typeof data.max_pain).toBe('number');
    expect(data.pcr.oi).toBeGreaterThan(0);
    const atm = data.strikes.find((s: { strike: number }) => s.strike === data.atm_strike);
    expect(Object.keys(atm.call).sort()).toEqual(
      [
        'ask',
        'bid',
        'close',
        'delta',
        'gamma',
        'iv',
        'ltp',
        'oi',
        'oi_change',
        'rho',
        'theta',
        'vega',
        'volume',
      ].sort(),
    );
    expect(atm.call.delta).toBeGreaterThan(0.3);
    expect(atm.put.delta).toBeLessThan(-0.3);
    expect(atm.call.theta).toBeLessThan(0);
    expect(Math.abs(atm.call.iv - data.atm_iv)).toBeLessThan(1.5);
  });

  it('never sends NaN: an option without an IV has null IV and Greeks', async () => {
    const { data } = await generated.api.chain({ symbol: 'NIFTY', expiry: '2027-09-28' });
    const raw = JSON.stringify(data);
    expect(raw).not.toMatch(/NaN|Infinity/);
    const untraded = data.strikes
      .flatMap((s: { call: unknown; put: unknown }) => [s.call, s.put])
      .filter((x: { close: unknown }) => x && x.close === null);
    expect(untraded.length).toBeGreaterThan(0);
    for (const u of untraded)
      expect(u).toMatchObject({
        iv: null,
        delta: null,
        gamma: null,
        theta: null,
        vega: null,
        rho: null,
        ltp: null,
      });
  });

  it('cuts `strikes` each side of the ATM strike, keeping max pain and PCR over the whole expiry', async () => {
    const all = (await generated.api.chain({ symbol: 'BANKNIFTY', expiry: '2026-12-29' })).data;
    const some = (await generated.api.chain({ symbol: 'BANKNIFTY', expiry: '2026-12-29', strikes: 3 })).data;
    expect(some.strikes).toHaveLength(7);
    expect(some.strikes[3].strike).toBe(some.atm_strike);
    expect(some.strikes_each_side).toBe(3);
    expect(all.strikes.length).toBeGreaterThan(40);
    expect(some.max_pain).toBe(all.max_pain);
    expect(some.pcr).toEqual(all.pcr);
  });

  it('matches the underlying case-insensitively, as the other options routes do', async () => {
    const lower = (await generated.api.chain({ symbol: 'banknifty' })).data;
    expect(lower.symbol).toBe('BANKNIFTY');
    expect(lower).toEqual((await generated.api.chain({ symbol: 'BANKNIFTY' })).data);
  });

  it('refuses an expiry not in the snapshot (INVALID_ARGUMENT naming expiry) and a non-index symbol (naming symbol)', async () => {
    const e = await failure(generated.api.chain({ symbol: 'NIFTY', expiry: '2026-11-24' }));
    expect(e).toMatchObject({ code: status.INVALID_ARGUMENT, param: 'expiry' });
    expect(e.details).toMatch(/its expiries are 2026-11-23, 2026-12-01/);
    expect(await failure(generated.api.chain({ symbol: STOCK }))).toMatchObject({
      code: status.INVALID_ARGUMENT,
      param: 'symbol',
    });
    expect(await failure(generated.api.chain({ symbol: 'NIFTY', strikes: 40 }))).toMatchObject({
      code: status.INVALID_ARGUMENT,
      param: 'strikes',
    });
  });

  it('serves the latest imported day of real data, with the hand-checked max pain and PCR', async () => {
    const { data, meta } = await real.api.chain({ symbol: 'NIFTY' });
    expect(meta.source).toBe('nse_udiff');
    expect(data).toMatchObject({
      trade_date: '2026-03-27',
      expiry: '2026-03-30',
      underlying_price: 22819.6,
      max_pain: 23150,
      lot_size: 65,
    });
    expect(data.pcr.oi).toBeCloseTo(141_580_830 / 160_725_320, 4);
    expect(data.pcr.volume).toBeCloseTo(43_089_453 / 35_158_203, 4);
    const c23000 = (await real.api.chain({ symbol: 'NIFTY', expiry: '2026-04-07' })).data.strikes.find(
      (s: { strike: number }) => s.strike === 23000,
    ).call;
    expect(c23000).toMatchObject({
      ltp: 383,
      close: 390.1,
      bid: null,
      ask: null,
      oi: 1_606_345 / 65,
      oi_change: 1_039_545 / 65,
      volume: 102_305,
    });
    expect(c23000.iv).toBeGreaterThan(20);
    expect((await real.api.chain({ symbol: 'BANKNIFTY' })).data.max_pain).toBe(54300);
  });

  it('is NOT_FOUND for an index without a loaded chain, and serves it once an import brings it', async () => {
    expect((await failure(real.api.chain({ symbol: 'FINNIFTY' }))).code).toBe(status.NOT_FOUND);
    // The reason the stack test expects of a service with no dataset loaded.
    expect(await failure(empty.api.chain({ symbol: 'NIFTY' }))).toMatchObject({
      code: status.NOT_FOUND,
      details: 'no derivatives data for this underlying',
    });
    await importFoFile(real.pool, realPath(FULL_DAY_FILE), { r: R, symbols: new Set(['FINNIFTY']) });
    const { data } = await real.api.chain({ symbol: 'FINNIFTY' });
    expect(data).toMatchObject({
      trade_date: '2026-03-27',
      lot_size: 60,
      expiries: ['2026-03-30', '2026-04-28', '2026-05-26'],
    });
  });
});

describe('GetIvHistory', () => {
  it('serves daily bars up to a year and says so in bar_interval', async () => {
    const { data, meta } = await generated.api.history('NIFTY', '1m');
    expect(data).toMatchObject({
      symbol: 'NIFTY',
      range: '1m',
      bar_interval: '1d',
      to: AS_OF,
      derivatives_until: null,
    });
    expect(meta).toEqual({ bar_interval: '1d', bars: data.bars.length });
    expect(data.bars.length).toBeGreaterThanOrEqual(19);
    expect(data.bars.length).toBeLessThanOrEqual(23);
    const last = data.bars.at(-1);
    expect(last.date).toBe(AS_OF);
    for (const k of [
      'atm_iv',
      'iv_rank',
      'iv_percentile',
      'realised_vol',
      'pcr_oi',
      'pcr_volume',
      'max_pain',
      'skew_25d',
      'close',
    ])
      expect(typeof last[k], k).toBe('number');
    expect(last.atm_iv).toBeGreaterThan(3);
    const year = (await generated.api.history('nifty', '1y')).data;
    expect(year.bar_interval).toBe('1d');
    expect(year.bars.length).toBeGreaterThan(240);
    expect(year.bars.at(-1)).toEqual(last);
  });

  it('serves weekly bars from two years up, and everything for max', async () => {
    const two = (await generated.api.history(STOCK, '2y')).data;
    expect(two.bar_interval).toBe('1w');
    expect(two.bars.length).toBeGreaterThan(95);
    expect(two.bars.length).toBeLessThan(108);
    const max = (await generated.api.history(STOCK, 'max')).data;
    expect(max.from).toBe('2024-03-01'); // the first week's last trading day (history from Mon 2024-02-26)
    expect(max.bars.at(-1).date).toBe(AS_OF);
  });

  it('serves a stock whose derivatives ended, up to that day', async () => {
    const { data } = await generated.api.history(FORMER, '1y');
    expect(data.derivatives_until).toBe(data.to);
    expect(data.bars.at(-1).date).toBe(data.to);
  });

  it('is NOT_FOUND for an underlying without history, INVALID_ARGUMENT for a bad range', async () => {
    expect((await failure(generated.api.history('ZZZZ', '1y'))).code).toBe(status.NOT_FOUND);
    expect((await failure(empty.api.history('NIFTY', '1y'))).code).toBe(status.NOT_FOUND);
    expect(await failure(generated.api.history('NIFTY', '10y'))).toMatchObject({
      code: status.INVALID_ARGUMENT,
      param: 'range',
    });
  });

  it('serves the real days imported', async () => {
    const { data } = await real.api.history('BANKNIFTY', '1m');
    expect(data.bars.map((b: { date: string }) => b.date)).toEqual(['2026-03-25', '2026-03-27']);
    expect(data.bars[1].max_pain).toBe(54300);
    expect(data.bars[1].iv_rank).toBeNull(); // two days are no year
  });
});

describe('GetStockOptions', () => {
  it('serves per-expiry analytics with IV rank, percentile and realised volatility', async () => {
    const { data, meta } = await generated.api.stock(STOCK.toLowerCase());
    expect(meta.source).toBe('generated');
    expect(data).toMatchObject({ symbol: STOCK, kind: 'stock', trade_date: AS_OF });
    expect(data.expiries.map((e: { expiry: string }) => e.expiry)).toEqual([
      '2026-11-23',
      '2026-12-29',
      '2027-01-26', // the seed calendar knows no 2027 holiday
    ]);
    expect(data.iv_rank).toBeGreaterThanOrEqual(0);
    expect(data.iv_rank).toBeLessThanOrEqual(100);
    expect(data.iv_percentile).toBeGreaterThanOrEqual(0);
    expect(Object.keys(data.realised_vol)).toEqual(['10d', '20d', '60d']);
    expect(data.realised_vol['20d']).toBeGreaterThan(3);
    const history = (await generated.api.history(STOCK, '1m')).data.bars.at(-1);
    expect(data.iv_rank).toBe(history.iv_rank);
    expect(data.atm_iv_30d).toBe(history.atm_iv);
    const e = data.expiries[1];
    for (const k of [
      'atm_iv',
      'skew_25d',
      'max_pain',
      'call_oi',
      'put_oi',
      'call_volume',
      'put_volume',
      'days_to_expiry',
      'forward',
    ])
      expect(typeof e[k], k).toBe('number');
    expect(e.pcr.oi).toBeCloseTo(e.put_oi / e.call_oi, 2);
    expect(e.oi_by_strike.length).toBeGreaterThan(10);
  });

  it('is NOT_FOUND for a stock without derivatives, including one whose derivatives ended', async () => {
    expect((await failure(generated.api.stock('ZZZZ'))).code).toBe(status.NOT_FOUND);
    const ended = await failure(generated.api.stock(FORMER));
    expect(ended.code).toBe(status.NOT_FOUND);
    expect(ended.details).toMatch(/discontinued after \d{4}-\d{2}-\d{2}/);
    // Listed in the lot-size file but no bhavcopy of it imported: still nothing to serve.
    expect((await failure(real.api.stock('RELIANCE'))).code).toBe(status.NOT_FOUND);
    expect((await failure(empty.api.stock('RELIANCE'))).code).toBe(status.NOT_FOUND);
  });

  it('serves an index through the same route from real data', async () => {
    const { data } = await real.api.stock('BANKNIFTY');
    expect(data.kind).toBe('index');
    expect(data.max_pain).toBe(54300);
    expect(data.expiries[0].max_pain).toBe(54300);
    expect(data.lot_size).toBe(30);
  });
});
