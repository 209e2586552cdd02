import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startLoadedStack } from './loaded-stack.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where the loaded platform's description appears once it is up (see client.ts). */
    platformFile: string;
  }
}

/**
 * Vitest global setup of the `platform` project: one loaded platform for all of its test files. It
 * loads while the other projects' files run (a global setup that awaited it held every test back for
 * the two minutes of loading): the platform's description is written to a file when it is up, or the
 * reason it could not start to `<file>.error`, and the platform files wait for either (client.ts).
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dir = mkdtempSync(join(tmpdir(), 'mdp-platform-'));
  const file = join(dir, 'platform.json');
  const started = startLoadedStack().then(
    ({ platform, stop }) => {
      writeFileSync(`${file}.partial`, JSON.stringify(platform));
      renameSync(`${file}.partial`, file);
      return stop;
    },
    (err: unknown) => {
      writeFileSync(`${file}.error`, err instanceof Error ? (err.stack ?? err.message) : String(err));
      return undefined;
    },
  );
  project.provide('platformFile', file);
  return async () => {
    await (await started)?.();
    rmSync(dir, { recursive: true, force: true });
  };
}
