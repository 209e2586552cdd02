import { status } from '@mdp/grpc';
import { generateIndices } from '@mdp/market';
import { day } from '@mdp/nse-calendar';
import { describe, expect, it } from 'vitest';
import { indicesRpcs } from '../../src/areas/indices/rpcs.ts';
import { ctx, istClock, readDocument, rpcError, smallDataset } from '../support.ts';
import { fromGenerated, fromRealFiles } from './support.ts';

const real = fromRealFiles();
const rpcAt = (clock: () => number, data = real) =>
  indicesRpcs({ data: () => data, dataset: () => mem.dataset, bars: mem.source, clock });
const mem = smallDataset(900, day('2026-11-20'), 13);
const generated = fromGenerated(generateIndices(mem.generated));

const list = (
  clock: () => number,
  req: Partial<{
    periods: number;
    granularity: string;
    category: string;
    names: string[];
    limit: number;
    order: string;
  }>,
  data = real,
) =>
  rpcAt(clock, data).listIndices(
    { periods: 3, granularity: 'week', names: [], limit: 10, order: 'gainers', ...req },
    ctx,
  );

describe('ranking the real index file (hand computation)', () => {
  // The imported files hold the sessions 1, 2, 3, 6, 7, 8 January and 3, 4 March 2025.
  it('weekly: Saturday 11 Jan 2025, one period = close of Wed 8 Jan over close of Fri 3 Jan', async () => {
    // From the files' "Closing Index Value" column:
    //   Nifty 50    24004.75 (03-01) -> 23688.95 (08-01): 23688.95 / 24004.75 - 1 = -1.3156 %  -> -1.32
    //   Nifty IT    43726.55 (03-01) -> 43634.25 (08-01): 43634.25 / 43726.55 - 1 = -0.2111 %  -> -0.21
    //   Nifty Bank  50988.80 (03-01) -> 49835.05 (08-01): 49835.05 / 50988.80 - 1 = -2.2628 %  -> -2.26
    // Ordered as gainers: IT, 50, Bank.
    const { data, meta } = readDocument(
      await list(istClock('2025-01-11T12:00:00'), {
        periods: 1,
        names: ['nifty 50', 'NIFTY BANK', 'Nifty IT'],
      }),
    );
    expect(data.map((r: { name: string; return_pct: number }) => [r.name, r.return_pct])).toEqual([
      ['Nifty IT', -0.21],
      ['Nifty 50', -1.32],
      ['Nifty Bank', -2.26],
    ]);
    expect(data[1]).toMatchObject({
      rank: 2,
      family: 'broad',
      start: { date: '2025-01-03', close: 24004.75 },
      end: { date: '2025-01-08', close: 23688.95 },
    });
    expect(meta).toMatchObject({
      granularity: 'week',
      periods: 1,
      base_period: { from: '2024-12-30', to: '2025-01-05' },
      window: { from: '2025-01-06', to: '2025-01-12' },
      total: 3,
      not_ranked: [],
    });
  });

  it('monthly: 1 Apr 2025, two periods = close of 4 Mar over the close of January (8 Jan)', async () => {
    //   Nifty 50    23688.95 -> 22082.65: -6.7808 % -> -6.78
    //   Nifty IT    43634.25 -> 37276.95: -14.5695 % -> -14.57
    //   Nifty Bank  49835.05 -> 48245.20: -3.1902 % -> -3.19
    // As losers: IT, 50, Bank.
    const { data } = readDocument(
      await list(istClock('2025-04-01T12:00:00'), {
        periods: 2,
        granularity: 'month',
        names: ['Nifty Bank', 'Nifty IT', 'Nifty 50'],
        order: 'losers',
      }),
    );
    expect(data.map((r: { name: string; return_pct: number }) => [r.name, r.return_pct])).toEqual([
      ['Nifty IT', -14.57],
      ['Nifty 50', -6.78],
      ['Nifty Bank', -3.19],
    ]);
  });

  it('an index without a close in the base period is not ranked, and says so', async () => {
    // One month back from April is February, which the files do not cover.
    const { data, meta } = readDocument(
      await list(istClock('2025-04-01T12:00:00'), { periods: 1, granularity: 'month', names: ['Nifty 50'] }),
    );
    expect(data).toEqual([]);
    expect(meta.not_ranked).toEqual(['Nifty 50']);
    expect(meta.total).toBe(0);
  });

  it('ranks every equity index of the files; bond and volatility rows are not indices here', async () => {
    const { data, meta } = readDocument(
      await list(istClock('2025-01-11T12:00:00'), { periods: 1, limit: 50 }),
    );
    expect(meta.total).toBeGreaterThan(110);
    expect(data).toHaveLength(50);
    for (let i = 1; i < data.length; i++)
      expect(data[i].return_pct).toBeLessThanOrEqual(data[i - 1].return_pct);
    expect(real.find('India VIX')).toBeUndefined();
    expect(real.find('Nifty 10 yr Benchmark G-Sec')).toBeUndefined();
  });
});

