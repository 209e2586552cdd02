import { readdirSync } from 'node:fs';
import type { BarRow, CorporateActionRow } from '@mdp/market';
import { isinCheckDigit, isValidIsin } from '@mdp/market';
import {
  day,
  formatDay,
  isTradingDay,
  parseDay,
  parseExchangeDate,
  weekday,
  weekStart,
} from '@mdp/nse-calendar';
import { describe, expect, it } from 'vitest';
import { adjustBars, adjustmentFactor, deliveryPct } from '../../src/areas/stocks/domain/adjust.ts';
import { CursorError, pageWindow } from '../../src/areas/stocks/domain/price-window.ts';
import { weeklyBars } from '../../src/areas/stocks/domain/weekly.ts';
import { REALDATA } from '../support.ts';

describe('dates', () => {
  it('accepts real calendar dates only', () => {
    expect(formatDay(day('2024-02-29'))).toBe('2024-02-29');
    expect(parseDay('2023-02-29')).toBeUndefined();
    expect(parseDay('2024-1-05')).toBeUndefined();
    expect(parseDay('2024-13-01')).toBeUndefined();
  });

  it('reads the date spellings of exchange files', () => {
    const d = day('2025-08-28');
    for (const s of ['2025-08-28', '28-Aug-2025', '28-AUG-25', '28 AUG 2025', '20250828', '28082025'])
      expect(parseExchangeDate(s), s).toBe(d);
    expect(parseExchangeDate('31-Feb-2025')).toBeUndefined();
    expect(parseExchangeDate('yesterday')).toBeUndefined();
  });

  it('numbers weekdays from Monday and finds the week start', () => {
    expect(weekday(day('2026-11-23'))).toBe(0); // a Monday
    expect(weekday(day('2026-11-22'))).toBe(6);
    expect(formatDay(weekStart(day('2026-11-22')))).toBe('2026-11-16');
  });
});

describe('ISIN check digits', () => {
  it('validates real ISINs of equities, funds and trusts', () => {
    for (const isin of [
      'INE002A01018',
      'INE009A01021',
      'INE101A01026',
      'INF204KB14I2',
      'INE0FDU25010',
      'INE028L21018',
    ])
      expect(isValidIsin(isin), isin).toBe(true);
  });

  it('refuses a wrong check digit or shape', () => {
    expect(isValidIsin('INE002A01017')).toBe(false);
    expect(isValidIsin('DUM418H01029')).toBe(false);
    expect(isValidIsin('Not Available')).toBe(false);
    expect(isinCheckDigit('INE002A0101')).toBe(8);
  });
});

describe('NSE trading calendar', () => {
  it('has a trading day for every real bhavcopy of 2025-26, the special sessions included', () => {
    const days = readdirSync(`${REALDATA}/nse_cm_bhavcopy_2025-08_to_2026-07`).map((f) => f.slice(8, 18));
    expect(days.length).toBe(195);
    // Diwali Muhurat trading on a holiday, and the Union Budget session on Sunday 1 February 2026, are
    // sessions of the seed calendar.
    expect(days.filter((d) => !isTradingDay(day(d)))).toEqual([]);
    expect(days).toContain('2025-10-21');
    expect(days).toContain('2026-02-01');
  });
});

describe('split and bonus adjustment', () => {
  const bar = (d: string, close: number): BarRow => ({
    stockId: 1,
    d: day(d),
    open: close,
    high: close + 100,
    low: close - 100,
    close,
    volume: 1000,
    deliveryQty: 400,
  });
  const split: CorporateActionRow = {
    stockId: 1,
    exDate: day('2026-03-02'),
    kind: 'split',
    ratioNew: 5,
    ratioOld: 1,
    description: 'split 10 to 2',
  };

  it('scales prices before the ex-date down and volumes up, leaving delivery % alone', () => {
    expect(adjustmentFactor([split], day('2026-02-27'))).toBeCloseTo(0.2);
    expect(adjustmentFactor([split], day('2026-03-02'))).toBe(1);
    const [before, after] = adjustBars([bar('2026-02-27', 100_000), bar('2026-03-02', 20_100)], [split]);
    expect(before).toMatchObject({ close: 200, high: 200.2, low: 199.8, volume: 5000, deliveryQty: 2000 });
    expect(after).toMatchObject({ close: 201, volume: 1000 });
    expect(deliveryPct(before!.deliveryQty, before!.volume)).toBe(40);
  });
});

describe('price pages', () => {
  const today = day('2026-11-20');
  const first = day('2020-01-06');

  it('ends at today by default and spans `days` calendar days', () => {
    expect(pageWindow({ days: 365, interval: 'daily' }, today, first)).toEqual({
      from: today - 364,
      to: today,
    });
  });

  it('starts weekly pages on a Monday so no week is split', () => {
    const w = pageWindow({ days: 30, interval: 'weekly', endDate: '2026-11-18' }, today, first);
    expect(weekday(w.from)).toBe(0);
    expect(w.from).toBeLessThanOrEqual(day('2026-11-18') - 29);
  });

  it('refuses cursors it could not have issued', () => {
    const page =
      (endDate: string, firstBar: number | null = first) =>
      () =>
        pageWindow({ days: 10, interval: 'daily', endDate }, today, firstBar ?? undefined);
    expect(page('2026-02-30')).toThrow(CursorError);
    expect(page('2026-11-21')).toThrow(/after today/);
    expect(page('2019-12-31')).toThrow(/before the first bar/);
    expect(page('2026-01-05', null)).toThrow(/no price history/);
    expect(page('2020-01-06')()).toEqual({ from: day('2019-12-28'), to: first });
  });
});

describe('weekly bars', () => {
  it('take the first open, highest high, lowest low, last close and summed volume of each ISO week', () => {
    const d = (
      s: string,
      o: number,
      h: number,
      l: number,
      c: number,
      v: number,
      dq: number | null = null,
    ) => ({
      d: day(s),
      open: o,
      high: h,
      low: l,
      close: c,
      volume: v,
      deliveryQty: dq,
    });
    const weeks = weeklyBars([
      d('2026-11-05', 10, 12, 9, 11, 100, 50), // Thursday
      d('2026-11-06', 11, 15, 10, 14, 200, 50), // Friday
      d('2026-11-09', 14, 14, 8, 9, 300, 30), // Monday, next week
      d('2026-11-11', 9, 10, 7, 10, 100), // no delivery figure
    ]);
    expect(weeks).toHaveLength(2);
    expect(weeks[0]).toMatchObject({
      weekStart: day('2026-11-02'),
      d: day('2026-11-06'),
      open: 10,
      high: 15,
      low: 9,
      close: 14,
      volume: 300,
      deliveryQty: 100,
      sessions: 2,
    });
    expect(weeks[1]).toMatchObject({
      weekStart: day('2026-11-09'),
      open: 14,
      high: 14,
      low: 7,
      close: 10,
      volume: 400,
      deliveryQty: null,
    });
  });
});
