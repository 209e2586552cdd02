import { day, formatDay, tradingDays } from '@mdp/nse-calendar';
import { describe, expect, it } from 'vitest';
import { type IndexSeries, IndicesData } from '../../src/areas/indices/data.ts';
import { completedPeriods } from '../../src/areas/indices/periods.ts';
import { indicesRpcs } from '../../src/areas/indices/rpcs.ts';
import { ctx, istClock, readDocument } from '../support.ts';

const spans = (today: string, g: 'week' | 'month', n: number) =>
  completedPeriods(day(today), g, n).map((p) => `${formatDay(p.start)}..${formatDay(p.end)}`);

describe('completed periods (the running week or month never counts)', () => {
  it('mid-week: the latest complete week is last week', () => {
    // Wednesday 2026-11-18: the week of 16 Nov is running.
    expect(spans('2026-11-18', 'week', 2)).toEqual([
      '2026-10-26..2026-11-01',
      '2026-11-02..2026-11-08',
      '2026-11-09..2026-11-15',
    ]);
  });

  it('on a Friday the week is still running; from Saturday it is complete; on Monday it is last week', () => {
    expect(spans('2026-11-20', 'week', 1).at(-1)).toBe('2026-11-09..2026-11-15');
    expect(spans('2026-11-21', 'week', 1).at(-1)).toBe('2026-11-16..2026-11-22');
    expect(spans('2026-11-22', 'week', 1).at(-1)).toBe('2026-11-16..2026-11-22');
    expect(spans('2026-11-23', 'week', 1).at(-1)).toBe('2026-11-16..2026-11-22');
  });

  it('a week whose last session was Thursday (Good Friday 2026-04-03) is complete on that Friday', () => {
    expect(spans('2026-04-03', 'week', 1).at(-1)).toBe('2026-03-30..2026-04-05');
    expect(spans('2026-04-02', 'week', 1).at(-1)).toBe('2026-03-23..2026-03-29');
  });

  it('months: complete from the day after their last session, which may precede the month end', () => {
    // 30 Oct 2026 is October's last session: that day October still runs; Saturday 31 Oct it is complete.
    expect(spans('2026-10-30', 'month', 1)).toEqual(['2026-08-01..2026-08-31', '2026-09-01..2026-09-30']);
    expect(spans('2026-10-31', 'month', 1).at(-1)).toBe('2026-10-01..2026-10-31');
    expect(spans('2026-11-02', 'month', 1).at(-1)).toBe('2026-10-01..2026-10-31');
    // 31 Mar 2026 is a holiday: March's last session was the 30th, so on the 31st March is complete.
    expect(spans('2026-03-30', 'month', 1).at(-1)).toBe('2026-02-01..2026-02-28');
    expect(spans('2026-03-31', 'month', 1).at(-1)).toBe('2026-03-01..2026-03-31');
    // Over a year end: in early January the last twelve months run back into the previous year.
    expect(spans('2027-01-04', 'month', 12)[0]).toBe('2025-12-01..2025-12-31');
    expect(spans('2027-01-04', 'month', 12).at(-1)).toBe('2026-12-01..2026-12-31');
  });
});

// An index closing at 1000 + (days since 2026-01-01) on every session of 2026: each period's close
// tells which session it came from.
const start = day('2026-01-01');
const line: IndexSeries = {
  id: 1,
  name: 'LINE',
  family: 'broad',
  constituents: 0,
  days: tradingDays(start, day('2026-12-31')).map((d) => {
    const v = 1000 + (d - start);
    return { d, open: v, high: v, low: v, close: v, pe: null, pb: null, divYield: null };
  }),
};
const ranking = (clock: () => number, granularity: string, periods: number) =>
  indicesRpcs({
    data: () => new IndicesData([line]),
    dataset: undefined as never,
    bars: undefined as never,
    clock,
  }).listIndices({ periods, granularity, names: [], limit: 10, order: 'gainers' }, ctx);

describe('the ranking uses the closes of completed periods only', () => {
  const closes = async (clock: () => number, g: string, n: number) => {
    const { data, meta } = readDocument(await ranking(clock, g, n));
    return { start: data[0].start, end: data[0].end, window: meta.window, base: meta.base_period };
  };

  it('Friday after the close still measures to the previous Friday', async () => {
    const r = await closes(istClock('2026-11-20T19:00:00'), 'week', 2);
    expect(r.end).toEqual({ date: '2026-11-13', close: 1000 + (day('2026-11-13') - start) });
    expect(r.start).toEqual({ date: '2026-10-30', close: 1000 + (day('2026-10-30') - start) });
    expect(r.window).toEqual({ from: '2026-11-02', to: '2026-11-15' });
  });

  it('Saturday and Monday measure to the Friday just gone', async () => {
    for (const t of ['2026-11-21T10:00:00', '2026-11-23T09:00:00', '2026-11-23T16:00:00']) {
      const r = await closes(istClock(t), 'week', 1);
      expect(r.end.date).toBe('2026-11-20');
      expect(r.start.date).toBe('2026-11-13');
    }
  });

  it('the IST day decides, not the UTC one: 00:30 IST Saturday is already Saturday', async () => {
    // 2026-11-20T19:00Z is Saturday 00:30 in India.
    const r = await closes(() => Date.parse('2026-11-20T19:00:00Z'), 'week', 1);
    expect(r.end.date).toBe('2026-11-20');
  });

  it('a week with a holiday closes on its last session (Tuesday 24 Nov 2026 is a holiday)', async () => {
    const r = await closes(istClock('2026-11-30T12:00:00'), 'week', 1);
    expect(r.end.date).toBe('2026-11-27');
    expect(r.start.date).toBe('2026-11-20');
  });

  it('months: the close of the last session of each month, the running month left out', async () => {
    const r = await closes(istClock('2026-11-20T12:00:00'), 'month', 3);
    expect(r.base).toEqual({ from: '2026-07-01', to: '2026-07-31' });
    expect(r.start.date).toBe('2026-07-31');
    expect(r.end.date).toBe('2026-10-30');
    const m = await closes(istClock('2026-03-31T12:00:00'), 'month', 1);
    expect(m.end.date).toBe('2026-03-30');
    expect(m.start.date).toBe('2026-02-27');
  });
});
