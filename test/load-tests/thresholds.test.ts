import { describe, expect, it } from 'vitest';
import { burstExpectations, durationSeconds } from '../../load-tests/lib/thresholds.js';

describe('k6 threshold arithmetic', () => {
  it('reads k6 durations', () => {
    expect(durationSeconds('50s')).toBe(50);
    expect(durationSeconds('2m')).toBe(120);
    expect(durationSeconds('1m30s')).toBe(90);
    expect(() => durationSeconds('fifty')).toThrow();
    expect(() => durationSeconds('50')).toThrow();
  });

  it('scales the burst-cap expectations with the run length', () => {
    // 5 a second for 50 s: 250 sent per token, at most 60 admitted.
    expect(burstExpectations({ burst: 60, ratePerToken: 5, seconds: 50 })).toEqual({
      maxAdmittedPerToken: 60,
      minRateLimited: 0.73,
    });
    // Two and a half minutes: three windows' worth may be admitted.
    expect(burstExpectations({ burst: 60, ratePerToken: 5, seconds: 150 }).maxAdmittedPerToken).toBe(180);
    // A run too slow to reach the cap expects no refusals rather than an impossible rate.
    expect(burstExpectations({ burst: 60, ratePerToken: 1, seconds: 30 }).minRateLimited).toBe(0);
  });
});
