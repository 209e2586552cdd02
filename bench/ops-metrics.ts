// What the bench reads from the platform processes' own `/metrics` pages (their operations port).
import { EVENT_LOOP_RESOLUTION_MS } from '@mdp/telemetry';

export interface OpsProbe {
  name: string;
  opsPort: number;
}

export interface LoopDelay {
  p99Ms: number;
  maxMs: number;
  /** The process's garbage-collection pauses so far, all kinds, in ms (cumulative: read one before a run). */
  gcMs: number;
}

/** The value of the first series named `name` on a Prometheus text page, whatever its labels; NaN if absent. */
export function gaugeValue(text: string, name: string): number {
  // (Every series carries the registry's default labels: `name{service="…"} value`.)
  const m = new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)`, 'm').exec(text);
  return m ? Number(m[1]) : Number.NaN;
}

/** An event-loop delay gauge, in ms with the monitor's sampling interval taken off; NaN if absent. */
export function delayMs(text: string, name: string): number {
  return Math.max(0, gaugeValue(text, name) * 1000 - EVENT_LOOP_RESOLUTION_MS);
}

/**
 * A counter's or gauge's value summed over the series named `name` whose labels include `labels` (all of
 * them when none are given); 0 when there is none.
 */
export function seriesSum(text: string, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  let sum = 0;
  for (const m of text.matchAll(/^(\w+)(?:\{([^}]*)\})? (\S+)$/gm)) {
    if (m[1] !== name) continue;
    const have = `,${m[2] ?? ''},`;
    if (wanted.every((pair) => have.includes(`,${pair},`))) sum += Number(m[3]);
  }
  return sum;
}

/** A process's `/metrics` page. A scrape restarts its event-loop delay window (see `loopDelays`). */
export const metricsPage = async (p: OpsProbe) =>
  (await fetch(`http://127.0.0.1:${p.opsPort}/metrics`)).text();
const page = metricsPage;

/**
 * Each probe's event-loop delay since its previous scrape (NaN where a process did not answer):
 * prom-client's nodejs_eventloop_lag_* histogram restarts at every scrape, so one scrape before a run
 * starts the window and the one after it reads the run alone.
 */
export async function loopDelays(probes: OpsProbe[]): Promise<Map<string, LoopDelay>> {
  const read = async (p: OpsProbe): Promise<[string, LoopDelay]> => {
    try {
      const text = await page(p);
      return [
        p.name,
        {
          p99Ms: delayMs(text, 'nodejs_eventloop_lag_p99_seconds'),
          maxMs: delayMs(text, 'nodejs_eventloop_lag_max_seconds'),
          gcMs: gcPauseMs(text),
        },
      ];
    } catch {
      return [p.name, { p99Ms: Number.NaN, maxMs: Number.NaN, gcMs: Number.NaN }];
    }
  };
  return new Map(await Promise.all(probes.map(read)));
}

/** Polls `probe` until its gauge `name` is a number (within `timeoutMs`, else throws naming it). */
export async function waitForGauge(probe: OpsProbe, name: string, timeoutMs: number): Promise<number> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await page(probe).then(
      (text) => gaugeValue(text, name),
      () => Number.NaN,
    );
    if (!Number.isNaN(value)) return value;
    if (Date.now() > until) throw new Error(`${probe.name}: ${name} still unset after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/**
 * Resolves once `probe` answers its readiness check; throws after `timeoutMs`, or as soon as `gone()`
 * says the process has exited (naming it either way).
 */
export async function waitForReady(
  probe: OpsProbe,
  timeoutMs: number,
  gone: () => boolean = () => false,
): Promise<void> {
  for (const until = Date.now() + timeoutMs; Date.now() < until && !gone(); ) {
    const ready = await fetch(`http://127.0.0.1:${probe.opsPort}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${probe.name} did not become ready${gone() ? ' (it exited)' : ` within ${timeoutMs} ms`}`);
}

/**
 * Waits until `url` answers a 200 (the bench's own servers compile their TypeScript first; under
 * callgrind they start in tens of seconds); `gone` says the process ended, which stops the wait at once.
 */
