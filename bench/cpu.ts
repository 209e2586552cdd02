// CPU time of processes from /proc (Linux), for "CPU seconds per 1,000 requests" per process.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** A process's own user + system CPU seconds so far, and those of its children that ended and were reaped. */
export function cpuOf(pid: number): { own: number; reaped: number } | null {
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

/**
 * Each group's CPU in ms a second over a spell in which nothing is asked of it (`wait`): its background.
 * An idle service's timers each wake its process, and on these two cores every wake-up takes a core from
 * whatever runs there (contributors.md, 7 December: the event-loop monitor's timer). Ticks are 10 ms, so
 * over 10 s a figure is good to 1 ms a second.
 */
export async function cpuOverIdle(
  groups: CpuGroup[],
  wait: () => Promise<void>,
): Promise<{ seconds: number; msPerSecond: Map<string, number> }> {
  const before = snapshot(groups);
  const started = performance.now();
  await wait();
  const seconds = (performance.now() - started) / 1000;
  const after = snapshot(groups);
  return {
    seconds,
    msPerSecond: new Map(
      groups.map((g) => [g.name, (cpuBetween(before.get(g.name)!, after.get(g.name)!) / seconds) * 1000]),
    ),
  };
}

/**
 * The process listening on TCP `port` (IPv4 or IPv6, any address), from /proc/net/tcp and the processes'
 * open sockets, when its executable is `name`; undefined when there is none or it cannot be read (another
 * user's process, another network namespace). Lets the bench count the Postgres and the NATS its stack
 * uses, not the private ones other test runs on the machine start and stop.
 */
export function listenerPid(port: number, name: string): number | undefined {
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      // local_address is ADDR:PORT in hex; state 0A is LISTEN; the inode is the tenth field.
      if (f.length < 10 || f[3] !== '0A') continue;
      if (Number.parseInt(f[1]!.split(':')[1]!, 16) === port) inodes.add(f[9]!);
    }
  }
  if (inodes.size === 0) return undefined;
  for (const pid of pidsNamed(name)) {
    try {
      for (const fd of readdirSync(`/proc/${pid}/fd`)) {
        const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
        if (target.startsWith('socket:[') && inodes.has(target.slice(8, -1))) return pid;
      }
    } catch {
      // gone, or not ours to read
    }
  }
  return undefined;
}

/** `pid` and the processes it started (their parent is `pid`): a postmaster and its backends. */
export function withChildren(pid: number): number[] {
  const pids = [pid];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/** Context switches: waits (voluntary) and preemptions (involuntary). */
export interface Switches {
  voluntary: number;
  involuntary: number;
}

/** The switches between two readings, a request. */
export const switchesPer = (before: Switches, after: Switches, requests: number): Switches => ({
  voluntary: (after.voluntary - before.voluntary) / requests,
  involuntary: (after.involuntary - before.involuntary) / requests,
});

/**
 * Context switches of all of a process's threads so far (a thread that ended is not counted): waits
 * (voluntary: it blocked, as an idle event loop does) and preemptions (involuntary: the kernel gave its
 * core to another process while it could still run).
 */
export function contextSwitches(pid: number): Switches {
  const switches: Switches = { voluntary: 0, involuntary: 0 };
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return switches;
  }
  for (const task of tasks) {
    try {
      const status = readFileSync(`/proc/${pid}/task/${task}/status`, 'utf8');
      switches.voluntary += Number(/^voluntary_ctxt_switches:\s+(\d+)/m.exec(status)?.[1] ?? 0);
      switches.involuntary += Number(/^nonvoluntary_ctxt_switches:\s+(\d+)/m.exec(status)?.[1] ?? 0);
    } catch {
      // a thread that ended meanwhile
    }
  }
  return switches;
}

/** `contextSwitches` summed over processes (the gateways of a row). */
export function contextSwitchesOf(pids: number[]): Switches {
  const sum: Switches = { voluntary: 0, involuntary: 0 };
  for (const pid of pids) {
    const s = contextSwitches(pid);
    sum.voluntary += s.voluntary;
    sum.involuntary += s.involuntary;
  }
  return sum;
}
