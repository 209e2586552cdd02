import { describe, expect, it } from 'vitest';
import {
  DAY_MS,
  istDateStart,
  istDay,
  istDayStart,
  istMonth,
  istMonthStart,
  istNextDayStart,
  istNextMonthStart,
} from './ist.ts';

const at = (iso: string) => Date.parse(iso);

describe('IST windows', () => {
  it('the day turns over at 18:30:00Z, not at UTC midnight', () => {
    expect(istDay(at('2026-03-14T18:29:59.999Z'))).toBe('2026-03-14');
    expect(istDay(at('2026-03-14T18:30:00.000Z'))).toBe('2026-03-15');
    expect(istDay(at('2026-03-15T00:00:00.000Z'))).toBe('2026-03-15');
  });

  it('next reset of the day window is the coming 18:30Z', () => {
    expect(new Date(istNextDayStart(at('2026-03-14T18:29:59Z'))).toISOString()).toBe(
      '2026-03-14T18:30:00.000Z',
    );
    expect(new Date(istNextDayStart(at('2026-03-14T18:30:00Z'))).toISOString()).toBe(
      '2026-03-15T18:30:00.000Z',
    );
    expect(new Date(istDayStart(at('2026-03-14T10:00:00Z'))).toISOString()).toBe('2026-03-13T18:30:00.000Z');
  });

  it('the month turns over at 18:30Z on the last UTC day of the previous month', () => {
    expect(istMonth(at('2026-01-31T18:29:59Z'))).toBe('2026-01');
    expect(istMonth(at('2026-01-31T18:30:00Z'))).toBe('2026-02');
    expect(new Date(istNextMonthStart(at('2026-01-31T18:29:59Z'))).toISOString()).toBe(
      '2026-01-31T18:30:00.000Z',
    );
    expect(new Date(istNextMonthStart(at('2026-01-31T18:30:00Z'))).toISOString()).toBe(
      '2026-02-28T18:30:00.000Z',
    );
    expect(new Date(istMonthStart(at('2026-02-10T00:00:00Z'))).toISOString()).toBe(
      '2026-01-31T18:30:00.000Z',
    );
  });

  it('a YYYY-MM-DD date starts at 18:30Z of the UTC day before it', () => {
    expect(new Date(istDateStart('2026-03-15')).toISOString()).toBe('2026-03-14T18:30:00.000Z');
    expect(new Date(istDateStart('2027-01-01')).toISOString()).toBe('2026-12-31T18:30:00.000Z');
    expect(new Date(istDateStart('2028-02-29')).toISOString()).toBe('2028-02-28T18:30:00.000Z');
    // The same instant as the day's start found from any instant in it, and as +05:30 in the text.
    for (const iso of ['2026-03-14T18:30:00Z', '2026-03-15T12:00:00Z', '2026-03-15T18:29:59.999Z']) {
      expect(istDateStart(istDay(at(iso)))).toBe(istDayStart(at(iso)));
    }
    expect(istDateStart('2026-03-15')).toBe(Date.parse('2026-03-15T00:00:00+05:30'));
    expect(istDateStart('2026-03-16') - istDateStart('2026-03-15')).toBe(DAY_MS);
    expect(istDateStart('2026-1-05')).toBeNaN();
    expect(istDateStart('')).toBeNaN();
  });

  it('handles leap February and the year end', () => {
    expect(new Date(istNextMonthStart(at('2028-02-15T00:00:00Z'))).toISOString()).toBe(
      '2028-02-29T18:30:00.000Z',
    );
    expect(istDay(at('2026-12-31T18:30:00Z'))).toBe('2027-01-01');
    expect(istMonth(at('2026-12-31T18:30:00Z'))).toBe('2027-01');
  });

  it('answers each instant on its own, whatever was asked before (the last period is remembered)', () => {
    // Back and forth across a day and a month boundary, the same instants twice, and a NaN between.
    const instants = [
      '2026-01-31T18:29:59.999Z',
      '2026-01-31T18:30:00.000Z',
      '2026-01-31T18:29:59.999Z',
      '2026-02-15T06:00:00.000Z',
      '2025-07-01T00:00:00.000Z',
      '2026-01-31T18:30:00.000Z',
    ];
    const expected = [
      ['2026-01-31', '2026-01', '2026-01-31T18:30:00.000Z'],
      ['2026-02-01', '2026-02', '2026-02-28T18:30:00.000Z'],
      ['2026-01-31', '2026-01', '2026-01-31T18:30:00.000Z'],
      ['2026-02-15', '2026-02', '2026-02-28T18:30:00.000Z'],
      ['2025-07-01', '2025-07', '2025-07-31T18:30:00.000Z'],
      ['2026-02-01', '2026-02', '2026-02-28T18:30:00.000Z'],
    ];
    for (const round of [0, 1]) {
      instants.forEach((iso, i) => {
        // Asked in two orders in turn, so that the month and its end are each the first to be remembered.
        const t = at(iso);
        const answers =
          (i + round) % 2 === 0
            ? [istDay(t), istMonth(t), new Date(istNextMonthStart(t)).toISOString()]
            : [istDay(t), new Date(istNextMonthStart(t)).toISOString(), istMonth(t)];
        const want =
          (i + round) % 2 === 0 ? expected[i] : [expected[i]![0], expected[i]![2], expected[i]![1]];
        expect(answers, `${iso}, round ${round}`).toEqual(want);
      });
      expect(istDay(Number.NaN)).toMatch(/NaN/);
      expect(istNextMonthStart(Number.NaN)).toBeNaN();
    }
  });
});
