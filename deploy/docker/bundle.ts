/**
 * The image's extra entry points, bundled beside `dist/server.js` (which `scripts/build.ts` makes) the
 * same way: `@mdp/*` bundled in, every npm package left to `node_modules`.
 *
 *   dist/migrate.js   applies the service's migrations and exits (the chart's pre-upgrade Job)
 *   dist/cli.js       the service's admin tool, when it has one (`src/cli.ts`)
 *
 *   npx tsx deploy/docker/bundle.ts <service> [--outdir <dir>]     (default services/<service>/dist)
 */
import { existsSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { join, resolve } from 'node:path';
import { DEFAULT_PORTS, type ServiceName } from '@mdp/config';
import { build, type Plugin } from 'esbuild';
import { NODE_BUNDLE_OPTIONS } from '../../scripts/lib/bundle-options.ts';
import { ROOT } from '../../scripts/lib/services.ts';

const workspaceOnly: Plugin = {
  name: 'bundle-workspace-only',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) =>
      args.path.startsWith('@mdp/')
        ? undefined
        : { path: args.path, external: true, sideEffects: !isBuiltin(args.path) },
    );
  },
};

/** The entry points bundled for `service`, as [source, output file name]. */
export function extraEntries(service: ServiceName): [string, string][] {
  const entries: [string, string][] = [];
  // Every gRPC service owns a schema; the gateway has no database.
  if ('grpc' in DEFAULT_PORTS[service])
    entries.push([join(ROOT, 'deploy', 'docker', 'migrate.ts'), 'migrate.js']);
  const cli = join(ROOT, 'services', service, 'src', 'cli.ts');
  if (existsSync(cli)) entries.push([cli, 'cli.js']);
  return entries;
}

export async function bundleExtras(service: ServiceName, outdir: string): Promise<string[]> {
  const written: string[] = [];
  for (const [entry, name] of extraEntries(service)) {
    const outfile = join(outdir, name);
    await build({
      entryPoints: [entry],
      outfile,
      ...NODE_BUNDLE_OPTIONS,
      plugins: [workspaceOnly],
    });
    written.push(outfile);
  }
  return written;
}

async function main(argv: string[]): Promise<void> {
  const [service, flag, dir] = argv as [ServiceName | undefined, string?, string?];
  if (!service || !(service in DEFAULT_PORTS) || (flag && flag !== '--outdir')) {
    console.error('usage: bundle.ts <service> [--outdir <dir>]');
    process.exit(2);
  }
  const outdir = dir ? resolve(dir) : join(ROOT, 'services', service, 'dist');
  for (const file of await bundleExtras(service, outdir)) console.log(`bundle: ${service} -> ${file}`);
}

if (import.meta.url === `file://${process.argv[1]}`) await main(process.argv.slice(2));
