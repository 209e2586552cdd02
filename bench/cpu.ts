// CPU time of processes from /proc (Linux), for "CPU seconds per 1,000 requests" per process.
import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** User + system CPU seconds a process has used so far; 0 once it is gone. */
export function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
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
}

export function snapshot(groups: CpuGroup[]): Map<string, number> {
  return new Map(groups.map((g) => [g.name, g.pids().reduce((sum, pid) => sum + cpuSeconds(pid), 0)]));
}
