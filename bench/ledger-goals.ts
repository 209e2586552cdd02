// The figures of `make bench-ledger` (bench/ledger-volume.ts) at each size of the usage log, their table
// and the goals: from the first size (0) to the last, throughput and Postgres CPU per event
// within 10%, at most 150 bytes an event on disk, start-up independent of size.

/** What one size of the log measured. */
export interface SizeFigure {
  /** Generated events loaded. */
  size: number;
  /** Events the log held after the measured runs (the loaded ones and the runs' own). */
  events: number;
  /** Disk of every partition of the log, heap and indexes, per event held. */
  bytesPerEvent: number;
  /** The quota ledger's start-up: spawn to `/readyz` 200. */
  startupS: number;
  /** Medians over the measured runs. */
  rps: number;
  p99Ms: number;
  pgMsPerEvent: number;
  /** The bare quote-shaped route's req/s at this size: how fast the machine was meanwhile. */
  bareRps: number;
}

export const GOALS = {
  /** Throughput may fall and Postgres CPU per event rise by at most this share from the first size. */
  costDrift: 0.1,
  bytesPerEvent: 150,
  /** Start-up is flat when within this share of the first size's, or within `startupSlackS` of it. */
  startupDrift: 0.1,
  /** test/stack.ts polls `/readyz` every 100 ms, so start-up is known to about that. */
  startupSlackS: 0.3,
} as const;

/** `BENCH_LEDGER_SIZES`: comma-separated event counts (digits, `_` allowed), e.g. `0,10_000_000`. */
export function parseSizes(raw: string | undefined, fallback: number[]): number[] {
  if (raw === undefined || raw.trim() === '') return fallback;
  const sizes = raw.split(',').map((s) => {
    const t = s.trim().replaceAll('_', '');
    const n = Number(t);
    if (!/^\d+$/.test(t) || !Number.isSafeInteger(n))
      throw new Error(`BENCH_LEDGER_SIZES must be whole numbers separated by commas (got "${raw}")`);
    return n;
  });
  return sizes;
}

/** The median of `values`: the mean of the middle two for an even count, NaN when there are none. */
export function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export interface GoalCheck {
  goal: string;
  met: boolean;
  detail: string;
}

/** The goals against the figures, the first size as the reference. */
export function checkGoals(figures: SizeFigure[]): GoalCheck[] {
  const [ref, ...rest] = figures;
  if (!ref) return [];
  const pct = (x: number) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}%`;
  const vs = (f: SizeFigure, pick: (f: SizeFigure) => number) => pick(f) / pick(ref) - 1;
  const each = (pick: (f: SizeFigure) => number) =>
    rest.map((f) => `${f.size.toLocaleString('en-US')}: ${pct(vs(f, pick))}`).join(', ');
  const loaded = figures.filter((f) => f.size > 0);
  const startupLimit = Math.max(ref.startupS * (1 + GOALS.startupDrift), ref.startupS + GOALS.startupSlackS);
  return [
    {
      goal: `throughput within ${GOALS.costDrift * 100}% of size ${ref.size.toLocaleString('en-US')}`,
      met: rest.every((f) => vs(f, (x) => x.rps) >= -GOALS.costDrift),
      detail: each((x) => x.rps),
    },
    {
      goal: `Postgres CPU per event within ${GOALS.costDrift * 100}% of size ${ref.size.toLocaleString('en-US')}`,
      met: rest.every((f) => vs(f, (x) => x.pgMsPerEvent) <= GOALS.costDrift),
      detail: each((x) => x.pgMsPerEvent),
    },
    {
      goal: `at most ${GOALS.bytesPerEvent} bytes an event on disk, indexes included`,
      met: loaded.length > 0 && loaded.every((f) => f.bytesPerEvent <= GOALS.bytesPerEvent),
      detail:
        loaded.length === 0
          ? 'no size loaded events'
          : loaded.map((f) => `${f.size.toLocaleString('en-US')}: ${f.bytesPerEvent.toFixed(1)}`).join(', '),
    },
    {
      goal: `start-up flat (within ${GOALS.startupDrift * 100}% or ${GOALS.startupSlackS} s of size ${ref.size.toLocaleString('en-US')}'s ${ref.startupS.toFixed(2)} s)`,
      met: rest.every((f) => f.startupS <= startupLimit),
      detail: rest.map((f) => `${f.size.toLocaleString('en-US')}: ${f.startupS.toFixed(2)} s`).join(', '),
    },
  ];
}

/** The table: one line per size, the ratios against the first. */
export function formatTable(figures: SizeFigure[]): string[] {
  const ref = figures[0];
  const head = [
    'size'.padStart(12),
    'events held'.padStart(12),
    'bytes/event'.padStart(11),
    'start-up s'.padStart(10),
    'req/s'.padStart(7),
    'p99 ms'.padStart(6),
    'PG ms/event'.padStart(11),
    'req/s vs first'.padStart(14),
    'PG vs first'.padStart(11),
    'quote/bare'.padStart(10),
  ].join(' ');
  const lines = [head, '-'.repeat(head.length)];
  for (const f of figures) {
    lines.push(
      [
        f.size.toLocaleString('en-US').padStart(12),
        f.events.toLocaleString('en-US').padStart(12),
        f.bytesPerEvent.toFixed(1).padStart(11),
        f.startupS.toFixed(2).padStart(10),
        f.rps.toFixed(0).padStart(7),
        f.p99Ms.toFixed(0).padStart(6),
        f.pgMsPerEvent.toFixed(4).padStart(11),
        (f.rps / ref!.rps).toFixed(3).padStart(14),
        (f.pgMsPerEvent / ref!.pgMsPerEvent).toFixed(3).padStart(11),
        (f.rps / f.bareRps).toFixed(3).padStart(10),
      ].join(' '),
    );
  }
  return lines;
}
