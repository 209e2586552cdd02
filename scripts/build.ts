/**
 * Bundles each service's `src/server.ts` into `services/<svc>/dist/server.js`, runnable with plain
 * `node`. Workspace packages (`@mdp/*`) publish TypeScript source, so they are bundled in; every other
 * package stays an `import` resolved from node_modules at run time.
 *
 *   npx tsx scripts/build.ts                 all services
 *   npx tsx scripts/build.ts auth gateway    just these
 */
import { rmSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { bundleEntry } from './lib/bundle-options.ts';
import { bundleFile, entryFile, hasEntry, rel, SERVICES, type ServiceName } from './lib/services.ts';

async function buildService(name: ServiceName): Promise<void> {
  const outfile = bundleFile(name);
  const outDir = dirname(outfile);
  const started = performance.now();
  rmSync(outDir, { recursive: true, force: true });
  await bundleEntry(entryFile(name), outfile);
  const kb = (statSync(outfile).size / 1024).toFixed(0);
  const ms = (performance.now() - started).toFixed(0);
  console.log(`build: ${name.padEnd(17)} -> ${rel(outfile)} (${kb} kB, ${ms} ms)`);
}

async function main(): Promise<void> {
  const requested = process.argv.slice(2);
  for (const name of requested) {
    if (!SERVICES.includes(name as ServiceName)) {
      console.error(`build: unknown service "${name}"; known: ${SERVICES.join(', ')}`);
      process.exit(2);
    }
  }
  const names = requested.length > 0 ? (requested as ServiceName[]) : [...SERVICES];
  const missing = names.filter((name) => !hasEntry(name));
  if (missing.length > 0) {
    console.error(`build: no entry point ${missing.map((name) => rel(entryFile(name))).join(', ')}`);
    process.exit(1);
  }
  const results = await Promise.allSettled(names.map(buildService));
  const failed = results.filter((r) => r.status === 'rejected').length;
  if (failed > 0) {
    // esbuild has already printed each error with its file and line.
    console.error(`build: ${failed} service(s) failed to build`);
    process.exit(1);
  }
}

await main();
