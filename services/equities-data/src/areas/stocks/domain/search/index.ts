import { compact, coreName, deletes1, editDistance, normalize, tokens, typoBudget } from './text.ts';

/**
 * In-memory stock search, built once when the dataset loads (SPEC 4.5 rules 1-2).
 *
 * Documents are given in rank order — listed before delisted, then larger before smaller — and are
 * addressed by that position, so every posting list is already sorted by rank and "larger companies
 * first within a tier" is plain ascending order. A query assigns each matching document its best tier:
 *
 *   0 exact symbol, BSE code, BSE scrip id or ISIN
 *   1 exact name, brand, former name or former symbol
 *   2 prefix of a name, alias, symbol or code
 *   3 every query word starts a word of the name or an alias, in any order
 *   4 contained anywhere (ignoring spaces and punctuation)
 *   5 within a typo or two (queries of 4+ characters): each query word close to a word of the name
 *
 * Results: listed documents by tier then rank, then delisted ones the same way.
 */
export interface SearchDoc {
  listed: boolean;
  /** Symbol, NSE symbol, BSE code, BSE scrip id, ISIN. */
  codes: string[];
  name: string;
  /** Brand names and former names. */
  aliases: string[];
  formerSymbols: string[];
  sector: string | null;
  macroSector: string | null;
  industry: string | null;
  basicIndustry: string | null;
}

export interface SearchQuery {
  q: string;
  sector?: string;
  industry?: string;
  limit: number;
}

export interface SearchResult {
  /** Positions of the documents returned, best first. */
  hits: number[];
  /** Tier of each hit (same order). */
  tiers: number[];
  total: number;
}

export const TIER_NAMES = ['exact_code', 'exact_name', 'prefix', 'word', 'contains', 'typo'] as const;
const TIERS = TIER_NAMES.length;

class SortedKeys {
  keys: string[] = [];
  docs: number[] = [];
  private pending: [string, number][] = [];
  add(key: string, doc: number): void {
    if (key) this.pending.push([key, doc]);
  }
  seal(): void {
    this.pending.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1]));
    this.keys = this.pending.map((p) => p[0]);
    this.docs = this.pending.map((p) => p[1]);
    this.pending = [];
  }
  /** Calls `fn` for each entry whose key starts with `prefix`. */
  withPrefix(prefix: string, fn: (doc: number, key: string) => void): void {
    let lo = 0;
    let hi = this.keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.keys[mid]! < prefix) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < this.keys.length && this.keys[i]!.startsWith(prefix); i++)
      fn(this.docs[i]!, this.keys[i]!);
  }
}

function pushMap<K>(map: Map<K, number[]>, key: K, doc: number): void {
  const list = map.get(key);
  if (!list) map.set(key, [doc]);
  else if (list[list.length - 1] !== doc) list.push(doc);
}

export class SearchIndex {
  readonly size: number;
  private readonly listed: Uint8Array;
  private readonly codeExact = new Map<string, number[]>();
  private readonly nameExact = new Map<string, number[]>();
  private readonly prefixes = new SortedKeys();
  private readonly words = new SortedKeys();
  private readonly compacts: string[][];
  private readonly trigrams = new Map<string, number[]>();
  /** Fuzzy vocabulary: words of names and aliases, compact symbols and name heads. */
  private readonly fuzzyWords: string[] = [];
  private readonly fuzzyDocs: number[][] = [];
  private readonly fuzzyKeys = new Map<string, number[]>();
  private readonly sectorKeys: string[][];
  private readonly industryKeys: string[][];
  // Scratch space reused by every query (the service answers one query at a time per event loop).
  private readonly tierOf: Int8Array;
  private readonly mark: Uint32Array;
  private readonly wordMark: Uint32Array;
  private readonly wordCount: Uint8Array;
  private stamp = 0;
  private readonly shortGrams = new Map<string, number[]>();

