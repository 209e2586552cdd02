import { describe, expect, it } from 'vitest';
import { istMarginMs, waitForIstDay } from './ist-midnight.ts';

// 29 November 2026, 18:30:00Z: midnight IST, 30 November begins.
const MIDNIGHT = Date.parse('2026-11-29T18:30:00Z');

describe('the integration tests’ wait for IST midnight', () => {
  it('waits past midnight when it is closer than the margin', () => {
    expect(waitForIstDay(MIDNIGHT - 60_000, 900_000)).toBe(65_000);
    expect(waitForIstDay(MIDNIGHT - 899_999, 900_000)).toBe(904_999);
  });

  it('does not wait when midnight is at least the margin away, nor just after it, nor when turned off', () => {
    expect(waitForIstDay(MIDNIGHT - 900_000, 900_000)).toBe(0);
    expect(waitForIstDay(MIDNIGHT, 900_000)).toBe(0);
    expect(waitForIstDay(MIDNIGHT + 1_000, 900_000)).toBe(0);
    expect(waitForIstDay(MIDNIGHT - 60_000, 0)).toBe(0);
  });

  it('takes its margin from TEST_IST_MARGIN_S in whole seconds, and names the variable for anything else', () => {
    expect(istMarginMs({})).toBe(600_000);
    expect(istMarginMs({ TEST_IST_MARGIN_S: '0' })).toBe(0);
    expect(istMarginMs({ TEST_IST_MARGIN_S: '120' })).toBe(120_000);
    for (const bad of ['ten', '-1', '1.5'])
      expect(() => istMarginMs({ TEST_IST_MARGIN_S: bad })).toThrow(
        /TEST_IST_MARGIN_S must be a whole number/,
      );
  });
});
