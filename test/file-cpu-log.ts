import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

// The CPU each integration test file cost (test/file-cpu.ts writes it): on two cores the suite is
// CPU-bound, so a file's CPU, not its wall time, is what it takes from the files beside it.
//
//   npx tsx test/file-cpu-log.ts [N]     the N (15) costliest files of the last `make test`

const ROOT = join(dirname(new URL(import.meta.url).pathname), '..');
export const CPU_LOG = join(ROOT, '.local', 'test-cpu.jsonl');
const TICKS_PER_S = 100;

export interface FileCpu {
  file: string;
  /** CPU seconds of the vitest worker while the file ran. */
  self: number;
  /** CPU seconds of the processes the file started and waited for. */
  children: number;
  /** Wall seconds. */
  wall: number;
}

/** user+system CPU seconds of a process and of its waited-for children, from its /proc/<pid>/stat. */
export function cpuSeconds(stat: string): { self: number; children: number } {
  // utime, stime, cutime and cstime are fields 14 to 17; the command name (field 2) may hold spaces
  // and parentheses, so fields are counted from after its last closing parenthesis (field 3 onwards).
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const field = (n: number) => Number(f[n - 3]);
  return {
    self: (field(14) + field(15)) / TICKS_PER_S,
    children: (field(16) + field(17)) / TICKS_PER_S,
  };
}

/** The `top` costliest files by CPU, and the totals, as lines to print. */
export function summary(lines: readonly string[], top: number): string[] {
  const rows = lines.filter((l) => l.trim()).map((l) => JSON.parse(l) as FileCpu);
  const cpu = (r: FileCpu) => r.self + r.children;
  rows.sort((a, b) => cpu(b) - cpu(a));
  const total = rows.reduce((s, r) => s + cpu(r), 0);
  const out = [`CPU of the ${rows.length} integration test files: ${Math.round(total)} s; the costliest:`];
  for (const r of rows.slice(0, top))
    out.push(
      `  ${cpu(r).toFixed(0).padStart(5)} s CPU (${r.children.toFixed(0).padStart(4)} s in its processes) ${r.wall.toFixed(0).padStart(5)} s wall  ${r.file}`,
    );
  return out;
}

if (process.argv[1] === new URL(import.meta.url).pathname) {
  if (!existsSync(CPU_LOG)) {
    console.error(`no ${CPU_LOG}: run make test first`);
    process.exit(1);
  }
  const top = Number(process.argv[2]) || 15;
  console.log(summary(readFileSync(CPU_LOG, 'utf8').split('\n'), top).join('\n'));
}
