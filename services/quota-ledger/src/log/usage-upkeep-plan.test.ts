import { describe, expect, it } from 'vitest';
import { type DayState, dayEndMs, upkeepLags, upkeepPlan } from './usage-upkeep-plan.ts';

const settings = { retentionDays: 62, aheadDays: 7, sealGraceMs: 20 * 60_000 };
const day = (d: string, s: Partial<DayState> = {}): DayState => ({
  day: d,
  partition: true,
  sealed: false,
  archived: false,
  dropped: false,
  ...s,
});

describe('usage log upkeep plan', () => {
  it('ends an IST day at the next midnight IST', () => {
    expect(dayEndMs('2026-03-31')).toBe(Date.parse('2026-04-01T00:00:00+05:30'));
    expect(new Date(dayEndMs('2026-12-31')).toISOString()).toBe('2026-12-31T18:30:00.000Z');
  });

  it('wants partitions from yesterday to the days ahead', () => {
    const plan = upkeepPlan(Date.parse('2026-03-31T23:59:00+05:30'), [], settings);
    expect(plan.ensure).toEqual([
      '2026-03-30',
      '2026-03-31',
      '2026-04-01',
      '2026-04-02',
      '2026-04-03',
      '2026-04-04',
      '2026-04-05',
      '2026-04-06',
      '2026-04-07',
    ]);
  });

  it('seals a closed day only once the grace after its end has passed', () => {
    const days = [day('2026-03-30'), day('2026-03-31')];
    expect(upkeepPlan(Date.parse('2026-04-01T00:19:59+05:30'), days, settings).seal).toEqual(['2026-03-30']);
    expect(upkeepPlan(Date.parse('2026-04-01T00:20:00+05:30'), days, settings).seal).toEqual([
      '2026-03-30',
      '2026-03-31',
    ]);
  });

  it('keeps the last retentionDays days; archives sealed older ones, drops archived ones, never an unsealed one', () => {
    const now = Date.parse('2026-05-31T12:00:00+05:30');
    const plan = upkeepPlan(
      now,
      [
        day('2026-03-29', { sealed: true, archived: true }),
        day('2026-03-30', { sealed: true }),
        day('2026-03-31'),
        day('2026-04-01', { sealed: true }),
      ],
      settings,
    );
    // 62 days with 31 May: 31 March to 31 May.
    expect(plan.firstRetainedDay).toBe('2026-03-31');
    expect(plan.archive).toEqual(['2026-03-30']);
    expect(plan.drop).toEqual(['2026-03-29']);
    expect(plan.seal).toContain('2026-03-31');
    const lags = upkeepLags(now, [day('2026-03-30'), day('2026-06-01'), day('2026-06-02')], settings);
    expect(lags).toEqual({ aheadDays: 2, sealLagDays: 1, archiveLagDays: 1 });
  });
});
