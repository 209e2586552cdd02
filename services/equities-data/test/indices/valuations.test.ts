import { readFileSync } from 'node:fs';
import { status } from '@mdp/grpc';
import { generateIndices } from '@mdp/market';
import { day, formatDay, weekStart } from '@mdp/nse-calendar';
import { describe, expect, it } from 'vitest';
import type { IndicesData } from '../../src/areas/indices/data.ts';
import { indicesRpcs } from '../../src/areas/indices/rpcs.ts';
import { summarize, VALUATION_INDICES } from '../../src/areas/indices/valuations.ts';
import { ctx, istClock, readDocument, rpcError, smallDataset } from '../support.ts';
import { fromGenerated, fromRealFiles, NIFTY_PE_FILE } from './support.ts';

const mem = smallDataset(10);
const real = fromRealFiles();
const valuations = (
  index: string,
  years: number,
  data: IndicesData = real,
  clock = istClock('2026-07-02T12:00:00'),
) =>
  indicesRpcs({ data: () => data, dataset: () => mem.dataset, bars: mem.source, clock }).getValuations(
    { index, years },
    ctx,
  );

/** The real file read independently: date → [PE, PB, DY], newest first as in the file. */
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const fileRows = readFileSync(NIFTY_PE_FILE, 'utf8')
  .trim()
  .split('\n')
  .slice(1)
  .map((line) => {
    const [date, , pe, pb, dy] = line.split(',');
    const [dd, mon, yyyy] = date!.split(' ');
    const iso = `${yyyy}-${String(MONTHS.indexOf(mon!) + 1).padStart(2, '0')}-${dd}`;
    return { iso, pe: Number(pe), pb: Number(pb), dy: Number(dy) };
  });

describe('valuations', () => {
  it('one year of NIFTY 50 P/E, P/B and yield from the real history, with mean, bands and percentile', async () => {
    const { data, meta } = readDocument(await valuations('nifty-50', 1));
    // The file's latest day is 1 Jul 2026; one year back starts the day after 1 Jul 2025.
    const window = fileRows.filter((r) => r.iso >= '2025-07-02' && r.iso <= '2026-07-01').reverse();
    expect(data).toMatchObject({
      index: 'nifty-50',
      name: 'Nifty 50',
      years: 1,
      from: window[0]!.iso,
      to: '2026-07-01',
    });
    expect(data.bar_interval).toBe('1d');
    expect(data.series).toHaveLength(window.length);
    expect(meta.points).toBe(window.length);
    expect(data.series.at(-1)).toEqual({ date: '2026-07-01', pe: 20.7, pb: 3.13, div_yield: 1.23 });
    const pes = window.map((r) => r.pe);
    const mean = pes.reduce((a, b) => a + b, 0) / pes.length;
    const sd = Math.sqrt(pes.reduce((a, b) => a + (b - mean) ** 2, 0) / (pes.length - 1));
    expect(data.summary.pe.observations).toBe(pes.length);
    expect(data.summary.pe.current).toBe(20.7);
    expect(data.summary.pe.mean).toBeCloseTo(mean, 2);
    expect(data.summary.pe.sd).toBeCloseTo(sd, 2);
    expect(data.summary.pe.minus_1sd).toBeCloseTo(mean - sd, 2);
    expect(data.summary.pe.plus_1sd).toBeCloseTo(mean + sd, 2);
    expect(data.summary.pe.min).toBe(Math.min(...pes));
    expect(data.summary.pe.max).toBe(Math.max(...pes));
    const atOrBelow = pes.filter((v) => v <= 20.7).length;
    expect(data.summary.pe.current_percentile).toBeCloseTo((100 * atOrBelow) / pes.length, 1);
    expect(data.summary.div_yield.current).toBe(1.23);
  });

  it('20 years: statistics over every day, the series one point per week (its last day)', async () => {
    const { data } = readDocument(await valuations('nifty-50', 20));
    const window = fileRows.filter((r) => r.iso >= '2006-07-02' && r.iso <= '2026-07-01').reverse();
    expect(data.bar_interval).toBe('1w');
    expect(data.from).toBe(window[0]!.iso);
    expect(data.summary.pb.observations).toBe(window.length);
    const lastOfWeek = window.filter(
      (r, i) => weekStart(day(r.iso)) !== weekStart(day(window[i + 1]?.iso ?? '2099-01-01')),
    );
    expect(data.series.map((p: { date: string }) => p.date)).toEqual(lastOfWeek.map((r) => r.iso));
  });

  it('the window ends at IST today: no later observation is used', async () => {
    const { data } = readDocument(await valuations('nifty-50', 2, real, istClock('2020-03-31T12:00:00')));
    expect(data.to).toBe(fileRows.find((r) => r.iso <= '2020-03-31')!.iso);
  });

  it('generated indices carry their own ratios; an index with none is a 404', async () => {
    const g = smallDataset(700, day('2026-11-20'), 3);
    const gen = fromGenerated(generateIndices(g.generated, ['NIFTY BANK']));
    const { data } = readDocument(await valuations('nifty-bank', 5, gen, istClock('2026-11-22T12:00:00')));
    const bank = gen.find('NIFTY BANK')!.days;
    expect(data.to).toBe('2026-11-20');
    expect(data.series.at(-1)).toEqual({
      date: '2026-11-20',
      pe: bank.at(-1)!.pe,
      pb: bank.at(-1)!.pb,
      div_yield: bank.at(-1)!.divYield,
    });
    expect(data.series[0].date).toBe(formatDay(bank.find((b) => b.d >= day('2021-11-21'))!.d));
    const err = await rpcError(valuations('nifty-it', 5, gen));
    expect(err.code).toBe(status.NOT_FOUND);
  });

  it('every index the route offers is a generated index', async () => {
    const g = smallDataset(700, day('2026-11-20'), 3);
    const gen = fromGenerated(generateIndices(g.generated, Object.values(VALUATION_INDICES)));
    for (const [slug, name] of [
      ['nifty-50', 'NIFTY 50'],
      ['nifty-500', 'NIFTY 500'],
      ['nifty-bank', 'NIFTY BANK'],
      ['nifty-midcap-50', 'NIFTY MIDCAP 50'],
      ['nifty-it', 'NIFTY IT'],
      ['nifty-next-50', 'NIFTY NEXT 50'],
    ]) {
      const { data } = readDocument(await valuations(slug!, 1, gen, istClock('2026-11-22T12:00:00')));
      expect([data.index, data.name, data.to]).toEqual([slug, name, '2026-11-20']);
      expect(data.summary.pb.observations).toBeGreaterThan(240);
    }
  });

  it('checks index and years itself', async () => {
    for (const [index, years, param] of [
      ['nifty-100', 5, 'index'],
      ['NIFTY 50', 5, 'index'],
      ['nifty-50', 0, 'years'],
      ['nifty-50', 21, 'years'],
    ] as const) {
      const err = await rpcError(valuations(index, years));
      expect([err.code, err.param]).toEqual([status.INVALID_ARGUMENT, param]);
    }
    for (const years of [1, 20]) await expect(valuations('nifty-50', years)).resolves.toBeDefined();
  });

  it('summary statistics: percentile counts ties, a single value has no spread', () => {
    expect(summarize([1, 2, 3, 4, 2])).toMatchObject({
      observations: 5,
      current: 2,
      mean: 2.4,
      min: 1,
      max: 4,
      current_percentile: 60,
    });
    expect(summarize([5])).toMatchObject({ sd: 0, minus_1sd: 5, plus_1sd: 5, current_percentile: 100 });
    expect(summarize([])).toBeNull();
  });
});
