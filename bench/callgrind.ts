// Instructions a process executes, counted by valgrind's callgrind: the same figure for the same work
// whatever else the machine is doing, where CPU time moves by half with the hour (contributors.md). A
// process started under `callgrindPrefix` runs 30 to 50 times slower; `zeroCounts` then
// `instructionsSinceZero` read what it executed in between, its helper threads (V8's compiler and
// garbage collector) included. User space only: the kernel's part of a request is not counted.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Stops the bench at once, naming what is missing, instead of failing to start every process. */
export function requireCallgrind(): void {
  for (const tool of ['valgrind', 'callgrind_control']) {
    const found = spawnSync(tool, ['--version'], { stdio: 'ignore' });
    if (found.error || found.status !== 0)
      throw new Error(`${tool} not found: the instruction count needs valgrind (Debian's valgrind package)`);
  }
}

/**
 * The command line before `node …` that runs it under callgrind, its dumps in `dir` named `name`. Code
 * that V8 writes at run time is only translated again when checked (`--smc-check`).
 */
export const callgrindPrefix = (dir: string, name: string): string[] => [
  'valgrind',
  '--tool=callgrind',
  '--smc-check=all-non-file',
  `--callgrind-out-file=${join(dir, `${name}.%p`)}`,
];

function control(pid: number, command: '-z' | '-d'): void {
  const done = spawnSync('callgrind_control', [command, String(pid)], { encoding: 'utf8' });
  if (done.status !== 0)
    throw new Error(`callgrind_control ${command} ${pid}: ${done.stderr || done.stdout}`);
}

/** Sets the process's counts to zero. */
export const zeroCounts = (pid: number): void => control(pid, '-z');

/** What a process executed over a run: in all, and in V8's garbage collector (its functions by name). */
export interface Counted {
  /** The dump read (for `selfInstructions`, bench/callgrind-functions.ts). */
  dump: string;
  total: number;
  /** Marking, compacting and sweeping the old generation (mostly on helper threads). */
  major: number;
  /** Scavenges of the young generation. */
  young: number;
}

/**
 * The collector's functions, by their C++ names in Node's symbols (V8 14): a major collection's marking
 * (concurrent or not), compaction and sweeping, and the scavenger. Read apart because V8 starts some
 * collections by time (its memory reducer), and a process slowed 30 to 50 times under callgrind gets
 * major collections that it does not get at full speed (contributors.md, 5 December): what a change does
 * to the rest of the work is not hidden by them.
 */
const MAJOR = /Marking|MarkCompact|Sweep|Evacuat|RememberedSet/;
const YOUNG = /Scaveng/;

/** What the process executed since `zeroCounts`: a dump is written and read. */
export function instructionsSinceZero(pid: number, dir: string, name: string): Counted {
  control(pid, '-d');
  // Dumps are numbered from 1 in the order they are written: `<name>.<pid>.<n>`.
  const prefix = `${name}.${pid}.`;
  const last = Math.max(
    0,
    ...readdirSync(dir)
      .filter((f) => f.startsWith(prefix))
      .map((f) => Number(f.slice(prefix.length)))
      .filter(Number.isSafeInteger),
  );
  if (last === 0) throw new Error(`no callgrind dump of ${name} (pid ${pid}) in ${dir}`);
  const dump = join(dir, `${prefix}${last}`);
  const summary = /^summary:\s+(\d+)/m.exec(readFileSync(dump, 'utf8'));
  if (!summary) throw new Error(`${dump}: no summary line`);
  // Each function's own instructions, every function listed (threshold 100%).
  const annotated = spawnSync('callgrind_annotate', ['--inclusive=no', '--threshold=100', dump], {
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  if (annotated.status !== 0) throw new Error(`callgrind_annotate ${dump}: ${annotated.stderr}`);
  const counted: Counted = { dump, total: Number(summary[1]), major: 0, young: 0 };
  for (const line of annotated.stdout.split('\n')) {
    const m = /^\s*([\d,]+) \([^)]*\)\s+(.*)$/.exec(line);
    if (!m || m[2]!.startsWith('PROGRAM TOTALS')) continue;
    const n = Number(m[1]!.replaceAll(',', ''));
    if (YOUNG.test(m[2]!)) counted.young += n;
    else if (MAJOR.test(m[2]!)) counted.major += n;
  }
  return counted;
}
