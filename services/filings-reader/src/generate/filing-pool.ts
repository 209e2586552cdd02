import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { type FilingSpec, type PreparedFiling, prepareFiling } from './filing.ts';

const WORKER_FILE = fileURLToPath(new URL('./filing-worker.ts', import.meta.url));

/**
 * Node 20 runs no module hooks (tsx's loader) in worker threads, so the worker registers tsx's require
 * hook itself and loads its TypeScript through it.
 */
function workerSource(): string {
  const tsx = createRequire(import.meta.url).resolve('tsx/cjs/api');
  return `require(${JSON.stringify(tsx)}).register(); require(${JSON.stringify(WORKER_FILE)});`;
}

/** Filings being prepared at once per worker: enough that none waits for the next while one is stored. */
const IN_FLIGHT_PER_WORKER = 3;

interface Reply {
  id: number;
  filing?: PreparedFiling;
  error?: string;
}

class FilingWorker {
  private readonly worker: Worker;
  private readonly pending = new Map<
    number,
    { resolve: (f: PreparedFiling) => void; reject: (e: Error) => void }
  >();
  private nextId = 0;

  constructor(source: string) {
    this.worker = new Worker(source, { eval: true });
    this.worker.on('message', ({ id, filing, error }: Reply) => {
      const p = this.pending.get(id);
      this.pending.delete(id);
      if (filing) p?.resolve(filing);
      else p?.reject(new Error(error));
    });
    this.worker.on('error', (err) => this.failAll(err));
    this.worker.on('exit', (code) => this.failAll(new Error(`filing worker exited with code ${code}`)));
  }

  get busy(): number {
    return this.pending.size;
  }

  prepare(spec: FilingSpec): Promise<PreparedFiling> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, spec });
    });
  }

  async terminate(): Promise<void> {
    await this.worker.terminate();
  }

  private failAll(err: Error): void {
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
  }
}

/**
 * The filings prepared (generated, rendered, digested) on worker threads while the caller stores the
 * earlier ones, handed back in the order of `specs`. With `threads` 0, or without the worker's source
 * file beside this one (an esbuild bundle), they are prepared on this thread, one after another: the
 * same filings.
 */
export async function* preparedInOrder(
  specs: Iterable<FilingSpec>,
  threads = Math.max(1, Math.min(4, availableParallelism())),
): AsyncGenerator<PreparedFiling> {
  if (threads === 0 || !existsSync(WORKER_FILE)) {
    for (const spec of specs) yield await prepareFiling(spec);
    return;
  }
  const source = workerSource();
  const workers = Array.from({ length: threads }, () => new FilingWorker(source));
  try {
    const queue: Promise<PreparedFiling>[] = [];
    const next = specs[Symbol.iterator]();
    const fill = () => {
      while (queue.length < threads * IN_FLIGHT_PER_WORKER) {
        const spec = next.next();
        if (spec.done) return;
        // Filings differ in size (a 190-page annual report, a 12-page call): the least busy worker takes it.
        const worker = workers.reduce((a, b) => (b.busy < a.busy ? b : a));
        const p = worker.prepare(spec.value);
        p.catch(() => {}); // awaited in turn below; a failure is thrown there
        queue.push(p);
      }
    };
    fill();
    for (let p = queue.shift(); p; p = queue.shift()) {
      const filing = await p;
      fill();
      yield filing;
    }
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
}
