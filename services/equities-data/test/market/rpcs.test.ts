import { status } from '@mdp/grpc';
import { generateMarketFlows, INSTRUMENT_SIDES, SECTORS } from '@mdp/market';
import { day, formatDay, isTradingDay } from '@mdp/nse-calendar';
import { describe, expect, it } from 'vitest';
import { marketRpcs } from '../../src/areas/market/rpcs.ts';
import type { MarketData } from '../../src/areas/market/store.ts';
import { clockAt, ctx, readDocument, rpcError, smallDataset } from '../support.ts';

const mem = smallDataset(120, day('2026-11-20'), 31, 2_200);
const flows = generateMarketFlows(mem.generated);
const data: MarketData = {
  cash: flows.cash,
  participants: flows.participants,
  fiiDerivatives: flows.fiiDerivatives,
  fpi: flows.fpiSectors,
};
const rpcAt = (isoDay: string, d: MarketData = data) =>
  marketRpcs({ dataset: () => mem.dataset, bars: mem.source, clock: clockAt(isoDay), data: () => d });
const rpc = rpcAt('2026-11-22');
const netOf = (r: (typeof flows.cash)[number]) => ({
  fii: (r.fiiBuy - r.fiiSell) / 100,
  dii: (r.diiBuy - r.diiSell) / 100,
});

describe('GetFiiDii on the generated market', () => {
  it('serves the last 30 sessions up to the IST day, newest first, with net = buy - sell', async () => {
    const { data: doc, meta } = readDocument(await rpc.getFiiDii({}, ctx));
    expect(doc.sessions).toHaveLength(30);
    expect(doc.sessions.map((s: { date: string }) => s.date)).toEqual(
      flows.cash
        .slice(-30)
        .reverse()
        .map((r) => formatDay(r.d)),
    );
    expect(doc.sessions[0].date).toBe('2026-11-20');
    for (const s of doc.sessions) {
      expect(isTradingDay(day(s.date))).toBe(true);
      for (const side of [s.fii, s.dii]) expect(side.net).toBeCloseTo(side.buy - side.sell, 6);
    }
    expect(doc.chart).toBeUndefined();
    expect(meta).toMatchObject({ unit: 'crore', sessions: 30, chart_interval: null });
  });

  it('ends the sessions at the latest one held on or before the clock’s IST day', async () => {
    // Sunday 2026-06-14: the latest session is Friday 2026-06-12.
    const { data: doc } = readDocument(await rpcAt('2026-06-14').getFiiDii({}, ctx));
    expect(doc.sessions[0].date).toBe('2026-06-12');
    expect(doc.as_of).toBe('2026-06-12');
    expect(doc.fo_positioning.date).toBe('2026-06-12');
  });

  it('reports the current streaks as the sessions show them', async () => {
    const { data: doc } = readDocument(await rpc.getFiiDii({}, ctx));
    for (const who of ['fii', 'dii'] as const) {
      const nets = flows.cash.map((r) => netOf(r)[who]);
      const sign = Math.sign(nets.at(-1)!);
      let n = 0;
      while (Math.sign(nets[nets.length - 1 - n]!) === sign) n++;
      const amount = nets.slice(-n).reduce((a, b) => a + b, 0);
      expect(doc.streaks[who]).toMatchObject({
        direction: sign > 0 ? 'buying' : 'selling',
        length: n,
        unit: 'session',
        to: '2026-11-20',
      });
      expect(doc.streaks[who].amount).toBeCloseTo(amount, 2);
    }
  });

  it('adds the cumulative-flow series for each chart_interval', async () => {
    const spans = {
      '1m': '2026-10-21',
      '3m': '2026-08-21',
      '6m': '2026-05-21',
      '1y': '2025-11-21',
      '5y': '2021-11-21',
    };
    for (const [interval, from] of Object.entries(spans)) {
      const { data: doc, meta } = readDocument(await rpc.getFiiDii({ chart_interval: interval }, ctx));
      expect(meta.chart_interval).toBe(interval);
      expect(doc.chart).toMatchObject({ interval, from, to: '2026-11-20' });
      const inSpan = flows.cash.filter((r) => r.d >= day(from));
      const points = doc.chart.points;
      expect(points.at(-1).fii_cumulative).toBeCloseTo(
        inSpan.reduce((a, r) => a + netOf(r).fii, 0),
        2,
      );
      if (interval === '5y') {
        expect(points.every((p: { period: string }) => p.period === 'week')).toBe(true);
        expect(points.length).toBeGreaterThan(200);
        expect(points.length).toBeLessThan(inSpan.length / 4);
      } else expect(points).toHaveLength(inSpan.length);
    }
  });

  it('rejects an unknown chart_interval naming the parameter', async () => {
    for (const bad of ['2y', '', '1M', 'max']) {
      const err = await rpcError(rpc.getFiiDii({ chart_interval: bad }, ctx));
      expect(err.code).toBe(status.INVALID_ARGUMENT);
      expect(err.param).toBe('chart_interval');
    }
  });

  it('serves F&O positioning that balances: per instrument the market total is as long as it is short', async () => {
    const { data: doc } = readDocument(await rpc.getFiiDii({}, ctx));
    const p = doc.fo_positioning;
    expect(p).toMatchObject({ date: '2026-11-20', previous_date: '2026-11-19', unit: 'contracts' });
    expect(Object.keys(p.open_interest)).toEqual(['client', 'dii', 'fii', 'pro', 'total']);
    for (const instrument of Object.keys(INSTRUMENT_SIDES)) {
      const total = p.open_interest.total[instrument];
      expect(total.long).toBe(total.short);
      expect(total.net).toBe(0);
      const parts = ['client', 'dii', 'fii', 'pro'].map((w) => p.open_interest[w][instrument]);
      expect(parts.reduce((a: number, x: { long: number }) => a + x.long, 0)).toBe(total.long);
      expect(parts.reduce((a: number, x: { net: number }) => a + x.net, 0)).toBe(0);
      for (const x of parts) expect(x.net).toBe(x.long - x.short);
    }
    const yesterday = flows.participants.find(
      (r) => r.d === day('2026-11-19') && r.kind === 'oi' && r.participant === 'fii',
    )!.positions;
    const fiiFut = p.open_interest.fii.index_futures;
    expect(fiiFut.net_change).toBe(fiiFut.net - (yesterday.futIdxLong - yesterday.futIdxShort));
    expect(p.volume.total.index_calls.long).toBe(p.volume.total.index_calls.short);
    expect(p.fii_derivatives.index_futures.buy_contracts).toBe(p.volume.fii.index_futures.long);
    expect(p.fii_derivatives.index_futures.net_amount).toBeCloseTo(
      p.fii_derivatives.index_futures.buy_amount - p.fii_derivatives.index_futures.sell_amount,
      6,
    );
  });

  it('answers NOT_FOUND before any flow is held, and serves null positioning when none is held', async () => {
    expect((await rpcError(rpcAt('2020-01-01').getFiiDii({}, ctx))).code).toBe(status.NOT_FOUND);
    const none: MarketData = { cash: [], participants: [], fiiDerivatives: [], fpi: [] };
    expect((await rpcError(rpcAt('2026-11-22', none).getFiiDii({}, ctx))).code).toBe(status.NOT_FOUND);
    const cashOnly = { ...none, cash: data.cash };
    expect(
      readDocument(await rpcAt('2026-11-22', cashOnly).getFiiDii({}, ctx)).data.fo_positioning,
    ).toBeNull();
  });
});

