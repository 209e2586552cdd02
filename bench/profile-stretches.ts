// Where a process's event loop was held: the busy stretches of a V8 CPU profile (consecutive samples
// that are neither `(idle)` nor `(program)`, V8's native time it gives to no function), each named by
// the project function that most of its samples were in. A request the loop holds waits out the whole stretch, so the longest ones, not the
// totals, are what a p99 feels. Used by bench/profile-top.ts.

export interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  /** µs between samples, the first from `startTime`. */
  timeDeltas: number[];
}

export interface Stretch {
  /** µs from the profile's start. */
  startUs: number;
  ms: number;
  /** What most of its samples were in: the innermost project function, else the sampled one. */
  what: string;
}

/** A file's text as a V8 CPU profile (`node --cpu-prof`), or an error naming the file. */
export function parseCpuProfile(text: string, file: string): CpuProfile {
  let value: Partial<CpuProfile> | null;
  try {
    value = JSON.parse(text) as Partial<CpuProfile> | null;
  } catch {
    value = null;
  }
  if (
    value === null ||
    !Array.isArray(value.nodes) ||
    !Array.isArray(value.samples) ||
    !Array.isArray(value.timeDeltas) ||
    typeof value.startTime !== 'number'
  )
    throw new Error(`${file} is not a V8 CPU profile (node --cpu-prof writes them)`);
  return value as CpuProfile;
}

const WAITING = new Set(['(idle)', '(program)']);
/** A frame of the project's own code (a service or package, bundled or not). */
const OWN = /\/(services|packages)\/[^/]+\//;

/** The busy stretches of at least `minMs`, longest first. */
export function busyStretches(profile: CpuProfile, minMs: number): Stretch[] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const named = new Map<number, string>();
  const nameOf = (id: number): string => {
    let name = named.get(id);
    if (name !== undefined) return name;
    const self = byId.get(id)!.callFrame;
    name = self.functionName === '(garbage collector)' ? 'GC' : self.functionName || '(anonymous)';
    for (let c: number | undefined = id; c !== undefined; c = parent.get(c)) {
      const f = byId.get(c)!.callFrame;
      if (OWN.test(f.url) && f.functionName) {
        name = f.functionName;
        break;
      }
    }
    named.set(id, name);
    return name;
  };

  const stretches: Stretch[] = [];
  let open: { start: number; end: number; counts: Map<string, number> } | null = null;
  const close = () => {
    if (!open) return;
    const ms = (open.end - open.start) / 1000;
    if (ms >= minMs) {
      const what = [...open.counts].sort((a, b) => b[1] - a[1])[0]![0];
      stretches.push({ startUs: open.start - profile.startTime, ms, what });
    }
    open = null;
  };
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    const sampledAt = t;
    t += profile.timeDeltas[i] ?? 0;
    const id = profile.samples[i]!;
    if (WAITING.has(byId.get(id)!.callFrame.functionName)) {
      close();
      continue;
    }
    // A sample stands for the time until the next one.
    open ??= { start: sampledAt, end: t, counts: new Map() };
    open.end = t;
    const name = nameOf(id);
    open.counts.set(name, (open.counts.get(name) ?? 0) + 1);
  }
  close();
  return stretches.sort((a, b) => b.ms - a.ms);
}

/** The stretches by what held them: how many, and the longest, most first. */
export function stretchesByWhat(
  stretches: readonly Stretch[],
): { what: string; count: number; longestMs: number }[] {
  const by = new Map<string, { what: string; count: number; longestMs: number }>();
  for (const s of stretches) {
    const e = by.get(s.what) ?? { what: s.what, count: 0, longestMs: 0 };
    e.count++;
    e.longestMs = Math.max(e.longestMs, s.ms);
    by.set(s.what, e);
  }
  return [...by.values()].sort((a, b) => b.count - a.count || b.longestMs - a.longestMs);
}