export async function waitForHttp(
  url: string,
  timeoutMs = 60_000,
  gone: () => boolean = () => false,
): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (
    !(await fetch(url).then(
      (r) => r.status === 200,
      () => false,
    ))
  ) {
    if (gone()) throw new Error(`${url}: its process exited before it answered`);
    if (Date.now() > until) throw new Error(`${url} did not answer within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Every garbage-collection pause a process has made so far, in ms, from prom-client's GC histogram; NaN if absent. */
export function gcPauseMs(text: string): number {
  return /^nodejs_gc_duration_seconds_sum\{/m.test(text)
    ? seriesSum(text, 'nodejs_gc_duration_seconds_sum') * 1000
    : Number.NaN;
}

/** Major (mark-compact) collections a process has run, from prom-client's GC histogram; NaN if absent. */
export function majorCollections(text: string): number {
  const m = /^nodejs_gc_duration_seconds_count\{[^}]*kind="major"[^}]*\} (\S+)/m.exec(text);
  return m ? Number(m[1]) : Number.NaN;
}

/**
 * Node options for a bench stack's services (`startStack`'s `serviceNodeArgs`): equities-data without
 * V8's memory reducer. Once its heap has settled after the dataset's load (`waitForQuietHeap`) it is all
 * but idle, and the reducer's watchdog then started a major collection every 100 s, about 0.7 s of CPU
 * with the dataset in its heap, which landed in a measured run of `make bench` once a run (6 December
 * 2026). Nothing a bench measures runs in that process.
 */
export const BENCH_SERVICE_NODE_ARGS = { 'equities-data': ['--no-memory-reducer'] };

/**
 * Waits until `probe` has run at least one major collection and then none for `quietMs` (equities-data
 * collects the garbage of a dataset's reload some tens of seconds after it, in one collection or a few),
 * or until `timeoutMs`. Resolves to the collections seen while waiting.
 */
export async function waitForQuietHeap(probe: OpsProbe, quietMs: number, timeoutMs: number): Promise<number> {
  const started = Date.now();
  let first = Number.NaN;
  let last = Number.NaN;
  let changedAt = started;
  while (Date.now() - started < timeoutMs) {
    const count = await page(probe).then(majorCollections, () => Number.NaN);
    if (Number.isNaN(first)) first = count;
    if (count !== last) {
      last = count;
      changedAt = Date.now();
    }
    if (last > first && Date.now() - changedAt >= quietMs) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  return last - first;
}

/** A histogram's cumulative bucket counts by upper bound (`+Inf` as Infinity), summed over its series. */
export function histogramBuckets(text: string, name: string): Map<number, number> {
  const buckets = new Map<number, number>();
  for (const m of text.matchAll(/^(\w+)\{([^}]*)\} (\S+)$/gm)) {
    if (m[1] !== `${name}_bucket`) continue;
    const le = /(?:^|,)le="([^"]+)"/.exec(m[2]!)?.[1];
    if (le === undefined) continue;
    const bound = le === '+Inf' ? Number.POSITIVE_INFINITY : Number(le);
    buckets.set(bound, (buckets.get(bound) ?? 0) + Number(m[3]));
  }
  return buckets;
}

/**
 * The `q` quantile of what a histogram observed between two readings (`histogramBuckets`), interpolated
 * within its bucket as Prometheus's `histogram_quantile` does (the highest finite bound when it falls in
 * `+Inf`); NaN when nothing was observed.
 */
export function quantileBetween(before: Map<number, number>, after: Map<number, number>, q: number): number {
  const bounds = [...after.keys()].sort((a, b) => a - b);
  const counts = bounds.map((b) => (after.get(b) ?? 0) - (before.get(b) ?? 0));
  const total = counts.at(-1) ?? 0;
  if (total <= 0) return Number.NaN;
  const rank = q * total;
  for (let i = 0; i < bounds.length; i++) {
    if (counts[i]! < rank) continue;
    const upper = bounds[i]!;
    const lower = i === 0 ? 0 : bounds[i - 1]!;
    if (upper === Number.POSITIVE_INFINITY) return lower;
    const below = i === 0 ? 0 : counts[i - 1]!;
    const inBucket = counts[i]! - below;
    return inBucket > 0 ? lower + ((upper - lower) * (rank - below)) / inBucket : upper;
  }
  return bounds.at(-2) ?? Number.NaN;
}
