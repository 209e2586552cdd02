// Instructions by function in a callgrind dump, V8's compiled JavaScript named too. Callgrind knows the
// node binary's symbols (V8's builtins and runtime, libuv, llhttp) but not code that V8 writes at run
// time: that shows as bare addresses. Started with `--perf-basic-prof`, V8 writes each code object's
// address, size and name to /tmp/perf-<pid>.map (the file `perf` reads), and the addresses are looked
// up there. Only each function's own instructions are summed (what it calls is its callees'), so the
// figures add up to the dump's total. Under callgrind a process serves a few hundred requests a second:
// work done once a millisecond (a timer, a cached clock) is once a request there, and reads larger than
// at full speed (contributors.md, "Instructions by function").
import { readFileSync } from 'node:fs';

/** V8's code objects by address: the name of the one that holds an address, the latest written if several did. */
export interface CodeMap {
  lookup(address: number): string | undefined;
}

/** A code object's span holds this many others' starts at most, looking back (V8's code spans are short). */
const LOOK_BACK = 512;

export function parsePerfMap(text: string): CodeMap {
  const entries = text
    .split('\n')
    .map((line, order) => {
      const m = /^([0-9a-f]+) ([0-9a-f]+) (.*)$/i.exec(line);
      if (!m) return undefined;
      const start = Number.parseInt(m[1]!, 16);
      return { start, end: start + Number.parseInt(m[2]!, 16), name: m[3]!, order };
    })
    .filter((e) => e !== undefined)
    .sort((a, b) => a.start - b.start);
  return {
    lookup(address) {
      let lo = 0;
      let hi = entries.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (entries[mid]!.start <= address) lo = mid + 1;
        else hi = mid;
      }
      let found: (typeof entries)[number] | undefined;
      for (let k = lo - 1; k >= 0 && k >= lo - LOOK_BACK; k--) {
        const e = entries[k]!;
        // Code moved or compiled again writes a new line: the latest holder of the address is the one.
        if (address < e.end && (found === undefined || e.order > found.order)) found = e;
      }
      return found?.name;
    },
  };
}

/** `perf-<pid>.map` of a process started with `--perf-basic-prof`: empty when there is none. */
export function perfMapOf(pid: number): CodeMap {
  try {
    return parsePerfMap(readFileSync(`/tmp/perf-${pid}.map`, 'utf8'));
  } catch {
    return parsePerfMap('');
  }
}

/** One cost line of a dump: the function it is under, and the callee when it is a call's inclusive cost. */
interface CostLine {
  fn: string;
  callee: string | undefined;
  cost: number;
}

/**
 * The cost lines of a callgrind dump (`--dump-instr=no`, the default), each under its `fn=`: a line that
 * follows a `calls=` line is the call's inclusive cost, its callee's (the `cfn=` before it). Names are
 * compressed as `(n) name` the first time and `(n)` after, in `fn=` and `cfn=` lines alike; V8's code,
 * bare addresses, is named from `code`.
 */
function* costLines(dump: string, code: CodeMap): Generator<CostLine> {
  const names = new Map<string, string>();
  const named = (line: string, prefix: string): string => {
    const m = /^\((\d+)\)(?: (.*))?$/.exec(line.slice(prefix.length));
    let name = line.slice(prefix.length);
    if (m?.[2] !== undefined) {
      name = m[2];
      names.set(m[1]!, name);
    } else if (m) name = names.get(m[1]!) ?? m[1]!;
    return /^0x[0-9a-f]+$/.test(name)
      ? (code.lookup(Number.parseInt(name, 16)) ?? '(JIT code not in the map)')
      : name;
  };
  let fn = '';
  let callee: string | undefined;
  let afterCall = false;
  for (const line of dump.split('\n')) {
    if (line.startsWith('fn=')) {
      fn = named(line, 'fn=');
      afterCall = false;
    } else if (line.startsWith('cfn=')) callee = named(line, 'cfn=');
    else if (line.startsWith('calls=')) afterCall = true;
    else if (/^[0-9+*-]/.test(line)) {
      const cost = Number(line.trim().split(/\s+/)[1] ?? 0);
      if (cost > 0 && fn) yield { fn, callee: afterCall ? callee : undefined, cost };
      afterCall = false;
    }
  }
}

/**
 * Each function's own instructions in a callgrind dump: the cost lines under its `fn=`, less its calls'
 * (their callees').
 */
export function selfInstructions(dump: string, code: CodeMap): Map<string, number> {
  const self = new Map<string, number>();
  for (const l of costLines(dump, code))
    if (l.callee === undefined) self.set(l.fn, (self.get(l.fn) ?? 0) + l.cost);
  return self;
}

/**
 * What each function's calls to the functions `callee` matches cost, inclusive (the callee's own and
 * what it called in turn): who makes V8's megamorphic property look-ups, say. A matching function
 * calling another is not counted again.
 */
export function callerInstructions(dump: string, code: CodeMap, callee: RegExp): Map<string, number> {
  const callers = new Map<string, number>();
  for (const l of costLines(dump, code)) {
    if (l.callee === undefined || !callee.test(l.callee) || callee.test(l.fn)) continue;
    callers.set(l.fn, (callers.get(l.fn) ?? 0) + l.cost);
  }
  return callers;
}

/** The `n` functions whose own instructions a request differ most from `base` to `tree`, largest first. */
export function largestDifferences(
  base: ReadonlyMap<string, number>,
  tree: ReadonlyMap<string, number>,
  requests: number,
  n: number,
): { name: string; base: number; tree: number }[] {
  const names = new Set([...base.keys(), ...tree.keys()]);
  return [...names]
    .map((name) => ({ name, base: (base.get(name) ?? 0) / requests, tree: (tree.get(name) ?? 0) / requests }))
    .sort((a, b) => Math.abs(b.tree - b.base) - Math.abs(a.tree - a.base))
    .slice(0, n);
}
