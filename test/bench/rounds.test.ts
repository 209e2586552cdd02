import { describe, expect, it } from 'vitest';
import { type Round, type RoundRun, readRounds, roundLines, slowedRuns } from '../../bench/rounds.ts';

const GOALS = { frontOverBare: 2.0, rpsOverBare: 0.45, p99Ms: 10 };
const run = (frontUs: number, rps: number, p99: number) => ({ frontUs, rps, p99 });
const round = (bare: RoundRun, rows: Record<string, RoundRun>): Round => ({
  bare,
  rows: new Map(Object.entries(rows)),
});

describe("issue 49's goals read over rounds", () => {
  it('reads each round against its own bare run, then takes the median round', () => {
    // The machine slows between rounds: bare fastify's µs a request doubles in round 2.
    const readings = readRounds([
      round(run(20, 40_000, 2), { quote: run(38, 18_000, 9), pool: run(50, 12_000, 14) }),
      round(run(40, 20_000, 4), { quote: run(84, 8_000, 20), pool: run(100, 6_000, 30) }),
      round(run(21, 42_000, 2), { quote: run(44, 19_000, 11), pool: run(51, 12_600, 13) }),
    ]);
    expect(readings.map((r) => r.row)).toEqual(['quote', 'pool']);
    const [quote, pool] = readings;
    expect(quote!.front).toEqual([1.9, 2.1, 44 / 21]);
    expect(quote!.median.front).toBeCloseTo(44 / 21, 10);
    expect(quote!.rps).toEqual([0.45, 0.4, 19_000 / 42_000]);
    expect(quote!.median.rps).toBeCloseTo(0.45, 10);
    expect(quote!.median.p99).toBe(11);
    expect(pool!.median.front).toBeCloseTo(2.5, 10);
    expect(pool!.median.p99).toBe(14);
    // Bare fastify's own p99, round by round: what the machine gave a route with no metering.
    expect(quote!.bareP99).toEqual([2, 4, 2]);
    expect(pool!.median.bareP99).toBe(2);
  });

  it('says which goal each median meets, with every round beside it', () => {
    const [line] = roundLines(
      readRounds([
        round(run(20, 40_000, 2), { quote: run(36, 20_000, 9) }),
        round(run(20, 40_000, 7), { quote: run(46, 16_000, 12) }),
        round(run(20, 40_000, 3), { quote: run(39, 19_000, 10) }),
      ]),
      GOALS,
      5,
    );
    expect(line).toBe(
      "quote front 1.95× (met; 1.80, 2.30, 1.95), req/s 0.475 (met; 0.500, 0.400, 0.475), p99 10 ms (met; 9, 12, 10; bare fastify's own 3 ms: 2, 7, 3)",
    );
    const [missed] = roundLines(
      readRounds([round(run(20, 40_000, 2), { quote: run(41, 17_000, 11) })]),
      GOALS,
      5,
    );
    expect(missed).toBe(
      "quote front 2.05× (not met; 2.05), req/s 0.425 (not met; 0.425), p99 11 ms (not met; 11; bare fastify's own 2 ms: 2)",
    );
  });

  it('leaves a row out of the rounds it did not run in', () => {
    const [only] = readRounds([
      round(run(20, 40_000, 2), {}),
      round(run(20, 40_000, 2), { q: run(30, 20_000, 5) }),
    ]);
    expect(only!.front).toEqual([1.5]);
    expect(only!.bareP99).toEqual([2]);
  });

  it("names a round whose bare run the machine slowed, against the run's fastest full-rate bare run", () => {
    const rounds = [
      round(run(28, 28_000, 4), { quote: run(56, 13_600, 11) }),
      round(run(33.5, 21_000, 7), { quote: run(56, 13_300, 9) }),
      round(run(59.5, 15_500, 8), { quote: run(74, 10_500, 15) }),
    ];
    const lines = slowedRuns(rounds, [29, 31]);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^round 3: bare fastify read 59\.5 µs a request against 28\.0, the run's fastest bare run at full rate: /,
    );
    // Only a bare run over 1.5 times the fastest is named: 42.75 µs against 28.5.
    expect(slowedRuns(rounds.slice(0, 2), [28.5])).toEqual([]);
    expect(slowedRuns([round(run(42.7, 20_000, 5), {})], [28.5])).toEqual([]);
    expect(slowedRuns([round(run(42.8, 20_000, 5), {})], [28.5])).toHaveLength(1);
  });

  it('names the slow rounds when most of the bare runs were slow', () => {
    // 8 December 2026, 00:00 UTC: the median (44.5) named none of these.
    const rounds = [
      round(run(32.5, 30_000, 4), { pool: run(44, 18_000, 9) }),
      round(run(44.5, 22_000, 6), { pool: run(60, 13_000, 12) }),
      round(run(52, 19_000, 8), { pool: run(70, 11_000, 14) }),
    ];
    const lines = slowedRuns(rounds, [44, 47]);
    expect(lines).toEqual([
      "round 3: bare fastify read 52.0 µs a request against 32.5, the run's fastest bare run at full rate: the " +
        "machine slowed within the round, and each row's figures in it are read against a slow bare run, better " +
        'than they were',
    ]);
  });

  it('names a row whose bare run held to its rate the machine slowed', () => {
    const lines = slowedRuns(
      [
        round(run(30, 25_000, 7), {
          quote: { ...run(48, 14_800, 10), pacedUs: 35.8 },
          pool: { ...run(91.5, 8_700, 24), pacedUs: 46 },
        }),
        round(run(32, 29_000, 6), { pool: { ...run(54.5, 13_400, 12), pacedUs: 30.4 } }),
      ],
      [31],
    );
    expect(lines).toEqual([
      "round 1, pool: bare fastify held to its rate just after it read 46.0 µs a request against 30.0, the run's " +
        "fastest bare run at full rate: the machine slowed around the row's run, which reads worse than it was",
    ]);
  });
});
