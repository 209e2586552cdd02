// A process the bench starts (the peer's Redis, node-compare's second gateway): what it printed, whether
// it has ended, and a stop that waits for it. It goes with the bench however the bench ends.
import type { ChildProcess } from 'node:child_process';
import { atProcessEnd } from '../test/process-end.ts';

export interface Supervised {
  output: string[];
  /** True once it exited, or could not be started at all ('error' alone). */
  exited(): boolean;
  exitCode(): number | null;
  /** SIGTERM, then resolves once it has exited. */
  stop(): Promise<void>;
}

export function supervise(child: ChildProcess): Supervised {
  const output: string[] = [];
  child.stdout?.on('data', (c) => output.push(String(c)));
  child.stderr?.on('data', (c) => output.push(String(c)));
  let exited = false;
  let exitCode: number | null = null;
  const gone = new Promise<void>((resolve) => {
    child.once('exit', (code) => {
      exitCode = code;
      exited = true;
      resolve();
    });
    child.once('error', (err) => {
      output.push(String(err));
      exited = true;
      resolve();
    });
  });
  const cancel = atProcessEnd(() => child.kill('SIGKILL'));
  return {
    output,
    exited: () => exited,
    exitCode: () => exitCode,
    stop: async () => {
      cancel();
      if (!exited) {
        child.kill('SIGTERM');
        await gone;
      }
    },
  };
}
