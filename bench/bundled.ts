// A bench measures the platform in the form production runs: each service's esbuild bundle (the options
// `make build` uses; test/bundles.ts makes them, as for the test suite), not its TypeScript source
// through tsx. tsx stays loaded in a process it starts and parses modules as they load; in a profile
// of the ledger under load 2.7% of its samples were tsx's (28 November 2026). The bare and peer servers
// run under plain Node, which strips their types itself.
import { stop as stopEsbuild } from 'esbuild';
import { bundleEntry } from '../scripts/lib/bundle-options.ts';
import bundleEntries from '../test/bundles.ts';
import { atProcessEnd } from '../test/process-end.ts';

/**
 * Bundles the services for this process's stacks (once) and removes the bundles when it ends. Then stops
 * esbuild's service process, which otherwise stays for the life of this one: its Go runtime collected a
 * heap grown by the bundling in bursts of up to 48 ms of CPU during measured runs (bench/stalls.ts, 7
 * December 2026). A later build starts it again.
 */
export async function runBundled(): Promise<void> {
  const remove = await bundleEntries();
  if (remove) atProcessEnd(remove);
  await stopEsbuild();
}

/** One more entry bundled for a bench process (bench/floor-server.ts, say), esbuild's service stopped after it as above. */
export async function bundleOne(entry: string, outfile: string): Promise<void> {
  await bundleEntry(entry, outfile);
  await stopEsbuild();
}
