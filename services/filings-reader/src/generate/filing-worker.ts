import { parentPort } from 'node:worker_threads';
import { type FilingSpec, prepareFiling } from './filing.ts';

/** The worker side of filing-pool.ts: prepares each filing it is sent and answers with its id. */
const port = parentPort;
if (!port) throw new Error('filing-worker.ts runs as a worker thread (filing-pool.ts starts it)');
port.on('message', async ({ id, spec }: { id: number; spec: FilingSpec }) => {
  try {
    port.postMessage({ id, filing: await prepareFiling(spec) });
  } catch (err) {
    port.postMessage({ id, error: err instanceof Error ? err.message : String(err) });
  }
});
