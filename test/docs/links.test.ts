import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import GithubSlugger from 'github-slugger';
import type { Nodes } from 'mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { toString as textOf } from 'mdast-util-to-string';
import { describe, expect, it } from 'vitest';

// The README is a front door to docs/: every relative link and #anchor in them must land somewhere, as
// GitHub renders them (github-slugger is GitHub's own anchor algorithm, repeated headings get -1, -2, …).

/** README.md and every Markdown file under docs/, runbooks included. */
const PAGES = [
  'README.md',
  ...readdirSync('docs', { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => join('docs', f)),
];

function walk(node: Nodes, visit: (n: Nodes) => void): void {
  visit(node);
  if ('children' in node) for (const child of node.children) walk(child, visit);
}

const parsed = new Map<string, { anchors: Set<string>; links: { url: string; line: number }[] }>();
function parse(path: string) {
  let doc = parsed.get(path);
  if (!doc) {
    const slugger = new GithubSlugger();
    doc = { anchors: new Set(), links: [] };
    const { anchors, links } = doc;
    walk(fromMarkdown(readFileSync(path, 'utf8')), (n) => {
      if (n.type === 'heading') anchors.add(slugger.slug(textOf(n)));
      else if (n.type === 'link' || n.type === 'definition')
        links.push({ url: n.url, line: n.position?.start.line ?? 0 });
    });
    parsed.set(path, doc);
  }
  return doc;
}

/** Why a link of `page` does not resolve, or undefined when it does. */
function broken(page: string, url: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(url)) return undefined; // https:, mailto: — not this repository's
  const [file = '', anchor] = url.split('#');
  const target = file ? normalize(join(dirname(page), decodeURI(file))) : page;
  // The public contract (../shared/SPEC.md) sits beside the repository, not in it.
  if (relative('.', target).startsWith('..')) return undefined;
  if (!existsSync(target)) return `${target} does not exist`;
  if (anchor === undefined) return undefined;
  if (!target.endsWith('.md')) return `${target} is not Markdown, so it has no #${anchor}`;
  if (!parse(target).anchors.has(decodeURIComponent(anchor))) return `${target} has no heading #${anchor}`;
  return undefined;
}

// Parsed while the tests are collected, so a loaded machine's parse time counts against no test's timeout.
for (const page of PAGES) parse(page);

describe('links of the README and docs/', () => {
  it('finds the pages and their links', () => {
    expect(PAGES).toEqual(
      expect.arrayContaining(['README.md', 'docs/operators.md', 'docs/runbooks/README.md']),
    );
    expect(parse('README.md').links.length).toBeGreaterThanOrEqual(5);
  });

  it.each(PAGES)('%s: every relative link and #anchor resolves', (page) => {
    const failures = parse(page).links.flatMap(({ url, line }) => {
      const why = broken(page, url);
      return why ? [`${page}:${line} links to ${url}, but ${why}`] : [];
    });
    expect(failures).toEqual([]);
  });

  it('the README leads to every page of docs/', () => {
    const linked = new Set(parse('README.md').links.map(({ url }) => normalize(url.split('#')[0]!)));
    const pages = readdirSync('docs')
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`);
    expect(pages.length).toBeGreaterThanOrEqual(4);
    expect(pages.filter((p) => !linked.has(p))).toEqual([]);
    expect(linked).toContain('docs/runbooks/README.md');
  });

  it('the README stays a front door of a few screens', () => {
    expect(readFileSync('README.md', 'utf8').split('\n').length).toBeLessThanOrEqual(150);
  });
});
