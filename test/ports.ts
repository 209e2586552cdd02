// Ports for the servers tests start. A port picked free and closed can be taken by anyone before the
// server binds it, and a server killed and restarted on its port (the chaos runs, the stack tests) leaves
// it free for seconds. Two rules close both gaps:
// - below the kernel's ephemeral range: no bind to port 0 and no outgoing connection is ever given one,
//   so the processes tests start on port 0 or that merely connect somewhere cannot take it;
// - leased machine-wide: a lease file per port (created exclusively, naming the holder's pid) in one
//   folder every checkout and test worker on the machine shares, kept until the holder exits.
import { chmodSync, closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { atProcessEnd } from './process-end.ts';

/** How many ports below the ephemeral range are handed out. */
const SPAN = 10_000;

/** The folder of lease files: one per machine unless MDP_PORT_LEASE_DIR says otherwise. */
export const leaseDir = () => process.env.MDP_PORT_LEASE_DIR ?? join(tmpdir(), 'mdp-port-leases');

/** The lowest port the kernel hands out on its own (Linux's setting; the IANA range elsewhere). */
export function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    if (Number.isInteger(low) && low > 1024) return low;
  } catch {
    // not Linux
  }
  return 49_152;
}

/** The ports leases come from: the SPAN below the ephemeral range, above the privileged ports. */
export function leaseRange(): { from: number; to: number } {
  const to = ephemeralLow() - 1;
  return { from: Math.max(1024, to - SPAN + 1), to };
}

const held = new Set<number>();
atProcessEnd(() => {
  for (const port of held) release(port);
});

/** Whether process `pid` exists (EPERM: it does, under another user). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function holder(path: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(path, 'utf8'), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Creates the lease file for `port`; false when it exists. */
function claim(path: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o644);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
  writeSync(fd, `${process.pid}\n`);
  closeSync(fd);
  return true;
}

/**
 * Removes the lease of a holder that died without releasing it (SIGKILL). `.reclaim` is a lock of its
 * own, so two reclaimers never remove each other's fresh lease; a port whose reclaim lock is left over
 * is simply never handed out again.
 */
function reclaimIfStale(path: string): boolean {
  const pid = holder(path);
  if (pid === undefined || alive(pid)) return false;
  const lock = `${path}.reclaim`;
  if (!claim(lock)) return false;
  try {
    if (holder(path) !== pid) return false;
    unlinkSync(path);
    return true;
  } catch {
    return false; // another user's lease in the shared folder: left to that user
  } finally {
    unlinkSync(lock);
  }
}

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen({ port, host: '0.0.0.0', exclusive: true }, () => srv.close(() => resolve(true)));
  });
}

/**
 * A port for a server this process starts, its own until the process exits (or `release`): nobody
 * else is handed it, so the server may bind it late and bind it again after a restart.
 */
export async function freePort(): Promise<number> {
  const dir = leaseDir();
  // Shared by every user's tests, like /tmp itself.
  if (mkdirSync(dir, { recursive: true }) !== undefined) chmodSync(dir, 0o1777);
  const { from, to } = leaseRange();
  for (let attempt = 0; attempt < 500; attempt++) {
    const port = from + Math.floor(Math.random() * (to - from + 1));
    const path = join(dir, String(port));
    if (!claim(path) && !(reclaimIfStale(path) && claim(path))) continue;
    // Something outside these rules (a server started by hand) may hold it.
    if (await bindable(port)) {
      held.add(port);
      return port;
    }
    unlinkSync(path);
  }
  throw new Error(`no port could be leased in ${from}-${to} (lease files in ${dir})`);
}

/** Gives a leased port back before the process exits. */
export function release(port: number): void {
  held.delete(port);
  const path = join(leaseDir(), String(port));
  try {
    if (holder(path) === process.pid) unlinkSync(path);
  } catch {
    // already gone
  }
}
