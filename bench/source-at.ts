// A commit's source beside this tree's, for a bench that runs a gateway of then and of now in one run:
// `paths` of `commit` (git archive) with the commit's own workspace packages, in a folder of the caller's.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../scripts/lib/services.ts';

/**
 * Extracts `paths` of `commit`, its `packages/` and its root package.json into `dir`, and links
 * `dir/node_modules/@mdp/<name>` to each of those packages, so a bundle made there takes the commit's
 * `@mdp/*` sources (a bare import finds the nearest node_modules first) and this tree's installed
 * third-party packages (further up). Returns `dir`.
 */
export function sourceAt(commit: string, paths: readonly string[], dir: string): string {
  mkdirSync(dir, { recursive: true });
  const archive = execFileSync(
    'git',
    ['archive', '--format=tar', commit, ...paths, 'packages', 'package.json'],
    {
      cwd: ROOT,
      maxBuffer: 1 << 28,
    },
  );
  execFileSync('tar', ['-x', '-C', dir], { input: archive });
  const links = join(dir, 'node_modules', '@mdp');
  mkdirSync(links, { recursive: true });
  for (const name of readdirSync(join(dir, 'packages')))
    symlinkSync(join(dir, 'packages', name), join(links, name));
  return dir;
}

/** `commit`'s short name, for tables. */
export function shortCommit(commit: string): string {
  return execFileSync('git', ['rev-parse', '--short', commit], { cwd: ROOT, encoding: 'utf8' }).trim();
}
