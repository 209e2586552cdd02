import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_PORTS, type ServiceName } from '@mdp/config';

/** The repository root, whatever the current directory. */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Every service process, in start order: the data services first, the public gateway last. */
export const SERVICES: readonly ServiceName[] = [
  'auth',
  'quota-ledger',
  'equities-data',
  'filings-reader',
  'options-analytics',
  'gateway',
] satisfies ServiceName[];

// Keeps the list above honest when a service is added to DEFAULT_PORTS.
for (const name of Object.keys(DEFAULT_PORTS)) {
  if (!SERVICES.includes(name as ServiceName))
    throw new Error(`scripts/lib/services.ts: add "${name}" to SERVICES`);
}

export const serviceDir = (name: ServiceName): string => join(ROOT, 'services', name);
/** The TypeScript entry point `npx tsx` runs and esbuild bundles. */
export const entryFile = (name: ServiceName): string => join(serviceDir(name), 'src', 'server.ts');
/** One folder below the service root, so `new URL('../migrations/', import.meta.url)` still resolves. */
export const bundleFile = (name: ServiceName): string => join(serviceDir(name), 'dist', 'server.js');
export const hasEntry = (name: ServiceName): boolean => existsSync(entryFile(name));

/** Shortens an absolute path under the repository for messages. */
export const rel = (path: string): string => (path.startsWith(ROOT) ? path.slice(ROOT.length) : path);

export { DEFAULT_PORTS, type ServiceName };
