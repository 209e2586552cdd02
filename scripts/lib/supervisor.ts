import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Formatter } from './log-format.ts';
import { type RestartPolicy, RestartTracker } from './restart-policy.ts';

/** One supervised process. */
export interface ProcessSpec {
  name: string;
  /** Run with this Node.js binary: `node <args…>`. */
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** The ops port whose /readyz says the process is ready again after a restart. */
  opsPort: number;
  formatter: Formatter;
}

export interface SupervisorOptions {
  /** The run's own voice (`run: …`); `warn` for what went wrong. */
  say: (text: string) => void;
  warn: (text: string) => void;
  /** Ends the run; `process.exit` in `make run`. */
  exit: (code: number) => void;
  policy?: RestartPolicy;
  stopGraceMs: number;
  readyTimeoutMs: number;
  /** Processes stopped before the rest (the front door, so what it drains can still reach the others). */
  stopFirst?: (name: string) => boolean;
}

interface Running {
  spec: ProcessSpec;
  child: ChildProcess;
  exited: Promise<void>;
  alive: boolean;
  startedAt: number;
  restarts: RestartTracker;
}

/** /readyz of an ops port: 'ready', or why not. */
export async function probe(port: number): Promise<string> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(1_000) });
    await res.arrayBuffer();
    return res.status === 200 ? 'ready' : `HTTP ${res.status}`;
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause?.code;
    return cause === 'ECONNREFUSED' ? 'not listening yet' : (cause ?? (err as Error).name);
  }
}

/**
 * Runs processes as an orchestrator would: each in its own process group with its output prefixed, a
 * process that exits restarted with backoff (the restart logged, and when it is ready again), a crash
 * loop ending the run; on stop, SIGTERM in order, SIGKILL after the grace period, then exit.
 */
export class Supervisor {
  readonly running: Running[] = [];
  stopping = false;
  private firstSignalAt = 0;

  constructor(private readonly o: SupervisorOptions) {}

  start(specs: ProcessSpec[]): void {
    for (const spec of specs) {
      const entry = { spec, restarts: new RestartTracker(this.o.policy) } as Running;
      this.spawn(entry);
      this.running.push(entry);
    }
  }

  private spawn(entry: Running): void {
    // Own process group: a terminal Ctrl-C reaches this script only, and the children get exactly
    // one SIGTERM from it, so each drains once instead of racing the terminal's SIGINT.
    const child = spawn(process.execPath, entry.spec.args, {
      cwd: entry.spec.cwd,
      env: entry.spec.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    entry.child = child;
    entry.alive = true;
    entry.startedAt = Date.now();
    entry.exited = new Promise((resolve) => {
      child.once('error', (err) => {
        entry.alive = false;
        this.onExit(entry, `could not be started: ${err.message}`);
        resolve();
      });
      child.once('exit', (code, signal) => {
        entry.alive = false;
        this.onExit(entry, signal ? `was killed by ${signal}` : `exited with code ${code}`);
        resolve();
      });
    });
    this.pipe(entry, child.stdout, false);
    this.pipe(entry, child.stderr, true);
  }

  private pipe(entry: Running, stream: NodeJS.ReadableStream | null, isStderr: boolean): void {
    if (!stream) return;
    const lines = createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY });
    lines.on('line', (line) => {
      const out = entry.spec.formatter.format(line).join('\n');
      if (isStderr) process.stderr.write(`${out}\n`);
      else process.stdout.write(`${out}\n`);
    });
  }

  private onExit(entry: Running, how: string): void {
    const { name } = entry.spec;
    if (this.stopping) {
      this.o.say(
        `${name} ${how === 'exited with code 0' || how === 'was killed by SIGTERM' ? 'stopped' : how}`,
      );
      return;
    }
    const next = entry.restarts.exited(entry.startedAt);
    if (!next.restart) {
      this.o.warn(`${name} ${how}: crash loop (${next.why}); stopping the others`);
      void this.stop(1);
      return;
    }
    this.o.warn(`${name} ${how} unexpectedly; restart ${next.attempt} in ${next.delayMs} ms`);
    setTimeout(() => {
      if (this.stopping) return;
      this.spawn(entry);
      void this.readyAgain(entry);
    }, next.delayMs);
  }

  private async readyAgain(entry: Running): Promise<void> {
    const deadline = Date.now() + this.o.readyTimeoutMs;
    while (!this.stopping && entry.alive && Date.now() < deadline) {
      if ((await probe(entry.spec.opsPort)) === 'ready')
        return this.o.say(`${entry.spec.name} is ready again`);
      await new Promise((r) => setTimeout(r, 250));
    }
    if (!this.stopping && entry.alive)
      this.o.warn(`${entry.spec.name} is not ready ${this.o.readyTimeoutMs / 1000}s after its restart`);
  }

  /**
   * Stops the processes `stopFirst` picks, then the rest; SIGKILL for anything still running after the
   * grace period; then ends the run with `code`.
   */
  async stop(code: number): Promise<void> {
    if (this.stopping) return new Promise<void>(() => {});
    this.stopping = true;
    const force = setTimeout(
      () => this.killAll(`still running after ${this.o.stopGraceMs / 1000}s`),
      this.o.stopGraceMs,
    );
    force.unref();
    const first = this.o.stopFirst ?? (() => false);
    const waves = [
      this.running.filter((r) => first(r.spec.name)),
      this.running.filter((r) => !first(r.spec.name)),
    ];
    for (const wave of waves) {
      const live = wave.filter((r) => r.alive);
      if (live.length === 0) continue;
      this.o.say(
        `stopping ${live.map((r) => r.spec.name).join(', ')} (SIGTERM: finish in-flight work, then exit)`,
      );
      for (const r of live) r.child.kill('SIGTERM');
      await Promise.all(live.map((r) => r.exited));
    }
    clearTimeout(force);
    if (code === 0) this.o.say('all services stopped');
    else this.o.warn('all services stopped after a failure');
    this.o.exit(code);
  }

  killAll(why: string): void {
    for (const r of this.running.filter((x) => x.alive)) {
      this.o.warn(`${r.spec.name} ${why}: SIGKILL`);
      r.child.kill('SIGKILL');
    }
  }

  onSignal(signal: NodeJS.Signals): void {
    const now = Date.now();
    if (!this.stopping) {
      this.firstSignalAt = now;
      console.log('');
      this.o.say(`${signal} received, stopping (Ctrl-C again kills at once)`);
      void this.stop(0);
    } else if (now - this.firstSignalAt > 1_000) {
      // The same Ctrl-C can arrive twice (terminal and npx/tsx relaying it); only a later one forces.
      this.killAll('asked to stop again');
    }
  }
}