  constructor(docs: readonly SearchDoc[]) {
    this.size = docs.length;
    this.listed = new Uint8Array(docs.length);
    this.tierOf = new Int8Array(docs.length);
    this.mark = new Uint32Array(docs.length);
    this.wordMark = new Uint32Array(docs.length);
    this.wordCount = new Uint8Array(docs.length);
    this.compacts = [];
    this.sectorKeys = [];
    this.industryKeys = [];
    const fuzzyIds = new Map<string, number>();
    // Codes and numbers are matched exactly; only words get typo tolerance.
    const addFuzzy = (word: string, doc: number) => {
      if (word.length < 3 || /\d/.test(word)) return;
      let id = fuzzyIds.get(word);
      if (id === undefined) {
        id = this.fuzzyWords.length;
        fuzzyIds.set(word, id);
        this.fuzzyWords.push(word);
        this.fuzzyDocs.push([]);
        for (const key of [word, ...deletes1(word)]) pushMap(this.fuzzyKeys, key, id);
      }
      const list = this.fuzzyDocs[id]!;
      if (list[list.length - 1] !== doc) list.push(doc);
    };

    docs.forEach((d, doc) => {
      this.listed[doc] = d.listed ? 1 : 0;
      for (const code of d.codes) {
        if (!code) continue;
        pushMap(this.codeExact, code.toUpperCase(), doc);
        this.prefixes.add(code.toLowerCase(), doc);
        addFuzzy(compact(code), doc);
      }
      for (const sym of d.formerSymbols) {
        pushMap(this.nameExact, `#${sym.toUpperCase()}`, doc);
        this.prefixes.add(sym.toLowerCase(), doc);
        addFuzzy(compact(sym), doc);
      }
      const texts = [d.name, ...d.aliases];
      const compacts = new Set<string>();
      const seenWords = new Set<string>();
      for (const text of texts) {
        const full = normalize(text);
        const core = coreName(text);
        pushMap(this.nameExact, full, doc);
        if (core && core !== full) pushMap(this.nameExact, core, doc);
        this.prefixes.add(core || full, doc);
        compacts.add(compact(core || full));
        compacts.add(full.replace(/ /g, ''));
        const ws = core.split(' ').filter(Boolean);
        for (const w of ws) {
          if (!seenWords.has(w)) {
            seenWords.add(w);
            this.words.add(w, doc);
          }
          addFuzzy(w, doc);
        }
        // "bajajfinance" for "Bajaj Finance": people drop the space between the first words.
        if (ws.length >= 2) addFuzzy(ws[0]! + ws[1]!, doc);
      }
      for (const code of d.codes.concat(d.formerSymbols)) if (code) compacts.add(compact(code));
      const list = [...compacts].filter(Boolean);
      this.compacts.push(list);
      const grams = new Set<string>();
      for (const c of list) for (let i = 0; i + 3 <= c.length; i++) grams.add(c.slice(i, i + 3));
      for (const g of grams) pushMap(this.trigrams, g, doc);
      const short = new Set<string>();
      for (const c of list) for (let i = 0; i < c.length; i++) short.add(c[i]!).add(c.slice(i, i + 2));
      for (const g of short) pushMap(this.shortGrams, g, doc);
      this.sectorKeys.push([d.sector, d.macroSector].filter((x): x is string => !!x).map(normalize));
      this.industryKeys.push([d.industry, d.basicIndustry].filter((x): x is string => !!x).map(normalize));
    });
    this.prefixes.seal();
    this.words.seal();
  }

