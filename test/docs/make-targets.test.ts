import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DOC_PAGES } from './examples.ts';

// `make help` lists every target with a `## ` comment; the README or a page of docs/ must document each.
describe('the README and its pages document every make target', () => {
  const targets = [...readFileSync('Makefile', 'utf8').matchAll(/^([a-zA-Z_-]+):.*## /gm)].map((m) => m[1]!);
  const readme = DOC_PAGES.map((page) => readFileSync(page, 'utf8')).join('\n');

  it('finds the targets', () => {
    expect(targets).toContain('run');
    expect(targets).toContain('test');
  });

  it.each(targets)('make %s', (target) => {
    expect(readme).toMatch(new RegExp(`\`make ${target}[\` ]`));
  });
});
