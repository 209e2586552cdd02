import { existsSync, readdirSync, rmSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { bundleEntry } from '../scripts/lib/bundle-options.ts';
import { ROOT, SERVICES } from '../scripts/lib/services.ts';
import { alive } from './ports.ts';

// Each process a test starts through tsx spent about 1.5 s of CPU resolving and loading TypeScript
// (the auth admin tool: 2.2 s of CPU through tsx, 0.7 s bundled). The suite starts hundreds of
// them, several files at once on two cores, so a test run bundles the entry points it starts most,
// once, with the options `make build` uses, and tests run those bundles: the same source, the form
// production runs.

/** The environment variable that names this run's bundle folder (one per service folder). */
const ENV = 'MDP_TEST_BUNDLES';
const PREFIX = '.test-dist-';
/**
 * Node's compile cache for the run (NODE_COMPILE_CACHE, inherited by every process a test starts): V8's
 * code for the bundles and node_modules, made by the first process that loads a file and read by the
 * rest. A bundled ledger shard's start to ready went from about 620 to 520 ms with it. One folder a
 * run, as the bundles are (Node keys its entries by path and content, so a run's would be stale after it).
 */
const compileCacheOf = (folder: string) => join(ROOT, 'node_modules', '.cache', folder);

/**
 * The entry points bundled for a test run: every service's server and the command-line tools the tests
 * run. Not filings-reader's tool: it starts worker threads from a TypeScript file.
 */
const ENTRIES = [
  ...SERVICES.map((name) => `services/${name}/src/server.ts`),
  'services/auth/src/cli.ts',
  'services/equities-data/src/cli.ts',
  'services/options-analytics/src/cli.ts',
  'services/quota-ledger/src/cli.ts',
  'services/data-import/src/cli.ts',
];

/** `services/auth/src/cli.ts` -> `services/auth/<folder>/cli.js`: one level below the service, as
 * `make build`'s dist/, so `new URL('../migrations/', import.meta.url)` still resolves. */
const bundleOf = (entry: string, folder: string): string => {
  const path = resolve(ROOT, entry);
  return join(dirname(dirname(path)), folder, `${basename(path, '.ts')}.js`);
};

/**
 * The node arguments that run `entry` (absolute, or from the repository root): this run's bundle of it when
 * the test run made one, else the TypeScript source through tsx (a single file run outside vitest,
 * the benches).
 */
export function nodeArgsFor(entry: string): string[] {
  const folder = process.env[ENV];
  if (folder) {
    const bundle = bundleOf(entry, folder);
    if (existsSync(bundle)) return [relative(process.cwd(), bundle)];
  }
  return ['--import', 'tsx', entry];
}

/** Removes the bundle folders of runs whose process is gone (a run killed before its teardown). */
function removeStale(): void {
  for (const name of readdirSync(join(ROOT, 'services'))) {
    const dir = join(ROOT, 'services', name);
    for (const entry of existsSync(dir) ? readdirSync(dir) : []) {
      if (!entry.startsWith(PREFIX)) continue;
      const pid = Number(entry.slice(PREFIX.length));
      if (Number.isInteger(pid) && pid > 0 && alive(pid)) continue;
      rmSync(join(dir, entry), { recursive: true, force: true });
    }
  }
  const caches = join(ROOT, 'node_modules', '.cache');
  for (const entry of existsSync(caches) ? readdirSync(caches) : []) {
    const pid = Number(entry.slice(PREFIX.length));
    if (entry.startsWith(PREFIX) && !(Number.isInteger(pid) && pid > 0 && alive(pid)))
      rmSync(join(caches, entry), { recursive: true, force: true });
  }
}

/**
 * Vitest global setup (int and platform projects): bundles ENTRIES into a folder of this run's own,
 * so a `make build` or another vitest run beside it never replaces a file a test is starting, and
 * removes it when the run ends. Once per run, whichever project asks first.
 */
export default async function setup(): Promise<(() => void) | undefined> {
  if (process.env[ENV]) return undefined;
  removeStale();
  const folder = `${PREFIX}${process.pid}`;
  const started = performance.now();
  await Promise.all(ENTRIES.map((entry) => bundleEntry(join(ROOT, entry), bundleOf(entry, folder))));
  process.env[ENV] = folder;
  process.env.NODE_COMPILE_CACHE ??= compileCacheOf(folder);
  console.log(
    `test bundles: ${ENTRIES.length} entry points in ${Math.round(performance.now() - started)} ms (services/*/${folder})`,
  );
  return () => {
    for (const name of readdirSync(join(ROOT, 'services')))
      rmSync(join(ROOT, 'services', name, folder), { recursive: true, force: true });
    rmSync(compileCacheOf(folder), { recursive: true, force: true });
  };
}
