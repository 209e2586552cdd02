import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { status } from '@mdp/grpc';
import { DEFAULT_HISTORY_DAYS, DEFAULT_SEED, generateDataset, generateMarketFlows } from '@mdp/market';
import { day, formatDay, tradingDays } from '@mdp/nse-calendar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { marketArea } from '../../src/areas/market/index.ts';
import { readMarketData } from '../../src/areas/market/store.ts';
import { run } from '../../src/cli.ts';
import { runImport } from '../../src/importers/index.ts';
import { grpcError, type ServiceEnv, startService } from '../grpc-env.ts';
import { clockAt, REALDATA, readDocument } from '../support.ts';

// The market area end to end on a fresh schema: the real files imported (through the CLI and
// runImport), then the generated default dataset loaded, served by the real gRPC server and client.
const CASH = join(REALDATA, 'fii_dii_cash_monthly_2007-2026.csv');
const FO = join(REALDATA, 'nse_participant_oi_vol_fiider_2025');
const december = (sub: string) =>
  readdirSync(join(FO, sub))
    .filter((f) => /12-?2025|Dec-2025/.test(f))
    .sort()
    .map((f) => join(FO, sub, f));
const io = { log: () => {}, now: clockAt('2026-11-22') };
let env: ServiceEnv;

beforeAll(async () => {
  env = await startService({ prefix: 'eqmkt', clock: clockAt('2026-11-22'), areas: [marketArea] });
});

afterAll(async () => {
  await env?.close();
});

describe('the real files, imported into an empty schema', () => {
  it('answers NOT_FOUND while nothing is held', async () => {
    expect((await grpcError(env.client.call.getFiiDii({}))).code).toBe(status.NOT_FOUND);
    expect((await grpcError(env.client.call.getFpiSectors({}))).code).toBe(status.NOT_FOUND);
  });

  it('imports the FII/DII monthly file through the CLI, once', async () => {
    expect(await run(env.pool, ['import', 'fii-dii-cash', CASH], io)).toBe(
      'fii-dii-cash: read 226, loaded 226, changed 226, rejected 0',
    );
    expect((await runImport(env.pool, 'fii-dii-cash', [CASH])).changed).toBe(0);
    const { rows } = await env.pool.query(
      'SELECT period, count(*)::int AS n, sum(fii_net)::float8 AS fii FROM fii_dii_cash GROUP BY period',
    );
    // The stored net column is buy - sell; all 226 months sum to -870664.16 crore of FII net selling.
    expect(rows).toEqual([{ period: 'month', n: 226, fii: -870_664.16 }]);
  });

  it('imports December’s participant and FII derivatives files', async () => {
    const participants = await runImport(env.pool, 'nse-participants', [
      ...december('part_w_oi'),
      ...december('part_w_vol'),
    ]);
    // Six OI and six volume files (Dec 1-5 and 11), five rows each.
    expect(participants).toMatchObject({ read: 60, loaded: 60, rejected: 0, changed: 60 });
    const fii = await runImport(env.pool, 'nse-fii-derivatives', december('fii_der'));
    expect(fii).toMatchObject({ read: 24, loaded: 24, rejected: 0 });
    await env.reload();
  });

  it('serves the real figures: monthly streaks, positioning of 2025-12-11 and FII derivatives', async () => {
    const { data, meta } = readDocument(await env.client.call.getFiiDii({}));
    expect(meta).toMatchObject({ unit: 'crore', sessions: 0 });
    expect(data.as_of).toBe('2026-01-27');
    // Hand-checked in cash-flows.test.ts: seven months of FII selling from 2025-07, -227840.66 crore.
    expect(data.streaks.fii).toMatchObject({
      direction: 'selling',
      length: 7,
      unit: 'month',
      amount: -227_840.66,
    });
    expect(data.yearly.find((y: { year: number }) => y.year === 2025).fii.net).toBe(-306_419.09);
    const p = data.fo_positioning;
    expect(p).toMatchObject({ date: '2025-12-11', previous_date: '2025-12-05' });
    // fao_participant_oi_11122025.csv: FII,21817,168801,... and on 2025-12-05 FII,22996,144298,...
    expect(p.open_interest.fii.index_futures).toEqual({
      long: 21_817,
      short: 168_801,
      net: -146_984,
      net_change: -146_984 - (22_996 - 144_298),
    });
    // TOTAL,322846,322846,...: the market's index futures balance.
    expect(p.open_interest.total.index_futures).toMatchObject({ long: 322_846, short: 322_846, net: 0 });
    // fii_stats_11-Dec-2025.csv: INDEX FUTURES,15837,3109.11,14482,2817.65,190618,37000.66
    expect(p.fii_derivatives.index_futures).toEqual({
      buy_contracts: 15_837,
      buy_amount: 3109.11,
      sell_contracts: 14_482,
      sell_amount: 2817.65,
      net_amount: 291.46,
      oi_contracts: 190_618,
      oi_amount: 37_000.66,
    });
    expect(p.volume.fii.index_futures).toMatchObject({ long: 15_837, short: 14_482 });
  });

  it('adds the chart and rejects a bad chart_interval with the parameter named', async () => {
    const { data } = readDocument(await env.client.call.getFiiDii({ chart_interval: '1y' }));
    expect(data.chart.points).toHaveLength(12);
    const err = await grpcError(env.client.call.getFiiDii({ chart_interval: '10y' }));
    expect(err).toMatchObject({ code: status.INVALID_ARGUMENT, param: 'chart_interval' });
  });
});

