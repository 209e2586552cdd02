import { DocumentRejected, tidyPageText } from './pdf-text.ts';

/** Length in Unicode code points, the unit Postgres `substr` counts in for UTF-8 text. */
function codePoints(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    // A high surrogate followed by a low one is one code point.
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

const pageMarker = (n: number) => `<!-- page ${n} -->`;

/**
 * The stored Markdown: every page opens with its `<!-- page N -->` marker. `offsets[i]` is where page
 * i+1 starts (in code points) and `offsets[pageCount]` is the total length, so pages a..b are the
 * substring offsets[a-1] .. offsets[b], read without re-splitting.
 */
export function layoutMarkdown(pages: string[]): { markdown: string; offsets: number[] } {
  const parts: string[] = [];
  const offsets: number[] = [0];
  let at = 0;
  pages.forEach((text, i) => {
    const chunk = `${pageMarker(i + 1)}\n\n${text}${text ? '\n\n' : '\n'}`;
    parts.push(chunk);
    at += codePoints(chunk);
    offsets.push(at);
  });
  return { markdown: parts.join(''), offsets };
}

const PAGE_HEADING = /^(?:#{1,6}\s*page\s+(\d+)\s*|<!--\s*page\s+(\d+)\s*-->)\s*$/gim;

/**
 * Pages of an already-extracted Markdown filing, split where `### Page N` headings (OCR export style) or
 * `<!-- page N -->` markers stand; a text with neither is one page. Text before the first marker joins page 1.
 */
export function splitMarkdownPages(md: string): string[] {
  const text = md.replace(/^\ufeff/, '');
  const cuts: number[] = [];
  for (const m of text.matchAll(PAGE_HEADING)) cuts.push(m.index);
  if (cuts.length === 0) {
    const one = tidyMarkdown(text);
    if (!one) throw new DocumentRejected('empty', 'the Markdown file is empty');
    return [one];
  }
  const pages: string[] = [];
  for (let i = 0; i < cuts.length; i++) {
    const start = i === 0 ? 0 : (cuts[i] as number);
    const body = text.slice(start, cuts[i + 1] ?? text.length).replace(PAGE_HEADING, '');
    pages.push(tidyMarkdown(body));
  }
  if (pages.every((p) => !p)) throw new DocumentRejected('empty', 'the Markdown file has no text');
  return pages;
}

/** Markdown keeps its line structure (tables, headings); only what would break page addressing goes. */
function tidyMarkdown(s: string): string {
  return tidyPageText(s.replace(/&gt;/g, '>').replace(/&lt;/g, '<').replace(/&amp;/g, '&'));
}
