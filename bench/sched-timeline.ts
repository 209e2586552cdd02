// What held the cores while the slowest answers waited: `perf sched timehist` read as runs of threads on
// cores, set against the answers of a load (each its end on CLOCK_MONOTONIC and its latency). At 50
// connections every connection waits out a stall at once, so a p99 is made of a few stalls a second;
// which threads took the cores during them, beyond their share of the whole run, says whose they are.
// Used by bench/stalls.ts.

/** One stretch a thread ran on a core, in seconds of CLOCK_MONOTONIC (`perf sched record -k CLOCK_MONOTONIC`). */
export interface Run {
  startS: number;
  endS: number;
  tid: number;
  /** The thread's name (its `comm`). */
  thread: string;
}

export interface Answer {
  /** When it came, seconds of CLOCK_MONOTONIC. */
  endS: number;
  ms: number;
}

export type Span = readonly [startS: number, endS: number];

// "  671.214433 [0000]  MainThread[7659]   0.000   0.000   3.418": a switch out at that time, after the
// thread ran `run time` ms; the idle task is `<idle>` with no tid and is left out.
const LINE = /^\s*(\d+\.\d+)\s+\[\d+\]\s+(.+?)\[(\d+)(?:\/\d+)?\]\s+[\d.]+\s+[\d.]+\s+([\d.]+)\s*$/;

/** The runs in `perf sched timehist`'s output (its header, idle and lines it cannot read skipped). */
export function parseTimehist(text: string): Run[] {
  const runs: Run[] = [];
  for (const line of text.split('\n')) {
    const m = LINE.exec(line);
    if (!m) continue;
    const endS = Number(m[1]);
    const runS = Number(m[4]) / 1000;
    runs.push({ startS: endS - runS, endS, tid: Number(m[3]), thread: m[2]!.trim() });
  }
  return runs;
}

/** Overlapping spans joined, in order. */
export function union(spans: Iterable<Span>): Span[] {
  const sorted = [...spans].sort((a, b) => a[0] - b[0]);
  const out: [number, number][] = [];
  for (const [s, e] of sorted) {
    const last = out.at(-1);
    if (last && s <= last[1]) last[1] = Math.max(last[1], e);
    else out.push([s, e]);
  }
  return out;
}

const length = (spans: readonly Span[]) => spans.reduce((sum, [s, e]) => sum + (e - s), 0);

/** The slowest `share` of the answers (at least one), the latency they start at, and the time they waited, joined. */
export function slowest(
  answers: readonly Answer[],
  share = 0.01,
): { fromMs: number; answers: Answer[]; spans: Span[] } {
  const sorted = [...answers].sort((a, b) => a.ms - b.ms);
  const from = Math.min(sorted.length - 1, Math.floor(sorted.length * (1 - share)));
  const slow = sorted.slice(from);
  return {
    fromMs: sorted[from]?.ms ?? 0,
    answers: slow,
    spans: union(slow.map((a) => [a.endS - a.ms / 1000, a.endS] as const)),
  };
}

/** CPU seconds of each key's runs within `spans` (joined, in order), over the spans' length: cores in use. */
export function coresWithin(
  runs: readonly Run[],
  spans: readonly Span[],
  keyOf: (run: Run) => string,
): Map<string, number> {
  const busy = new Map<string, number>();
  const total = length(spans);
  if (total <= 0) return busy;
  const starts = spans.map((s) => s[0]);
  for (const run of runs) {
    // The last span starting before the run ends, and those before it while they reach into the run.
    let i = upperBound(starts, run.endS) - 1;
    let within = 0;
    for (; i >= 0 && spans[i]![1] > run.startS; i--)
      within += Math.max(0, Math.min(spans[i]![1], run.endS) - Math.max(spans[i]![0], run.startS));
    if (within > 0) {
      const key = keyOf(run);
      busy.set(key, (busy.get(key) ?? 0) + within / total);
    }
  }
  return busy;
}

/** Index of the first value above `x` in ascending `values`. */
function upperBound(values: readonly number[], x: number): number {
  let lo = 0;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (values[mid]! <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Runs less than `gapS` apart taken as one burst, with the CPU seconds it used. */
export function bursts(runs: readonly Run[], gapS: number): { span: Span; cpuS: number }[] {
  const out: { span: [number, number]; cpuS: number }[] = [];
  for (const run of [...runs].sort((a, b) => a.startS - b.startS)) {
    const last = out.at(-1);
    if (last && run.startS - last.span[1] < gapS) {
      last.span[1] = Math.max(last.span[1], run.endS);
      last.cpuS += run.endS - run.startS;
    } else out.push({ span: [run.startS, run.endS], cpuS: run.endS - run.startS });
  }
  return out;
}

/** Whether an answer's wait met one of `spans`, for spans joined and in order. */
function meets(spans: readonly Span[]): (a: Answer) => boolean {
  const starts = spans.map((s) => s[0]);
  return (a) => {
    const i = upperBound(starts, a.endS) - 1;
    return i >= 0 && spans[i]![1] > a.endS - a.ms / 1000;
  };
}

/**
 * How many of `answers` waited through one of `spans`, and how many would by chance: each answer's wait
 * laid at random over `[fromS, toS]` meets a span (widened by that wait) with the chance of the widened
 * spans' share of it.
 */
export function overlapping(
  answers: readonly Answer[],
  spans: readonly Span[],
  fromS: number,
  toS: number,
): { seen: number; byChance: number } {
  const joined = union(spans);
  const met = meets(joined);
  let seen = 0;
  let byChance = 0;
  for (const a of answers) {
    if (met(a)) seen++;
    const waitS = a.ms / 1000;
    const widened = joined
      .map(([s, e]) => [Math.max(fromS, s - waitS), Math.min(toS, e)] as const)
      .filter(([s, e]) => e > s);
    byChance += length(union(widened)) / (toS - fromS);
  }
  return { seen, byChance };
}

/** The answers whose wait met none of `spans`. */
export function clearOf(answers: readonly Answer[], spans: readonly Span[]): Answer[] {
  const met = meets(union(spans));
  return answers.filter((a) => !met(a));
}

/** The answer at quantile `q` (0 to 1) of their latencies. */
export function quantileMs(answers: readonly Answer[], q: number): number {
  const ms = answers.map((a) => a.ms).sort((a, b) => a - b);
  return ms[Math.min(ms.length - 1, Math.floor(ms.length * q))] ?? 0;
}
