// Issue 49's goals read over alternated rounds: each metered row against the bare fastify run of its own
// round, then the median round. One run of a row lasts a second or two, and on a shared two-core machine
// the same build's ratios moved by half from one run to the next (docs/contributors.md, 30 November):
// a row measured beside its own bare run cancels the machine's drift between rounds, and the median
// leaves out a round that one stall spoiled.
import { median } from './ledger-goals.ts';

/** What a round's run measured: the answering process's CPU µs a request, req/s and p99 (ms). */
export interface RoundRun {
  frontUs: number;
  rps: number;
  p99: number;
  /** A metered row's: bare fastify's µs a request held to the row's req/s just after it (`pacedAs`). */
  pacedUs?: number;
}

/** One round: bare fastify's run, then each metered row's, by the row's name. */
export interface Round {
  bare: RoundRun;
  rows: ReadonlyMap<string, RoundRun>;
}

export interface RoundGoals {
  frontOverBare: number;
  rpsOverBare: number;
  p99Ms: number;
}

/** A row over the rounds: each round's figure (in round order) and the median of each. */
export interface RowReading {
  row: string;
  front: number[];
  rps: number[];
  p99: number[];
  /**
   * Bare fastify's own p99 in the same rounds: the absolute goal read beside what the machine gave a
   * route with no metering at all (7 December 2026: 7 to 14 ms on a slow hour, so a row's 17 said more
   * of the hour than of the row).
   */
  bareP99: number[];
  median: { front: number; rps: number; p99: number; bareP99: number };
}

/** Each row of the rounds (in the first round's order), over its round's bare run. */
export function readRounds(rounds: readonly Round[]): RowReading[] {
  const names = [...new Set(rounds.flatMap((r) => [...r.rows.keys()]))];
  return names.map((row) => {
    const front: number[] = [];
    const rps: number[] = [];
    const p99: number[] = [];
    const bareP99: number[] = [];
    for (const { bare, rows } of rounds) {
      const run = rows.get(row);
      if (run === undefined) continue;
      front.push(run.frontUs / bare.frontUs);
      rps.push(run.rps / bare.rps);
      p99.push(run.p99);
      bareP99.push(bare.p99);
    }
    return {
      row,
      front,
      rps,
      p99,
      bareP99,
      median: { front: median(front), rps: median(rps), p99: median(p99), bareP99: median(bareP99) },
    };
  });
}

/**
 * The readings as printed: the median against each goal, each round's figure after it; after the p99,
 * bare fastify's own in those rounds (its median, then each).
 */
export function roundLines(readings: readonly RowReading[], goals: RoundGoals, width = 44): string[] {
  const mark = (ok: boolean) => (ok ? 'met' : 'not met');
  const each = (values: number[], digits: number) => values.map((v) => v.toFixed(digits)).join(', ');
  return readings.map(({ row, front, rps, p99, bareP99, median: m }) =>
    [
      `${row.padEnd(width)} front ${m.front.toFixed(2)}× (${mark(m.front <= goals.frontOverBare)}; ${each(front, 2)})`,
      `req/s ${m.rps.toFixed(3)} (${mark(m.rps >= goals.rpsOverBare)}; ${each(rps, 3)})`,
      `p99 ${m.p99} ms (${mark(m.p99 <= goals.p99Ms)}; ${each(p99, 0)}; bare fastify's own ${m.bareP99} ms: ${each(bareP99, 0)})`,
    ].join(', '),
  );
}

/**
 * A bare run this many times as dear a request as the run's fastest full-rate bare run ran while the
 * machine slowed. A round's own bare run so spoiled flatters every row of that round, which is read
 * against it (7 December 2026: a third round's bare run at 59.5 µs against a reference of 28.5 put the
 * pool at 0.92× bare's CPU and 0.866 of its req/s); a row whose bare run held to its rate just after it
 * is so slow ran on a slow machine itself, and reads worse than it was.
 *
 * The fastest run, not the median: every full-rate bare run is the same work, so the fastest is what the
 * machine gave it unhindered, and a run whose bare runs were mostly slow (8 December 2026, 00:00 UTC:
 * 32.5, 44.5 and 52.0 µs) made a median that named none of them. A bare run held to a row's rate is read
 * against it too: held to 13,000 to 21,000 req/s, such runs read from 0.99 to 1.57 times the fastest
 * full-rate run in one run (8 December 2026, 01:16 UTC), with no order by their rates, so what sets them
 * apart is the machine, not the rate.
 */
export const SLOWED_BARE = 1.5;

/**
 * The runs the machine slowed (`SLOWED_BARE`), a line each: a round's own bare run, or a row's bare run
 * held to its rate; rounds numbered from 1. `fullRateUs`: the µs a request of the run's full-rate bare
 * runs (the rounds' own are read from `rounds` whether or not they are among them). None if none was slowed.
 */
export function slowedRuns(rounds: readonly Round[], fullRateUs: readonly number[]): string[] {
  const referenceUs = Math.min(...fullRateUs, ...rounds.map((r) => r.bare.frontUs));
  const slow = (us: number | undefined) => us !== undefined && us > SLOWED_BARE * referenceUs;
  const against = (us: number) =>
    `read ${us.toFixed(1)} µs a request against ${referenceUs.toFixed(1)}, the run's fastest bare run at full rate`;
  return rounds.flatMap(({ bare, rows }, i) => [
    ...(slow(bare.frontUs)
      ? [
          `round ${i + 1}: bare fastify ${against(bare.frontUs)}: the machine slowed within the round, and each ` +
            "row's figures in it are read against a slow bare run, better than they were",
        ]
      : []),
    ...[...rows]
      .filter(([, run]) => slow(run.pacedUs))
      .map(
        ([row, run]) =>
          `round ${i + 1}, ${row}: bare fastify held to its rate just after it ${against(run.pacedUs!)}: the ` +
          "machine slowed around the row's run, which reads worse than it was",
      ),
  ]);
}
