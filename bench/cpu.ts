// CPU time of processes from /proc (Linux), for "CPU seconds per 1,000 requests" per process.
import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** A process's own user + system CPU seconds so far, and those of its children that ended and were reaped. */
function cpuOf(pid: number): { own: number; reaped: number } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start after the last ')'.
    const fields = stat
      .slice(stat.lastIndexOf(')') + 2)
      .split(' ')
      .map(Number);
    return {
      own: (fields[11]! + fields[12]!) / TICKS_PER_SECOND,
      reaped: (fields[13]! + fields[14]!) / TICKS_PER_SECOND,
    };
  } catch {
    return null;
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
  /** Count children that ended in the window too (Postgres backends of a pool that closed them). */
  withReapedChildren?: boolean;
}

/** Where a group's processes stood at one moment. */
export interface GroupReading {
  /** Own CPU seconds of each live process. */
  byPid: Map<number, number>;
  /** CPU seconds of the group's ended and reaped children, in all. */
  reaped: number;
}

export function snapshot(groups: CpuGroup[]): Map<string, GroupReading> {
  return new Map(
    groups.map((g) => {
      const byPid = new Map<number, number>();
      let reaped = 0;
      for (const pid of g.pids()) {
        const cpu = cpuOf(pid);
        if (!cpu) continue;
        byPid.set(pid, cpu.own);
        if (g.withReapedChildren) reaped += cpu.reaped;
      }
      return [g.name, { byPid, reaped }];
    }),
  );
}

/**
 * CPU seconds a group used between two readings. A child that ended in between counts only what it used
 * after the first reading: the parent's reaped total grows by the child's whole life, so what the child
 * had used by the first reading is taken off again (without that, a backend ending after an hour of
 * work would be charged to the scenario it happened to end in).
 */
export function cpuBetween(before: GroupReading, after: GroupReading): number {
  let seconds = after.reaped - before.reaped;
  for (const [pid, cpu] of after.byPid) seconds += cpu - (before.byPid.get(pid) ?? 0);
  for (const [pid, cpu] of before.byPid) if (!after.byPid.has(pid)) seconds -= cpu;
  return Math.max(0, seconds);
}
