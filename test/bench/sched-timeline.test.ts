import { describe, expect, it } from 'vitest';
import {
  type Answer,
  bursts,
  clearOf,
  coresWithin,
  overlapping,
  parseTimehist,
  quantileMs,
  type Run,
  slowest,
  union,
} from '../../bench/sched-timeline.ts';

// As `perf sched timehist` 6.1 prints it: a header, then a switch out a line (time, cpu, thread[tid],
// wait, scheduling delay, run time in ms); the idle task has no tid.
const TIMEHIST = `           time    cpu  task name                       wait time  sch delay   run time
                        [tid/pid]                          (msec)     (msec)     (msec)
--------------- ------  ------------------------------  ---------  ---------  ---------
     671.214433 [0000]  MainThread[7659]                    0.000      0.000      3.418
     671.216058 [0001]  <idle>                              0.000      0.000      1.624
     671.216073 [0000]  kdamond.0[83]                      525.729     0.008      7.033
     671.220000 [0001]  V8 DefaultWorke[7660/7659]          0.100      0.020      0.500
`;

const run = (startS: number, endS: number, thread = 'MainThread', tid = 1): Run => ({
  startS,
  endS,
  thread,
  tid,
});

describe('parseTimehist', () => {
  it('reads each switch as the run that ended there, names with spaces kept, idle and the header left out', () => {
    const runs = parseTimehist(TIMEHIST);
    expect(runs.map((r) => [r.thread, r.tid])).toEqual([
      ['MainThread', 7659],
      ['kdamond.0', 83],
      ['V8 DefaultWorke', 7660],
    ]);
    expect(runs[1]!.endS).toBe(671.216073);
    expect(runs[1]!.startS).toBeCloseTo(671.216073 - 0.007033, 9);
    expect(runs[0]!.endS - runs[0]!.startS).toBeCloseTo(0.003418, 9);
  });
});

describe('coresWithin', () => {
  it('counts only the part of each run inside the spans, over the spans’ length', () => {
    const runs = [run(0, 1, 'a'), run(0.5, 2, 'b'), run(3, 4, 'a')];
    const cores = coresWithin(runs, [[0.5, 1.5]], (r) => r.thread);
    // a: 0.5 s of 1 s; b: 0.5..1.5 fully
    expect(cores.get('a')).toBeCloseTo(0.5, 9);
    expect(cores.get('b')).toBeCloseTo(1, 9);
  });

  it('adds a run that crosses several spans once per span it meets', () => {
    const cores = coresWithin(
      [run(0, 10)],
      union([
        [1, 2],
        [4, 5],
        [8, 9],
      ]),
      () => 'x',
    );
    expect(cores.get('x')).toBeCloseTo(1, 9);
    const half = coresWithin(
      [run(0, 1.5)],
      [
        [1, 2],
        [4, 5],
      ],
      () => 'x',
    );
    expect(half.get('x')).toBeCloseTo(0.25, 9);
  });
});

describe('slowest', () => {
  it('takes the slowest share and joins the spans their waits covered', () => {
    const answers: Answer[] = [];
    for (let i = 0; i < 198; i++) answers.push({ endS: i * 0.005, ms: 2 });
    answers.push({ endS: 1.0, ms: 30 }, { endS: 1.01, ms: 25 });
    const slow = slowest(answers);
    expect(slow.answers.map((a) => a.ms).sort()).toEqual([25, 30]);
    expect(slow.fromMs).toBe(25);
    expect(slow.spans).toHaveLength(1);
    expect(slow.spans[0]![0]).toBeCloseTo(0.97, 9);
    expect(slow.spans[0]![1]).toBeCloseTo(1.01, 9);
  });
});

describe('bursts', () => {
  it('joins runs closer than the gap and sums their CPU', () => {
    const b = bursts([run(0.0, 0.002), run(0.01, 0.013), run(0.5, 0.501)], 0.06);
    expect(b).toHaveLength(2);
    expect(b[0]!.span).toEqual([0, 0.013]);
    expect(b[0]!.cpuS).toBeCloseTo(0.005, 9);
  });
});

describe('overlapping and clearOf', () => {
  const spans = [[1, 1.02] as const, [2, 2.02] as const];
  const answers: Answer[] = [
    { endS: 1.01, ms: 5 }, // within the first
    { endS: 1.5, ms: 5 }, // between
    { endS: 2.05, ms: 40 }, // began before the second ended
    { endS: 2.05, ms: 20 }, // began after it ended
  ];

  it('counts the answers whose wait met a span, and the chance of it for waits laid at random', () => {
    const { seen, byChance } = overlapping(answers, spans, 0, 10);
    expect(seen).toBe(2);
    // each wait w meets a span of 0.02 s with chance 2 (0.02 + w) / 10
    const expected = answers.reduce((sum, a) => sum + (2 * (0.02 + a.ms / 1000)) / 10, 0);
    expect(byChance).toBeCloseTo(expected, 9);
  });

  it('counts no chance for spans outside the run', () => {
    const { byChance } = overlapping(
      [{ endS: 5, ms: 10 }],
      [
        [-3, -2],
        [20, 21],
      ],
      0,
      10,
    );
    expect(byChance).toBe(0);
  });

  it('keeps the answers that met none', () => {
    expect(clearOf(answers, spans).map((a) => [a.endS, a.ms])).toEqual([
      [1.5, 5],
      [2.05, 20],
    ]);
  });
});

describe('quantileMs', () => {
  it('is the latency at that rank', () => {
    const answers = Array.from({ length: 100 }, (_, i) => ({ endS: i, ms: i + 1 }));
    expect(quantileMs(answers, 0.99)).toBe(100);
    expect(quantileMs(answers, 0.5)).toBe(51);
    expect(quantileMs([], 0.99)).toBe(0);
  });
});