  search(query: SearchQuery): SearchResult {
    const raw = query.q.trim();
    const qUpper = raw.toUpperCase();
    const qNorm = normalize(raw);
    const qCore = coreName(raw);
    const qCompact = qNorm.replace(/ /g, '');
    // Words such as "Limited" are not indexed; a query of nothing else still matches by containment.
    const qTokens = tokens(qCore).length > 0 ? tokens(qCore) : tokens(raw);
    const stamp = this.nextStamp();
    const touched: number[] = [];
    const hit = (doc: number, tier: number) => {
      if (this.mark[doc] !== stamp) {
        this.mark[doc] = stamp;
        this.tierOf[doc] = tier;
        touched.push(doc);
      } else if (tier < this.tierOf[doc]!) this.tierOf[doc] = tier;
    };

    for (const doc of this.codeExact.get(qUpper) ?? []) hit(doc, 0);
    for (const key of new Set([qNorm, qCore, `#${qUpper}`]))
      for (const doc of this.nameExact.get(key) ?? []) hit(doc, 1);
    for (const p of new Set([raw.toLowerCase(), qNorm, qCore]))
      if (p) this.prefixes.withPrefix(p, (doc) => hit(doc, 2));
    if (qTokens.length > 0) this.allWordsMatch(qTokens, false, (doc) => hit(doc, 3));
    if (qCompact) this.containing(qCompact, (doc) => hit(doc, 4));
    if (qCompact.length >= 4) {
      this.allWordsMatch(qTokens, true, (doc) => hit(doc, 5));
      for (const doc of this.fuzzy(qCompact)) hit(doc, 5);
    }

    const sector = query.sector === undefined ? undefined : normalize(query.sector);
    const industry = query.industry === undefined ? undefined : normalize(query.industry);
    const buckets: number[][] = Array.from({ length: 2 * TIERS }, () => []);
    let total = 0;
    const place = (doc: number) => {
      if (sector !== undefined && !this.sectorKeys[doc]!.includes(sector)) return;
      if (industry !== undefined && !this.industryKeys[doc]!.includes(industry)) return;
      total++;
      buckets[(this.listed[doc] ? 0 : TIERS) + this.tierOf[doc]!]!.push(doc);
    };
    // Documents are numbered in rank order: a broad query is bucketed by one ordered scan (no sort).
    const ordered = touched.length > this.size / 16;
    if (ordered) {
      for (let doc = 0; doc < this.size; doc++) if (this.mark[doc] === stamp) place(doc);
    } else for (const doc of touched) place(doc);
    const hits: number[] = [];
    const tiers: number[] = [];
    for (let b = 0; b < buckets.length && hits.length < query.limit; b++) {
      const bucket = buckets[b]!;
      if (bucket.length === 0) continue;
      if (!ordered) bucket.sort((x, y) => x - y);
      for (const doc of bucket) {
        if (hits.length >= query.limit) break;
        hits.push(doc);
        tiers.push(b % TIERS);
      }
    }
    return { hits, tiers, total };
  }

  private nextStamp(): number {
    if (this.stamp === 0xffffffff) {
      this.mark.fill(0);
      this.wordMark.fill(0);
      this.stamp = 0;
    }
    return ++this.stamp;
  }

  /**
   * Calls `fn` for documents where every token starts a word (or, with `fuzzy`, is within its typo
   * budget of one). Counts per document how many tokens in a row matched, so no sets are built.
   */
  private allWordsMatch(qTokens: string[], fuzzy: boolean, fn: (doc: number) => void): void {
    const stamp = this.stamp;
    const candidates: number[] = [];
    qTokens.forEach((t, i) => {
      const visit = (doc: number) => {
        if (this.wordMark[doc] !== stamp) {
          if (i === 0) {
            this.wordMark[doc] = stamp;
            this.wordCount[doc] = 1;
            candidates.push(doc);
          }
        } else if (this.wordCount[doc] === i) this.wordCount[doc] = i + 1;
      };
      this.words.withPrefix(t, visit);
      if (fuzzy && !/\d/.test(t)) for (const doc of this.fuzzy(t)) visit(doc);
    });
    const n = Math.min(qTokens.length, 255);
    for (const doc of candidates) if (this.wordCount[doc] === n) fn(doc);
    // The next call (fuzzy pass) must not see this pass's counts.
    for (const doc of candidates) this.wordMark[doc] = 0;
  }

  /** Documents with a vocabulary word within the typo budget of `word` (symmetric-delete lookup). */
  private fuzzy(word: string): number[] {
    const budget = typoBudget(word.length);
    if (budget === 0) return [];
    const ids = new Set<number>();
    for (const key of [word, ...deletes1(word)]) for (const id of this.fuzzyKeys.get(key) ?? []) ids.add(id);
    const docs: number[] = [];
    for (const id of ids) {
      const candidate = this.fuzzyWords[id]!;
      if (editDistance(word, candidate, budget) <= budget) docs.push(...this.fuzzyDocs[id]!);
    }
    return docs;
  }

  private containing(q: string, fn: (doc: number) => void): void {
    if (q.length < 3) {
      for (const doc of this.shortGrams.get(q) ?? []) fn(doc);
      return;
    }
    // The rarest trigram's documents are the candidates; each is then checked in full.
    let best: number[] | undefined;
    for (let i = 0; i + 3 <= q.length; i++) {
      const list = this.trigrams.get(q.slice(i, i + 3));
      if (!list) return;
      if (!best || list.length < best.length) best = list;
    }
    for (const doc of best!) if (this.compacts[doc]!.some((c) => c.includes(q))) fn(doc);
  }
}
