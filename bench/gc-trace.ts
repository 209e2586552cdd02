// What V8's garbage collector did in a process run with `--trace-gc-nvp`, read from the lines it prints
// (one a collection, `name=value` pairs): how many scavenges and how long each held the process, what
// outlived them (kept young, or promoted to the old generation), and how many major collections. What
// outlives a scavenge is what it copies, and every request in flight waits out its pause: a figure that
// moves less with the hour than CPU time does (contributors.md, 5 December).
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { median } from './ledger-goals.ts';

/** One collection as `--trace-gc-nvp` reports it; null for any other line. */
export interface Collection {
  /** `s`: a scavenge, `ms`: a minor mark-sweep (both of the young generation); `mc`: a mark-compact. */
  kind: string;
  pauseMs: number;
  survivedBytes: number;
  promotedBytes: number;
}

/** `[pid:isolate(:thread)]   time ms: pause=…`: V8's own prefix, which no log line of ours has. */
const NVP = /^\[\d+:0x[0-9a-f]+(?::\d+)?\]\s+[\d.]+ ms: pause=/;

export function parseCollection(line: string): Collection | null {
  if (!NVP.test(line)) return null;
  const fields = new Map<string, string>();
  for (const pair of line.split(/\s+/)) {
    const eq = pair.indexOf('=');
    if (eq > 0) fields.set(pair.slice(0, eq), pair.slice(eq + 1));
  }
  const number = (name: string) => Number(fields.get(name) ?? 0) || 0;
  return {
    kind: fields.get('gc') ?? '',
    pauseMs: number('pause'),
    survivedBytes: number('new_space_survived'),
    promotedBytes: number('promoted'),
  };
}

const YOUNG = new Set(['s', 'ms']);

/** A run's collections, a request each where it is a quantity. */
export interface YoungGeneration {
  /** Young-generation collections. */
  scavenges: number;
  /** The median scavenge's pause (NaN with none). */
  pauseMs: number;
  survivedPerRequest: number;
  promotedPerRequest: number;
  majors: number;
}

export function summarise(collections: readonly Collection[], requests: number): YoungGeneration {
  const scavenges = collections.filter((c) => YOUNG.has(c.kind));
  const sum = (pick: (c: Collection) => number) => scavenges.reduce((total, c) => total + pick(c), 0);
  return {
    scavenges: scavenges.length,
    pauseMs: scavenges.length > 0 ? median(scavenges.map((c) => c.pauseMs)) : Number.NaN,
    survivedPerRequest: sum((c) => c.survivedBytes) / requests,
    promotedPerRequest: sum((c) => c.promotedBytes) / requests,
    majors: collections.filter((c) => c.kind === 'mc').length,
  };
}

/** Several runs' figures as one line: the median run's of each, and the major collections of all. */
export function youngLine(runs: readonly YoungGeneration[]): string {
  const of = (pick: (y: YoungGeneration) => number) => median(runs.map(pick).filter((x) => !Number.isNaN(x)));
  const majors = runs.reduce((total, y) => total + y.majors, 0);
  return (
    `${of((y) => y.scavenges)} scavenges a run, each pausing ${of((y) => y.pauseMs).toFixed(1)} ms, ${Math.round(of((y) => y.survivedPerRequest))} B a request ` +
    `survived and ${Math.round(of((y) => y.promotedPerRequest))} B promoted (medians of ${runs.length} runs), ` +
    `${majors} mark-compacts in all`
  );
}

/**
 * Reads a process's standard output: its collections are kept (until `take`), every other line is
 * passed on to `forward`.
 */
export class CollectionLog {
  private collections: Collection[] = [];

  constructor(out: Readable, forward: (line: string) => void) {
    createInterface({ input: out, crlfDelay: Number.POSITIVE_INFINITY }).on('line', (line) => {
      const c = parseCollection(line);
      if (c) this.collections.push(c);
      else if (line.length > 0) forward(line);
    });
  }

  /** The collections since the last `take`. */
  take(): Collection[] {
    const taken = this.collections;
    this.collections = [];
    return taken;
  }
}
