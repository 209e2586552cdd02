// A bench measures the platform in the form production runs: each service's esbuild bundle (the options
// `make build` uses; test/bundles.ts makes them, as for the test suite), not its TypeScript source
// through tsx. tsx stays loaded in a process it starts and parses modules as they load; in a profile
// of the ledger under load 2.7% of its samples were tsx's (28 November 2026). The bare and peer servers
// run under plain Node, which strips their types itself.
import bundleEntries from '../test/bundles.ts';
import { atProcessEnd } from '../test/process-end.ts';

/** Bundles the services for this process's stacks (once) and removes the bundles when it ends. */
export async function runBundled(): Promise<void> {
  const remove = await bundleEntries();
  if (remove) atProcessEnd(remove);
}
