// CPU time of processes from /proc (Linux), for "CPU seconds per 1,000 requests" per process.
import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/**
 * User + system CPU seconds a process has used so far (and, with `reaped`, its children that have exited
 * and been waited for: Postgres backends that ended); 0 once it is gone.
 */
export function cpuSeconds(pid: number, reaped = false): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start after the last ')'.
    const fields = stat
      .slice(stat.lastIndexOf(')') + 2)
      .split(' ')
      .map(Number);
    const own = fields[11]! + fields[12]!;
    return (own + (reaped ? fields[13]! + fields[14]! : 0)) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/** Pids of processes whose executable name (comm) is `name`, e.g. postgres or nats-server. */
export function pidsNamed(name: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === name) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/** A named group of processes whose CPU is summed; `pids` is re-read each time (Postgres forks). */
export interface CpuGroup {
  name: string;
  pids: () => number[];
  /** Count exited children too (each process's reaped children's time). */
  withReapedChildren?: boolean;
}

export function snapshot(groups: CpuGroup[]): Map<string, number> {
  return new Map(
    groups.map((g) => [
      g.name,
      g.pids().reduce((sum, pid) => sum + cpuSeconds(pid, g.withReapedChildren), 0),
    ]),
  );
}
