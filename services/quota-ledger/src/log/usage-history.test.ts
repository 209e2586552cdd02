import { describe, expect, it } from 'vitest';
import { type HistoryRows, historyWindow, usageHistoryDocument } from './usage-history.ts';

const at = (iso: string) => () => Date.parse(iso);
const none: HistoryRows = { daily: [], hourly: [], routes: [] };

describe('usage history window', () => {
  it('covers the last 30 IST days, oldest first, ending with today (IST, not UTC)', () => {
    // 19:00Z on 14 March is 00:30 IST on 15 March.
    const w = historyWindow(at('2026-03-14T19:00:00Z'));
    expect(w.days).toHaveLength(30);
    expect(w.days[29]).toBe('2026-03-15');
    expect(w.days[0]).toBe('2026-02-14');
    expect(w.today).toBe('2026-03-15');
    expect(w.month).toBe('2026-03');
    expect(w.monthFirstDay).toBe('2026-03-01');
    expect(new Set(w.days).size).toBe(30);
    expect([...w.days].sort()).toEqual(w.days);
  });

  it('crosses month and year ends, and leap days', () => {
    const w = historyWindow(at('2028-03-10T06:00:00Z'));
    expect(w.days[29]).toBe('2028-03-10');
    expect(w.days).toContain('2028-02-29');
    expect(w.days[0]).toBe('2028-02-10');
    expect(historyWindow(at('2027-01-05T00:00:00Z')).days.slice(0, 2)).toEqual(['2026-12-07', '2026-12-08']);
  });

  it('covers the last 24 IST clock hours (starting at half past a UTC hour), ending with the current one', () => {
    const w = historyWindow(at('2026-03-14T10:42:17.123Z'));
    expect(w.hours).toHaveLength(24);
    expect(new Date(w.hours[23]!).toISOString()).toBe('2026-03-14T10:30:00.000Z');
    expect(new Date(w.hours[0]!).toISOString()).toBe('2026-03-13T11:30:00.000Z');
    expect(w.hoursFrom).toBe(w.hours[0]);
    expect(new Date(w.hoursTo).toISOString()).toBe('2026-03-14T11:30:00.000Z');
  });
});

describe('usage history document', () => {
  const w = historyWindow(at('2026-03-14T10:42:00Z'));

  it('is all zeros, with every day and hour present, for an account without usage', () => {
    const doc = usageHistoryDocument(w, none);
    expect(doc.days).toHaveLength(30);
    expect(doc.days.every((d) => d.units === 0)).toBe(true);
    expect(doc.hours).toHaveLength(24);
    expect(doc.hours.every((h) => h.units === 0)).toBe(true);
    expect(doc.hours[23]).toEqual({ hour: '2026-03-14T10:30:00Z', units: 0 });
    expect(doc.by_route).toEqual({ day: {}, month: {} });
    expect(doc.by_interface_days[29]).toEqual({ day: '2026-03-14', by_interface: { rest: 0, mcp: 0 } });
  });

  it('sums interfaces into a day, fills the gaps, and ignores rows outside the window', () => {
    const doc = usageHistoryDocument(w, {
      ...none,
      daily: [
        { day: '2026-03-14', via: 'rest', units: 3 },
        { day: '2026-03-14', via: 'mcp', units: 2 },
        { day: '2026-02-13', via: 'rest', units: 99 },
        { day: '2026-02-12', via: 'rest', units: 50 },
        { day: '2026-03-10', via: 'mcp', units: 1 },
      ],
    });
    expect(doc.days[0]).toEqual({ day: '2026-02-13', units: 99 });
    expect(doc.days.find((d) => d.day === '2026-03-10')).toEqual({ day: '2026-03-10', units: 1 });
    expect(doc.days[29]).toEqual({ day: '2026-03-14', units: 5 });
    expect(doc.days.reduce((s, d) => s + d.units, 0)).toBe(105);
    expect(doc.by_interface_days[29]!.by_interface).toEqual({ rest: 3, mcp: 2 });
  });

  it('places hourly counts by the start of their hour and ignores hours outside the window', () => {
    const doc = usageHistoryDocument(w, {
      ...none,
      hourly: [
        { hourMs: Date.parse('2026-03-14T10:30:00Z'), units: 4 },
        { hourMs: Date.parse('2026-03-13T11:30:00Z'), units: 1 },
        { hourMs: Date.parse('2026-03-13T10:30:00Z'), units: 7 },
      ],
    });
    expect(doc.hours[23]).toEqual({ hour: '2026-03-14T10:30:00Z', units: 4 });
    expect(doc.hours[0]).toEqual({ hour: '2026-03-13T11:30:00Z', units: 1 });
    expect(doc.hours.reduce((s, h) => s + h.units, 0)).toBe(5);
  });

  it('lists routes used in each period, most used first, leaving out those unused today', () => {
    const doc = usageHistoryDocument(w, {
      ...none,
      routes: [
        { route: 'getStockQuote', day: 1, month: 9 },
        { route: 'searchStocks', day: 4, month: 4 },
        { route: 'getOptionChain', day: 0, month: 4 },
      ],
    });
    expect(doc.by_route.day).toEqual({ searchStocks: 4, getStockQuote: 1 });
    expect(Object.keys(doc.by_route.day)).toEqual(['searchStocks', 'getStockQuote']);
    expect(Object.keys(doc.by_route.month)).toEqual(['getStockQuote', 'getOptionChain', 'searchStocks']);
  });

  it('serialises to the documented shape', () => {
    const doc = JSON.parse(JSON.stringify(usageHistoryDocument(w, none)));
    expect(Object.keys(doc)).toEqual(['days', 'hours', 'by_route', 'by_interface_days']);
  });
});
