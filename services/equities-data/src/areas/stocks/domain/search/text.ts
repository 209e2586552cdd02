/** Text normalisation and edit distance for stock search. */

const LEGAL_WORDS = new Set(['limited', 'ltd', 'the', 'co', 'pvt', 'private', 'corpn', 'inc', 'plc']);
const AMPERSAND = /&/g;

/** Lower case, `&` as "and", anything but letters and digits as one space. */
export function normalize(text: string): string {
  return text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(AMPERSAND, ' and ')
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
}

export function tokens(text: string): string[] {
  const n = normalize(text);
  return n === '' ? [] : n.split(' ');
}

/** A company name as people type it: without "Limited", "Ltd", a leading "The" and the like. */
export function coreName(text: string): string {
  return tokens(text)
    .filter((w) => !LEGAL_WORDS.has(w))
    .join(' ');
}

/** Letters and digits only, for matching across spacing ("hdfcbank", "bajaj auto" → "bajajauto"). */
export function compact(text: string): string {
  return normalize(text).replace(/ /g, '');
}

/**
 * Optimal-string-alignment distance (Levenshtein plus adjacent transpositions), giving up as soon as
 * it must exceed `max`. Returns max + 1 for "too far".
 */
export function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  const n = b.length;
  let prevPrev = new Array<number>(n + 1).fill(0);
  let prev = Array.from({ length: n + 1 }, (_, j) => j);
  let cur = new Array<number>(n + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    let rowMin = i;
    for (let j = 1; j <= n; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      let v = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        v = Math.min(v, prevPrev[j - 2]! + 1);
      cur[j] = v;
      if (v < rowMin) rowMin = v;
    }
    if (rowMin > max) return max + 1;
    [prevPrev, prev, cur] = [prev, cur, prevPrev];
  }
  return prev[n]!;
}

/** Every string made by deleting one character (the symmetric-delete candidate keys). */
export function deletes1(word: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < word.length; i++) out.push(word.slice(0, i) + word.slice(i + 1));
  return out;
}

/** Typos tolerated for a query word of this length: none below 4 characters, 1 up to 7, then 2. */
export function typoBudget(length: number): number {
  return length < 4 ? 0 : length <= 7 ? 1 : 2;
}
