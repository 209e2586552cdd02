// What a test process must undo however it ends: a normal exit, the SIGTERM vitest stops a worker with
// (a SIGKILL follows 500 ms later; a hook that timed out is not waited for), or a Ctrl-C. Without it a
// stack whose start outlived its hook's timeout keeps running, loading the machine for the runs after.

const cleanups = new Set<() => void>();

function runAll(): void {
  for (const cleanup of cleanups) {
    try {
      cleanup();
    } catch {
      // the others still run
    }
  }
  cleanups.clear();
}

let installed = false;
function install(): void {
  installed = true;
  process.once('exit', runAll);
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
    process.once(signal, () => {
      runAll();
      // A listener of the program's own handles the signal; otherwise its default action, as if nobody
      // had listened (this listener is gone, so the signal is raised again).
      if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
    });
  }
}

/** Runs `cleanup` (synchronous) when this process ends; the returned function cancels it. */
export function atProcessEnd(cleanup: () => void): () => void {
  if (!installed) install();
  cleanups.add(cleanup);
  return () => cleanups.delete(cleanup);
}
