import { clausesOf, extractMetrics, headlineMetrics, type KeyMetric } from './metrics.ts';

export const SUMMARY_CAP = 6_000;

/** What ingest stores with a document and the summary route serves. */
export interface Digest {
  summary: string;
  truncated: boolean;
  highlights: string[];
  risks: string[];
  guidance: string[];
  key_metrics: KeyMetric[];
  headline_metrics: KeyMetric[];
  method: string;
}

/** Where a digest comes from; the default is extractive and needs no model. A model-backed one may replace it. */
export interface Digester {
  readonly name: string;
  digest(pages: string[]): Promise<Digest> | Digest;
}

const STOP = new Set(
  `a an the and or but of to in on at for by with from as is are was were be been being it its this that these
  those we our us you your they their them he she his her i me my not no so if than then there here which who
  whom what when where how all any each also very just can could would should will shall may might must do does
  did have has had having about into over under up down out more most some such only other same own too again
  further once per vs etc sir madam thank thanks yes okay ok like one two three well really think know see`.split(
    /\s+/,
  ),
);

const BOILERPLATE =
  /\bmy (?:next |last |first )?question\b|listen-only|as a reminder|safe harbo|forward[- ]looking statements?|actual results (?:may|could|might) differ|undertakes? no obligation|disclaimer|transcript has been|edited for|moderator:|ladies and gentlemen|line is (?:now )?(?:open|in)|next question|press star|please go ahead|thank you (?:very much|sir|all)|registered office|\bcin\b|e-?mail|website|regulation 30|dear sir|yours faithfully|kindly take/i;
const HIGHLIGHT =
  /\b(?:record|highest|all[- ]time|growth|grew|increased?|improved|robust|strong|healthy|up \d|expanded|commissioned|launched|won|added|milestone|best[- ]ever|outperform|gained)\b/i;
const RISK =
  /\b(?:risks?|challeng\w*|headwinds?|pressure|declin\w*|slowdown|slow(?:er)?|uncertain\w*|volatil\w*|weak\w*|subdued|de-?growth|impairment|penalt\w*|litigation|dumping|imports?|inflation\w*|competition|competitive|delay\w*|shortage|disruption|lower|loss(?:es)?|muted|softness|adverse|concern\w*|geopolitic\w*|tariffs?|monsoon)\b/i;
const GUIDANCE =
  /\b(?:expect(?:s|ing|ations?)?\b|guidance|guiding|outlook|target\w*|going forward|plan(?:s|ned|ning)? to|aim\w*|anticipat\w*|intend\w*|will be|we will|should be|likely to|next (?:year|quarter|financial year)|in the coming|pipeline|by (?:fy|20)\d{2}|fy ?2[5-9]|fy ?3\d|medium[- ]term|long[- ]term target|remain confident|on track)\b/i;
const HAS_FIGURE = /\d/;

/**
 * Lines that repeat on many pages (running headers and footers: company name, date, "Page 3 of 16") say
 * nothing about the content; they are left out of the digest, never out of the stored text.
 */
function withoutRunningLines(pages: string[]): string[] {
  const norm = (l: string) => l.trim().toLowerCase().replace(/\d+/g, '#');
  const count = new Map<string, number>();
  for (const p of pages)
    for (const l of new Set(p.split('\n').map(norm))) count.set(l, (count.get(l) ?? 0) + 1);
  const limit = Math.max(3, Math.ceil(pages.length * 0.4));
  return pages.map((p) =>
    p
      .split('\n')
      .filter((l) => {
        const n = norm(l);
        return n !== '' && (count.get(n) ?? 0) < limit && !/^page #+( of #+)?$/.test(n);
      })
      .join('\n'),
  );
}

