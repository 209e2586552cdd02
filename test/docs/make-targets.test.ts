import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// `make help` lists every target with a `## ` comment; the README must document each of them.
describe('the README documents every make target', () => {
  const targets = [...readFileSync('Makefile', 'utf8').matchAll(/^([a-zA-Z_-]+):.*## /gm)].map((m) => m[1]!);
  const readme = readFileSync('README.md', 'utf8');

  it('finds the targets', () => {
    expect(targets).toContain('run');
    expect(targets).toContain('test');
  });

  it.each(targets)('make %s', (target) => {
    expect(readme).toMatch(new RegExp(`\`make ${target}[\` ]`));
  });
});
