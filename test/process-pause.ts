import { readdirSync, readFileSync } from 'node:fs';

/** The scheduler state of each thread of `pid` (`T`: stopped), from /proc; empty once it is gone. */
function threadStates(pid: number): string[] {
  try {
    return readdirSync(`/proc/${pid}/task`).map((tid) => {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      // The state follows the command name, which is in parentheses and may hold anything.
      return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    });
  } catch {
    return [];
  }
}

/**
 * Stops `pid` with SIGSTOP and resolves once every thread of it is stopped. `kill` returns when the
 * signal is pending, not when it has taken effect: on a loaded machine the thread chosen to take it may
 * wait for a CPU while the others run on (seen: nats-server acknowledging publishes for 37 ms after
 * `kill` returned, under a load average of 5 on two cores).
 */
export async function pauseProcess(pid: number, timeoutMs = 5_000): Promise<void> {
  process.kill(pid, 'SIGSTOP');
  const until = Date.now() + timeoutMs;
  for (;;) {
    const states = threadStates(pid);
    if (states.length > 0 && states.every((s) => s === 'T' || s === 't')) return;
    if (Date.now() > until)
      throw new Error(`process ${pid} not stopped after ${timeoutMs} ms: ${states.join('')}`);
    await new Promise((r) => setTimeout(r, 1));
  }
}