describe('ranking parameters', () => {
  const clock = istClock('2026-11-21T12:00:00');

  it('category keeps one family; names override it and match without regard to case', async () => {
    const { data } = readDocument(await list(clock, { category: 'sectoral', limit: 50 }, generated));
    expect(data.length).toBeGreaterThan(5);
    expect(new Set(data.map((r: { family: string }) => r.family))).toEqual(new Set(['sectoral']));
    const named = readDocument(
      await list(clock, { category: 'sectoral', names: ['nifty 50', 'Nifty Next 50'] }, generated),
    );
    expect(named.data.map((r: { name: string }) => r.name).sort()).toEqual(['NIFTY 50', 'NIFTY NEXT 50']);
    expect(named.meta.category).toBeNull();
    expect(named.meta.names).toEqual(['NIFTY 50', 'NIFTY NEXT 50']);
  });

  it('limit caps the list; losers is the gainers list from the other end', async () => {
    const all = readDocument(await list(clock, { limit: 50, category: 'broad' }, generated)).data;
    const top = readDocument(await list(clock, { limit: 3, category: 'broad' }, generated)).data;
    expect(top).toEqual(all.slice(0, 3));
    const losers = readDocument(
      await list(clock, { limit: 50, category: 'broad', order: 'losers' }, generated),
    ).data;
    expect(losers.map((r: { name: string }) => r.name)).toEqual(
      [...all].reverse().map((r: { name: string }) => r.name),
    );
    expect(losers[0].rank).toBe(1);
  });

  it('returns agree with the generated closes on the period ends', async () => {
    const { data } = readDocument(await list(clock, { periods: 4, names: ['NIFTY BANK'] }, generated));
    const bank = generated.find('nifty bank')!;
    const close = (d: string) => bank.days.find((b) => b.d === day(d))!.close!;
    // Four weeks back from the week ending Friday 20 Nov 2026: base close Friday 23 Oct.
    expect(data[0].start).toEqual({ date: '2026-10-23', close: close('2026-10-23') });
    expect(data[0].end).toEqual({ date: '2026-11-20', close: close('2026-11-20') });
    expect(data[0].return_pct).toBeCloseTo((close('2026-11-20') / close('2026-10-23') - 1) * 100, 2);
  });

  it('an unknown name is a 400 on names that names it', async () => {
    const err = await rpcError(list(clock, { names: ['NIFTY 50', 'NIFTY 5O'] }, generated));
    expect(err.code).toBe(status.INVALID_ARGUMENT);
    expect(err.param).toBe('names');
    expect(err.message).toContain('NIFTY 5O');
  });

  it('checks every bound itself', async () => {
    const cases: [Parameters<typeof list>[1], string][] = [
      [{ periods: 0 }, 'periods'],
      [{ periods: 13 }, 'periods'],
      [{ periods: 1.5 }, 'periods'],
      [{ granularity: 'day' }, 'granularity'],
      [{ category: 'sector' }, 'category'],
      [{ limit: 0 }, 'limit'],
      [{ limit: 51 }, 'limit'],
      [{ order: 'best' }, 'order'],
      [{ names: Array.from({ length: 51 }, () => 'NIFTY 50') }, 'names'],
    ];
    for (const [req, param] of cases) {
      const err = await rpcError(list(clock, req, generated));
      expect([err.code, err.param]).toEqual([status.INVALID_ARGUMENT, param]);
    }
    // The edges are accepted.
    for (const req of [
      { periods: 1 },
      { periods: 12 },
      { limit: 1 },
      { limit: 50 },
      { granularity: 'month' },
    ])
      await expect(list(clock, req, generated)).resolves.toBeDefined();
  });
});
