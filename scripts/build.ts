/**
 * Bundles each service's `src/server.ts` into `services/<svc>/dist/server.js`, runnable with plain
 * `node`. Workspace packages (`@mdp/*`) publish TypeScript source, so they are bundled in; every other
 * package stays an `import` resolved from node_modules at run time.
 *
 *   npx tsx scripts/build.ts                 all services
 *   npx tsx scripts/build.ts auth gateway    just these
 */
import { existsSync, rmSync, statSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { dirname, join } from 'node:path';
import { build, type Plugin } from 'esbuild';
import { NODE_BUNDLE_OPTIONS } from './lib/bundle-options.ts';
import { bundleFile, entryFile, hasEntry, rel, SERVICES, type ServiceName } from './lib/services.ts';

/** `pino`, `@grpc/grpc-js/build/x` -> the package name a node_modules folder is named after. */
function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

/** Node's lookup for a bare import: the first `node_modules/<pkg>` walking up from `fromDir`. */
function findPackageDir(pkg: string, fromDir: string): string | undefined {
  for (let dir = fromDir; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', pkg);
    if (existsSync(candidate)) return candidate;
    if (dirname(dir) === dir) return undefined;
  }
}

/**
 * Keeps third-party packages external and bundles `@mdp/*`. Because bundling moves code from
 * `packages/x/src` to `services/y/dist`, it also checks that each external import still finds the
 * same installed copy from the bundle's folder (a non-hoisted dependency would silently change).
 */
function externalsExceptWorkspace(outDir: string): Plugin {
  return {
    name: 'externals-except-workspace',
    setup(b) {
      b.onResolve({ filter: /^[^./]/ }, (args) => {
        if (args.path.startsWith('@mdp/')) return undefined; // default resolution: bundle the TS source
        if (isBuiltin(args.path)) return { path: args.path, external: true };
        const pkg = packageName(args.path);
        const fromSource = findPackageDir(pkg, args.resolveDir);
        const fromBundle = findPackageDir(pkg, outDir);
        if (fromSource !== fromBundle) {
          return {
            errors: [
              {
                text: `"${pkg}" resolves to ${fromSource ? rel(fromSource) : 'nothing'} from ${rel(args.importer)} but to ${
                  fromBundle ? rel(fromBundle) : 'nothing'
                } from ${rel(outDir)}; declare it in the service's package.json or hoist it (npm install)`,
              },
            ],
          };
        }
        return { path: args.path, external: true };
      });
    },
  };
}

async function buildService(name: ServiceName): Promise<void> {
  const outfile = bundleFile(name);
  const outDir = dirname(outfile);
  const started = performance.now();
  rmSync(outDir, { recursive: true, force: true });
  await build({
    entryPoints: [entryFile(name)],
    outfile,
    ...NODE_BUNDLE_OPTIONS,
    plugins: [externalsExceptWorkspace(outDir)],
  });
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
