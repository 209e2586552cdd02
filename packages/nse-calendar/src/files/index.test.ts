import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { TradingCalendar } from '../calendar.ts';
import { day } from '../dates.ts';
import { parseHolidayFile } from './index.ts';

const REALDATA = new URL('../../../../../shared/realdata/', import.meta.url).pathname;

describe('the real holiday list', () => {
  it('parses whole: 36 years of weekday holidays, 1990 to 2025', () => {
    const path = `${REALDATA}nse_trading_holidays_weekday_1990-2025.csv`;
    const parsed = parseHolidayFile(path, readFileSync(path, 'utf8'));
    expect(parsed.form).toBe('holiday-csv');
    expect(parsed.years).toHaveLength(36);
    expect([parsed.years[0], parsed.years.at(-1)]).toEqual([1990, 2025]);
    expect(parsed.days).toHaveLength(680);
    expect(parsed.days[0]).toEqual({ date: '1990-07-04', kind: 'holiday', description: '' });
    expect(parsed.days.map((d) => d.date)).toContain('2025-12-25');
    expect(parsed.rows[0]).toEqual({ line: 2, date: '1990-07-04', kind: 'holiday', description: '' });

    const calendar = new TradingCalendar(parsed.days, 2025);
    expect(calendar.isTradingDay(day('2025-12-25'))).toBe(false);
    expect(calendar.isTradingDay(day('2025-12-24'))).toBe(true);
  });
});