const SPEAKER = /^(?:[A-Z][\w.’'-]*\s){0,4}[A-Z][\w.’'-]*:\s+/;

function sentencesOf(pages: string[]): { text: string; page: number; pos: number }[] {
  const out: { text: string; page: number; pos: number }[] = [];
  withoutRunningLines(pages).forEach((page, i) => {
    for (const clause of clausesOf(page)) {
      const text = clause
        .replace(/^[-*•]\s+/, '')
        .replace(/^#+\s*/, '')
        .replace(SPEAKER, '');
      if (/\?$/.test(text)) continue;
      if (text.length < 40 || text.length > 600) continue;
      if (!/[a-z]{3}/.test(text) || (text.match(/\d/g)?.length ?? 0) > text.length / 3) continue;
      out.push({ text, page: i + 1, pos: out.length });
    }
  });
  return out;
}

function words(s: string): string[] {
  return s
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 2 && !STOP.has(w) && !/^\d+$/.test(w));
}

function ending(s: string): string {
  return /[.!?…]$/.test(s) ? s : `${s}.`;
}

/**
 * Deterministic extractive digest: sentences are ranked by the document-wide frequency of their content
 * words (a TF-centroid score normalised by length), with a bonus for figures and metric words; boilerplate
 * (disclaimers, operator lines, letterhead) is never picked. Ties go to the earlier sentence.
 */
export function extractiveDigest(pages: string[]): Digest {
  const sentences = sentencesOf(pages).filter((s) => !BOILERPLATE.test(s.text));
  // Each sentence's content words, split once: the frequencies, the score and the dedupe all use them.
  const wordsOf = sentences.map((s) => words(s.text));
  const tf = new Map<string, number>();
  for (const ws of wordsOf) for (const w of new Set(ws)) tf.set(w, (tf.get(w) ?? 0) + 1);
  const scored = sentences.map((s, i) => {
    const ws = wordsOf[i]!;
    const base = ws.reduce((acc, w) => acc + Math.log(1 + (tf.get(w) ?? 0)), 0) / Math.sqrt(ws.length + 4);
    const figure = HAS_FIGURE.test(s.text) ? 0.6 : 0;
    const metric = /revenue|ebitda|margin|profit|pat\b|growth|order|volume|guidance|outlook/i.test(s.text)
      ? 0.6
      : 0;
    return { ...s, words: ws, score: base + figure + metric };
  });
  // Near-repeats (same words, other figures) add nothing: a sentence whose content words overlap an
  // already kept one by half or more (Jaccard) is dropped.
  const dedupe = (list: typeof scored) => {
    const kept: Set<string>[] = [];
    return list.filter((s) => {
      const ws = new Set(s.words);
      for (const k of kept) {
        let common = 0;
        for (const w of ws) if (k.has(w)) common++;
        if (common / Math.max(1, ws.size + k.size - common) >= 0.5) return false;
      }
      kept.push(ws);
      return true;
    });
  };

  const ranked = dedupe([...scored].sort((a, b) => b.score - a.score || a.pos - b.pos));
  const pick = (re: RegExp, n: number, needFigure = false) =>
    ranked
      .filter((s) => re.test(s.text) && (!needFigure || HAS_FIGURE.test(s.text)))
      .slice(0, n)
      .sort((a, b) => a.pos - b.pos)
      .map((s) => ending(s.text));

  const wanted = Math.min(25, Math.max(5, Math.ceil(sentences.length * 0.1)));
  const chosen = ranked.slice(0, wanted).sort((a, b) => a.pos - b.pos);
  let summary = '';
  let truncated = false;
  for (const s of chosen) {
    const next = summary ? `${summary} ${ending(s.text)}` : ending(s.text);
    if (next.length > SUMMARY_CAP) {
      truncated = true;
      break;
    }
    summary = next;
  }
  if (!summary && chosen[0]) {
    summary = chosen[0].text.slice(0, SUMMARY_CAP);
    truncated = chosen[0].text.length > SUMMARY_CAP;
  }
  const keyMetrics = extractMetrics(pages);
  return {
    summary,
    truncated,
    highlights: pick(HIGHLIGHT, 8, true),
    risks: pick(RISK, 8),
    guidance: pick(GUIDANCE, 8),
    key_metrics: keyMetrics,
    headline_metrics: headlineMetrics(keyMetrics),
    method: 'extractive-v1',
  };
}

export const extractiveDigester: Digester = { name: 'extractive-v1', digest: extractiveDigest };
