import { status } from '@mdp/grpc';
import { generateIndices } from '@mdp/market';
import { day, formatDay, isTradingDay } from '@mdp/nse-calendar';
import { describe, expect, it } from 'vitest';
import type { IndexDay } from '../../src/areas/indices/data.ts';
import { indicesRpcs } from '../../src/areas/indices/rpcs.ts';
import { ctx, istClock, readDocument, rpcError, smallDataset } from '../support.ts';
import { fromGenerated, fromRealFiles } from './support.ts';

const mem = smallDataset(400, day('2026-11-20'), 17);
const data = fromGenerated(generateIndices(mem.generated, ['NIFTY 50', 'NIFTY BANK']));
const rpcAt = (clock: () => number, d = data) =>
  indicesRpcs({ data: () => d, dataset: () => mem.dataset, bars: mem.source, clock });
const history = (name: string, interval: string, clock = istClock('2026-11-22T12:00:00')) =>
  rpcAt(clock).getIndexHistory({ name, interval }, ctx);
const daily = data.find('NIFTY 50')!.days;

interface Bar {
  date: string;
  open: number;
  high: number;
  low: number;
  close: number;
  pe: number | null;
  pb: number | null;
  div_yield: number | null;
  week_start?: string;
  sessions?: number;
}

describe('index history', () => {
  it('daily intervals: one bar per session from the day after the same date months back', async () => {
    for (const [interval, from] of [
      ['1m', '2026-10-21'],
      ['3m', '2026-08-21'],
      ['6m', '2026-05-21'],
      ['1y', '2025-11-21'],
    ]) {
      const { data: doc, meta } = readDocument(await history('NIFTY 50', interval!));
      const expected = daily.filter((b) => b.d >= day(from!));
      expect(doc.bars.map((b: Bar) => b.date)).toEqual(expected.map((b) => formatDay(b.d)));
      expect(meta).toMatchObject({ bar_interval: '1d', window: { from, to: '2026-11-20' } });
      expect(doc.bars.at(-1)).toEqual({
        date: '2026-11-20',
        open: daily.at(-1)!.open,
        high: daily.at(-1)!.high,
        low: daily.at(-1)!.low,
        close: daily.at(-1)!.close,
        pe: daily.at(-1)!.pe,
        pb: daily.at(-1)!.pb,
        div_yield: daily.at(-1)!.divYield,
      });
    }
  });

  it('matches the name without regard to case, and answers 404 for an unknown index', async () => {
    const a = readDocument(await history('nifty bank', '1m')).data;
    expect(a.name).toBe('NIFTY BANK');
    expect(a.family).toBe('sectoral');
    const err = await rpcError(history('NIFTY BANKS', '1m'));
    expect(err.code).toBe(status.NOT_FOUND);
  });

  it('never shows a session after IST today', async () => {
    // Sunday 14 June 2026: the generated data runs on to November, but the history stops on Friday.
    const { data: doc } = readDocument(await history('NIFTY 50', '1m', istClock('2026-06-14T09:00:00')));
    expect(doc.bars.at(-1).date).toBe('2026-06-12');
    expect(doc.bars[0].date).toBe('2026-05-13');
  });

  /** ISO-week bars written out independently: Monday-based weeks of the daily bars. */
  function byWeek(days: readonly IndexDay[]) {
    const weeks = new Map<number, IndexDay[]>();
    for (const b of days) {
      const monday = b.d - ((b.d + 3) % 7);
      weeks.set(monday, [...(weeks.get(monday) ?? []), b]);
    }
    return weeks;
  }

  it('2y and max are weekly: first open, highest high, lowest low, last close and ratios of the week', async () => {
    for (const interval of ['2y', 'max']) {
      const { data: doc, meta } = readDocument(await history('NIFTY 50', interval));
      expect(meta.bar_interval).toBe('1w');
      const from = day(meta.window.from);
      // The window starts on a Monday so its first week is whole.
      expect((from + 3) % 7).toBe(0);
      const weeks = byWeek(daily.filter((b) => b.d >= from));
      expect(doc.bars).toHaveLength(weeks.size);
      for (const bar of doc.bars as Bar[]) {
        const w = weeks.get(day(bar.week_start!))!;
        expect(bar).toEqual({
          date: formatDay(w.at(-1)!.d),
          week_start: bar.week_start,
          sessions: w.length,
          open: w[0]!.open,
          high: Math.max(...w.map((b) => b.high!)),
          low: Math.min(...w.map((b) => b.low!)),
          close: w.at(-1)!.close,
          pe: w.at(-1)!.pe,
          pb: w.at(-1)!.pb,
          div_yield: w.at(-1)!.divYield,
        });
      }
    }
  });

  it('weeks with holidays are short and cross month ends correctly', async () => {
    const bars = readDocument(await history('NIFTY 50', '2y')).data.bars as Bar[];
    const week = (monday: string) => bars.find((b) => b.week_start === monday)!;
    // 31 Mar and 3 Apr 2026 are holidays: the week has three sessions, closing Thursday 2 April.
    expect(week('2026-03-30')).toMatchObject({ sessions: 3, date: '2026-04-02' });
    expect(week('2026-03-30').open).toBe(daily.find((b) => b.d === day('2026-03-30'))!.open);
    // Republic Day, Monday 26 Jan 2026: the week opens on Tuesday, and the Union Budget session on
    // Sunday 1 February closes it.
    expect(week('2026-01-26')).toMatchObject({
      sessions: 5,
      date: '2026-02-01',
      open: daily.find((b) => b.d === day('2026-01-27'))!.open,
    });
    // A week with a Tuesday holiday (24 Nov 2026 lies after the data; 10 Nov 2026 is one).
    expect(week('2026-11-09').sessions).toBe(4);
    expect(bars.every((b) => isTradingDay(day(b.date)))).toBe(true);
  });

  it('checks its parameters itself', async () => {
    for (const [name, interval, param] of [
      ['NIFTY 50', '5y', 'interval'],
      ['NIFTY 50', '', 'interval'],
      ['', '1m', 'name'],
      ['N'.repeat(65), '1m', 'name'],
    ]) {
      const err = await rpcError(history(name!, interval!));
      expect([err.code, err.param]).toEqual([status.INVALID_ARGUMENT, param]);
    }
  });

  it('serves imported real indices, whose weeks may lack sessions the file does not have', async () => {
    const real = fromRealFiles();
    const { data: doc } = readDocument(
      await rpcAt(istClock('2025-03-05T12:00:00'), real).getIndexHistory(
        { name: 'NIFTY IT', interval: '3m' },
        ctx,
      ),
    );
    expect(doc.name).toBe('Nifty IT');
    expect(doc.bars.map((b: Bar) => b.date)).toEqual([
      '2025-01-01',
      '2025-01-02',
      '2025-01-03',
      '2025-01-06',
      '2025-01-07',
      '2025-01-08',
      '2025-03-03',
      '2025-03-04',
    ]);
    // From the file: Nifty IT 04-03-2025 open 37228.8 high 37537.2 low 36797.4 close 37276.95, P/E 28.25, P/B 7.71, DY 2.75.
    expect(doc.bars.at(-1)).toEqual({
      date: '2025-03-04',
      open: 37228.8,
      high: 37537.2,
      low: 36797.4,
      close: 37276.95,
      pe: 28.25,
      pb: 7.71,
      div_yield: 2.75,
    });
    const weekly = readDocument(
      await rpcAt(istClock('2025-03-05T12:00:00'), real).getIndexHistory(
        { name: 'nifty it', interval: 'max' },
        ctx,
      ),
    ).data.bars as Bar[];
    // Week of 6 Jan 2025 in the file: Mon 43961.65 open ... Wed close 43634.25; high 44331.10 (Mon), low 42735.55 (Wed).
    expect(weekly.find((b) => b.week_start === '2025-01-06')).toMatchObject({
      date: '2025-01-08',
      sessions: 3,
      open: 43961.65,
      high: 44331.1,
      low: 42735.55,
      close: 43634.25,
    });
  });
});