describe('GetFpiSectors on the generated market', () => {
  it('serves every sector of the taxonomy with AUM shares adding up to exactly 100', async () => {
    const { data: doc, meta } = readDocument(await rpc.getFpiSectors({}, ctx));
    expect(doc.fortnight_end).toBe('2026-11-15');
    expect(doc.previous_fortnight_end).toBe('2026-10-31');
    expect(meta.sectors).toBe(SECTORS.length);
    expect(doc.sectors.map((s: { sector: string }) => s.sector).sort()).toEqual(
      SECTORS.map((s) => s.sector).sort(),
    );
    const hundredths = doc.sectors.reduce(
      (a: number, s: { aum_share_pct: number }) => a + Math.round(s.aum_share_pct * 100),
      0,
    );
    expect(hundredths).toBe(10_000);
    const aums = doc.sectors.map((s: { aum: number }) => s.aum);
    expect(aums).toEqual([...aums].sort((a, b) => b - a));
    for (const s of doc.sectors) expect(s.aum_share_pct).toBeCloseTo((100 * s.aum) / doc.total.aum, 1);
    expect(
      doc.sectors.reduce((a: number, s: { share_change_pp: number }) => a + s.share_change_pp, 0),
    ).toBeCloseTo(0, 6);
  });

  it('gives the fortnight’s flow and the flow of the year to it, which add up to the FII cash flow', async () => {
    const { data: doc } = readDocument(await rpc.getFpiSectors({}, ctx));
    const end = day('2026-11-15');
    const yearAgo = day('2025-11-15');
    for (const s of doc.sectors) {
      const rows = flows.fpiSectors.filter((r) => r.sector === s.sector);
      expect(s.fortnight_flow).toBe(rows.find((r) => r.periodEnd === end)!.flow / 100);
      const year = rows
        .filter((r) => r.periodEnd > yearAgo && r.periodEnd <= end)
        .reduce((a, r) => a + r.flow, 0);
      expect(s.one_year_flow).toBeCloseTo(year / 100, 2);
    }
    // Sector flows of the fortnight 2026-11-01..15 are the FII net cash buying of its sessions.
    const fii = flows.cash
      .filter((r) => r.d > day('2026-10-31') && r.d <= end)
      .reduce((a, r) => a + netOf(r).fii, 0);
    expect(doc.total.fortnight_flow).toBeCloseTo(fii, 2);
  });

  it('uses the fortnight held on or before the IST day, and answers NOT_FOUND with none', async () => {
    expect(readDocument(await rpcAt('2026-11-14').getFpiSectors({}, ctx)).data.fortnight_end).toBe(
      '2026-10-31',
    );
    expect((await rpcError(rpcAt('2015-01-01').getFpiSectors({}, ctx))).code).toBe(status.NOT_FOUND);
  });
});
