import { existsSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { dirname, join } from 'node:path';
import { type BuildOptions, type BuildResult, build, type Plugin } from 'esbuild';
import { ROOT, rel } from './services.ts';

// ESM output has no `require`; a CommonJS-style call left in bundled code (esbuild's `__require`
// shim) then finds this one instead of throwing "Dynamic require of ... is not supported".
const BANNER = [
  "import { createRequire as __mdpCreateRequire } from 'node:module';",
  'const require = __mdpCreateRequire(import.meta.url);',
].join('\n');

/** How every Node entry point of the project is bundled (services, and the tools in the images). */
export const NODE_BUNDLE_OPTIONS = {
  absWorkingDir: ROOT,
  platform: 'node',
  format: 'esm',
  target: 'node24',
  bundle: true,
  sourcemap: true,
  // Class and function names survive bundling, so logged errors keep their `type`.
  keepNames: true,
  banner: { js: BANNER },
  logLevel: 'warning',
} satisfies BuildOptions;

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

/**
 * Bundles one Node entry point of the project to `outfile` (a `.js` file in a folder of its own, beside
 * which its source map goes): a service's, a test's or a bench's server, all the same way.
 */
export function bundleEntry(entry: string, outfile: string): Promise<BuildResult> {
  return build({
    entryPoints: [entry],
    outfile,
    ...NODE_BUNDLE_OPTIONS,
    plugins: [externalsExceptWorkspace(dirname(outfile))],
  });
}
