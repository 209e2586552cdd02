import { describe, expect, it } from 'vitest';
import { TradingCalendar } from './calendar.ts';
import { day, formatDay } from './dates.ts';

const cal = new TradingCalendar(
  [
    { date: '2027-01-26', kind: 'holiday', description: 'Republic Day' },
    { date: '2027-10-29', kind: 'special', description: 'Diwali Laxmi Pujan (Muhurat trading)' },
    { date: '2027-02-06', kind: 'special', description: 'Special session (a Saturday)' },
    { date: '2027-03-31', kind: 'clearing', description: 'Annual bank closing' },
  ],
  2027,
);
const on = (d: string) => cal.isTradingDay(day(d));

describe('a trading calendar', () => {
  it('closes weekends and holidays, opens special sessions, and leaves clearing holidays open for trading', () => {
    expect(on('2027-01-25')).toBe(true);
    expect(on('2027-01-26')).toBe(false);
    expect(on('2027-01-30')).toBe(false); // Saturday
    expect(on('2027-02-06')).toBe(true); // a Saturday session
    expect(on('2027-10-29')).toBe(true);
    expect(on('2027-03-31')).toBe(true);
  });

  it('moves to the previous session, or to the previous full session for what must not fall on a special one', () => {
    expect(formatDay(cal.tradingDayOnOrBefore(day('2027-01-26')))).toBe('2027-01-25');
    expect(formatDay(cal.tradingDayOnOrBefore(day('2027-02-07')))).toBe('2027-02-06');
    expect(formatDay(cal.regularTradingDayOnOrBefore(day('2027-02-07')))).toBe('2027-02-05');
    expect(formatDay(cal.regularTradingDayOnOrBefore(day('2027-10-29')))).toBe('2027-10-28');
  });

  it('counts sessions between two days and ends at 00:00 IST after its last year', () => {
    expect(cal.tradingDays(day('2027-01-25'), day('2027-01-31')).map(formatDay)).toEqual([
      '2027-01-25',
      '2027-01-27',
      '2027-01-28',
      '2027-01-29',
    ]);
    expect(new Date(cal.endMs()).toISOString()).toBe('2027-12-31T18:30:00.000Z');
    expect(cal.year(2027).map((d) => d.date)).toEqual([
      '2027-01-26',
      '2027-02-06',
      '2027-03-31',
      '2027-10-29',
    ]);
  });

  it('takes the last completed session by the IST clock, the day after a holiday included', () => {
    const at = (iso: string) => formatDay(cal.lastCompletedSession(Date.parse(iso)));
    expect(at('2027-01-26T11:00:00Z')).toBe('2027-01-25'); // Republic Day 16:30 IST
    expect(at('2027-01-27T10:30:00Z')).toBe('2027-01-27'); // 16:00 IST the day after
    expect(at('2027-01-27T10:29:00Z')).toBe('2027-01-25');
  });
});