describe('the generated default dataset', () => {
  const END = '2026-11-20';
  const SIZE = 150;

  it('loads flows that the database returns exactly as generated', async () => {
    const lines: string[] = [];
    await run(env.pool, ['load-default', '--size', String(SIZE), '--end', END], {
      ...io,
      log: (l) => lines.push(l),
    });
    expect(lines).toContainEqual(expect.stringMatching(/^market: \d+ sessions of FII\/DII flows/));
    const flows = generateMarketFlows(
      generateDataset({
        seed: DEFAULT_SEED,
        size: SIZE,
        endDay: day(END),
        historyDays: DEFAULT_HISTORY_DAYS,
      }),
    );
    await env.reload();
    const held = await readMarketData(env.pool);
    expect(held.cash).toEqual(flows.cash);
    expect(held.participants).toEqual(flows.participants);
    expect(held.fiiDerivatives).toEqual(flows.fiiDerivatives);
    const bySector = (a: { periodEnd: number; sector: string }, b: { periodEnd: number; sector: string }) =>
      a.periodEnd - b.periodEnd || (a.sector < b.sector ? -1 : a.sector > b.sector ? 1 : 0);
    expect([...held.fpi].sort(bySector)).toEqual([...flows.fpiSectors].sort(bySector));
    // A whole default load of 150 stocks: 9 to 19 s in clean-clone CI runs, over 30 s in a loaded one.
  }, 90_000);

  it('serves 30 sessions to the latest, and FPI sectors adding up to 100%', async () => {
    const { data } = readDocument(await env.client.call.getFiiDii({ chart_interval: '3m' }));
    expect(data.sessions).toHaveLength(30);
    expect(data.sessions[0].date).toBe(END);
    expect(data.streaks.fii.unit).toBe('session');
    expect(data.chart.from).toBe('2026-08-21');
    const fpi = readDocument(await env.client.call.getFpiSectors({})).data;
    expect(fpi.fortnight_end).toBe('2026-11-15');
    expect(
      fpi.sectors.reduce(
        (a: number, s: { aum_share_pct: number }) => a + Math.round(s.aum_share_pct * 100),
        0,
      ),
    ).toBe(10_000);
  });

  it('lets real monthly figures replace the generated sessions of the months they cover', async () => {
    const { rows: before } = await env.pool.query(
      "SELECT count(*)::int AS n FROM fii_dii_cash WHERE period = 'day' AND d <= '2026-01-31'",
    );
    const report = await runImport(env.pool, 'fii-dii-cash', [CASH]);
    expect(report.changed).toBe(226 + before[0].n);
    const { rows } = await env.pool.query(
      'SELECT period, min(d)::text AS first, count(*)::int AS n FROM fii_dii_cash GROUP BY period ORDER BY period',
    );
    // The first session after the months the real figures cover: the Budget session on Sunday 1 February.
    const firstSession = formatDay(tradingDays(day('2026-02-01'), day('2026-02-28'))[0]!);
    expect(firstSession).toBe('2026-02-01');
    expect(rows[0]).toMatchObject({ period: 'day', first: firstSession });
    expect(rows[1]).toMatchObject({ period: 'month', n: 226 });
    await env.reload();
    const { data } = readDocument(await env.client.call.getFiiDii({}));
    expect(data.sessions[0].date).toBe(END);
    expect(data.monthly.find((m: { month: string }) => m.month === '2026-01')).toMatchObject({
      sessions: null,
      fii: { net: -43_772.88 },
    });
    expect(data.monthly[0]).toMatchObject({ month: '2026-11', sessions: 14 });
  });
});
