import { describe, expect, it } from 'vitest';
import { checkGoals, formatTable, median, parseSizes, type SizeFigure } from '../../bench/ledger-goals.ts';

const figure = (size: number, o: Partial<SizeFigure> = {}): SizeFigure => ({
  size,
  events: size + 100_000,
  bytesPerEvent: 140,
  startupS: 2,
  rps: 10_000,
  p99Ms: 15,
  pgMsPerEvent: 0.02,
  bareRps: 40_000,
  ...o,
});

describe('the goals of make bench-ledger', () => {
  it('reads BENCH_LEDGER_SIZES', () => {
    expect(parseSizes(undefined, [0, 5])).toEqual([0, 5]);
    expect(parseSizes(' ', [0, 5])).toEqual([0, 5]);
    expect(parseSizes('0, 10_000_000,50000000', [])).toEqual([0, 10_000_000, 50_000_000]);
    expect(() => parseSizes('0,1e6', [])).toThrow(/BENCH_LEDGER_SIZES/);
    expect(() => parseSizes('0,-1', [])).toThrow(/BENCH_LEDGER_SIZES/);
  });

  it('takes medians', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });

  it('meets them when cost stays within 10% of the first size', () => {
    const checks = checkGoals([
      figure(0, { bytesPerEvent: 300 }),
      figure(10_000_000, { rps: 9_100, pgMsPerEvent: 0.0219, startupS: 2.2 }),
      figure(50_000_000, { rps: 10_500, startupS: 1.9 }),
    ]);
    expect(checks.map((c) => c.met)).toEqual([true, true, true, true]);
    // Size 0 holds only the runs' own events: its bytes per event are not judged.
    expect(checks[2]!.detail).toBe('10,000,000: 140.0, 50,000,000: 140.0');
  });

  it('misses them on a throughput drop, a Postgres rise, a fat row or a slow start', () => {
    const checks = checkGoals([
      figure(0),
      figure(50_000_000, { rps: 8_900, pgMsPerEvent: 0.0221, bytesPerEvent: 151, startupS: 2.5 }),
    ]);
    expect(checks.map((c) => c.met)).toEqual([false, false, false, false]);
    expect(checks[0]!.detail).toBe('50,000,000: -11.0%');
  });

  it('prints a line per size with ratios to the first', () => {
    const lines = formatTable([figure(0), figure(10_000_000, { rps: 9_000, pgMsPerEvent: 0.03 })]);
    expect(lines).toHaveLength(4);
    expect(lines[3]).toMatch(
      /^\s+10,000,000\s+10,100,000\s+140\.0\s+2\.00\s+9000\s+15\s+0\.0300\s+0\.900\s+1\.500\s+0\.225$/,
    );
  });
});
