import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

// The end of the three generators of committed files (`make openapi client python-client` and their
// `-check`s in CI): a drifted or missing file fails the check, naming it, and nothing is written.

const dir = mkdtempSync(join(tmpdir(), 'mdp-generated-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const generator = join(dir, 'generate.ts');
writeFileSync(
  generator,
  `import { writeOrCheck } from ${JSON.stringify(pathToFileURL(join(process.cwd(), 'scripts/lib/generated-files.ts')).href)};
writeOrCheck(new URL('./out/', import.meta.url), [['a.txt', 'A\\n'], ['b.txt', 'B\\n']], {
  stale: (names) => \`out/\${names} out of date: run make gen\`,
  current: 'out matches',
  wrote: 'wrote out',
});
`,
);

function run(...args: string[]) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', generator, ...args], { encoding: 'utf8' });
  return { status: r.status, out: r.stdout.trim(), err: r.stderr.trim() };
}
const read = (name: string) => readFileSync(join(dir, 'out', name), 'utf8');

describe('writeOrCheck', () => {
  it('writes every file, then finds them current; a drifted or missing one fails the check by name', () => {
    mkdirSync(join(dir, 'out'));
    expect(run('--check')).toMatchObject({ status: 1, err: 'out/a.txt, b.txt out of date: run make gen' });
    expect(run()).toMatchObject({ status: 0, out: 'wrote out' });
    expect([read('a.txt'), read('b.txt')]).toEqual(['A\n', 'B\n']);
    expect(run('--check')).toMatchObject({ status: 0, out: 'out matches' });

    writeFileSync(join(dir, 'out', 'b.txt'), 'edited by hand\n');
    expect(run('--check')).toMatchObject({ status: 1, err: 'out/b.txt out of date: run make gen' });
    // The check writes nothing: the drifted file stays as it was.
    expect(read('b.txt')).toBe('edited by hand\n');
  });
});
