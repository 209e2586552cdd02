/**
 * The image's extra entry points, bundled beside `dist/server.js` (which `scripts/build.ts` makes) the
 * same way: `@mdp/*` bundled in, every npm package left to `node_modules`.
 *
 *   dist/migrate.js   applies the service's migrations and exits (the chart's pre-upgrade Job)
 *   dist/cli.js       the service's admin tool, when it has one (`src/cli.ts`)
 *
 * A job (`JOBS`: a workspace under services/ that is not a service, with no server and no port) has
 * only `dist/cli.js`, its entry point: data-import, the chart's daily CronJob.
 *
 *   npx tsx deploy/docker/bundle.ts <service|job> [--outdir <dir>]     (default services/<name>/dist)
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

/**
 * Images that run a job rather than a service: no server, no port, `dist/cli.js` is the entry point.
 * The Dockerfile copies beside it the migrations of the services whose schemas it writes.
 */
export const JOBS = ['data-import'] as const;
export type JobName = (typeof JOBS)[number];

export const isJob = (name: string): name is JobName => (JOBS as readonly string[]).includes(name);

/** The entry points bundled for a service or a job, as [source, output file name]. */
export function extraEntries(service: ServiceName | JobName): [string, string][] {
  const entries: [string, string][] = [];
  // Every gRPC service owns a schema; the gateway has no database. A job applies what it needs itself.
  if (!isJob(service) && 'grpc' in DEFAULT_PORTS[service])
    entries.push([join(ROOT, 'deploy', 'docker', 'migrate.ts'), 'migrate.js']);
  const cli = join(ROOT, 'services', service, 'src', 'cli.ts');
  if (existsSync(cli)) entries.push([cli, 'cli.js']);
  return entries;
}

export async function bundleExtras(service: ServiceName | JobName, outdir: string): Promise<string[]> {
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
  const [service, flag, dir] = argv as [ServiceName | JobName | undefined, string?, string?];
  if (!service || !(service in DEFAULT_PORTS || isJob(service)) || (flag && flag !== '--outdir')) {
    console.error('usage: bundle.ts <service|job> [--outdir <dir>]');
    process.exit(2);
  }
  const outdir = dir ? resolve(dir) : join(ROOT, 'services', service, 'dist');
  for (const file of await bundleExtras(service, outdir)) console.log(`bundle: ${service} -> ${file}`);
}

if (import.meta.url === `file://${process.argv[1]}`) await main(process.argv.slice(2));
