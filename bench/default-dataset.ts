// The equities default dataset in a bench's stack, as `make bench`, `bench/gateway-ab.ts` and
// `make bench-ledger` measure on it.
import { spawnSync } from 'node:child_process';
import { nodeArgsFor } from '../test/bundles.ts';
import type { Stack } from '../test/stack.ts';
import { waitForGauge, waitForQuietHeap } from './ops-metrics.ts';

/**
 * Loads the default dataset into the stack's equities-data schema (its CLI: the run's bundle when there is
 * one, else the source through tsx), then waits until the running service has taken it in and its heap
 * has settled: the service reloads the new data in the background, and the garbage of that load (the old
 * dataset, the rows it was read from) is collected in up to three major collections about 8 s apart, which
 * landed in later runs (over a second of equities-data CPU in the 365-day, 1,000-account and last bare
 * rows, 25 November 2026). `quiet`: the CLI's progress left out. Resolves to the major collections waited out.
 */
export async function loadDefaultDataset(stack: Stack, opts: { quiet?: boolean } = {}): Promise<number> {
  const loaded = spawnSync(
    process.execPath,
    [...nodeArgsFor('services/equities-data/src/cli.ts'), 'load-default'],
    {
      env: { ...process.env, DB_SCHEMA: stack.schemas.find((name) => name.endsWith('_equities_data'))! },
      stdio: opts.quiet ? ['ignore', 'ignore', 'inherit'] : 'inherit',
    },
  );
  if (loaded.status !== 0) throw new Error('could not load the equities dataset');
  const probe = { name: 'equities-data', opsPort: stack.procs.get('equities-data')!.opsPort };
  await waitForGauge(probe, 'equities_data_last_session_timestamp_seconds', 60_000);
  return waitForQuietHeap(probe, 10_000, 120_000);
}
