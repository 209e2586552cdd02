/** A figure read from the text, with its unit as printed (converted only from Indian digit grouping). */
export interface KeyMetric {
  /** Canonical name: revenue, ebitda, ebitda_margin, profit, revenue_growth, pbit_margin_change_bps, ... */
  metric: string;
  /** The words that named it in the text, e.g. "Consolidated Revenues". */
  label: string;
  value: number;
  unit: 'crore' | 'lakh' | 'million' | 'billion' | '%' | 'bps' | 'currency';
  currency?: 'INR' | 'USD';
  page: number;
  /** The clause it was read from, shortened. */
  context: string;
}

// Longer phrases first so "EBITDA margin" wins over "EBITDA" and "order book" over "order".
const KEYWORDS: [RegExp, string][] = [
  [/\bebitda margins?\b/i, 'ebitda_margin'],
  [/\b(?:pbit|ebit) margins?\b/i, 'pbit_margin'],
  [/\b(?:pat|net profit|net) margins?\b/i, 'pat_margin'],
  [/\b(?:operating|gross) margins?\b/i, 'operating_margin'],
  [/\bmarket share\b/i, 'market_share'],
  [/\border inflows?\b|\borders? (?:received|worth|valued|secured)\b|\bsecured orders?\b/i, 'order_inflow'],
  [/\border ?book\b/i, 'order_book'],
  [/\bebitda\b/i, 'ebitda'],
  [/\bp?bit\b/i, 'ebit'],
  [/\bprofit before tax\b|\bpbt\b/i, 'pbt'],
  [/\bprofit after tax\b|\bpat\b|\bnet profit\b|\bnet income\b|\bprofits?\b/i, 'profit'],
  [
    /\brevenues?\b|\bincome from operations\b|\btotal income\b|\bturnover\b|\btop ?line\b|\bsales\b/i,
    'revenue',
  ],
  [/\bearnings per share\b|\beps\b/i, 'eps'],
  [/\bdividend\b/i, 'dividend'],
  [/\bro[c]?e\b|\breturn on (?:capital employed|equity)\b/i, 'roe'],
  [/\bcapex\b|\bcapital expenditure\b/i, 'capex'],
  [/\bnet debt\b|\bborrowings\b/i, 'net_debt'],
];
const ROE_SPLIT = /\broce\b|\breturn on capital employed\b/i;
const PERCENT_METRICS = new Set([
  'ebitda_margin',
  'pbit_margin',
  'pat_margin',
  'operating_margin',
  'market_share',
  'roe',
]);

const NUMBER =
  /(?<cur>₹|\bRs\.?|\bINR\b|\bUSD\b|US\$|\$)?\s*(?<num>-?\d{1,3}(?:,\d{2,3})+(?:\.\d+)?|-?\d+(?:\.\d+)?)\s*(?<unit>crores?\b|cr\b\.?|lakhs?\b|lacs?\b|%|bps\b|basis points\b|mn\b|million\b|bn\b|billion\b)?/gi;
const UP =
  /\b(?:growth|grew|grow(?:ing|s)?|up|increase[ds]?|rose|rise|higher|improved|expanded|gain(?:ed)?|jump(?:ed)?|surged?|climbed|doubled)\b/i;
const DOWN = /\b(?:de-?growth|down|decline[ds]?|decreased?|fell|lower|drop(?:ped)?|contracted)\b/i;
// A year, a date or a clause number is not a metric even if a keyword stands near it.
const LOOKBACK = 170;

function unitOf(raw: string | undefined): KeyMetric['unit'] | undefined {
  if (!raw) return undefined;
  const u = raw.toLowerCase().replace(/\.$/, '');
  if (u.startsWith('cr')) return 'crore';
  if (u.startsWith('lakh') || u.startsWith('lac')) return 'lakh';
  if (u === '%') return '%';
  if (u === 'bps' || u.startsWith('basis')) return 'bps';
  if (u === 'mn' || u === 'million') return 'million';
  return 'billion';
}

function currencyOf(raw: string | undefined): KeyMetric['currency'] | undefined {
  if (!raw) return undefined;
  return /usd|\$/i.test(raw) ? 'USD' : 'INR';
}

interface Hit {
  metric: string;
  start: number;
  end: number;
}

// Compiled once: most clauses name no metric at all, and one test of the union tells.
const KEYWORDS_GLOBAL: [RegExp, string][] = KEYWORDS.map(([re, metric]) => [
  new RegExp(re.source, 'gi'),
  metric,
]);
const ANY_KEYWORD = new RegExp(KEYWORDS.map(([re]) => re.source).join('|'), 'i');

function keywordHits(clause: string): Hit[] {
  const hits: Hit[] = [];
  if (!ANY_KEYWORD.test(clause)) return hits;
  for (const [g, metric] of KEYWORDS_GLOBAL) {
    g.lastIndex = 0;
    for (let m = g.exec(clause); m; m = g.exec(clause)) {
      const start = m.index;
      const end = start + m[0].length;
      // A shorter keyword inside a longer one already found ("EBITDA" in "EBITDA margin") is not a hit.
      if (hits.some((h) => start >= h.start && end <= h.end)) continue;
      hits.push({ metric: metric === 'roe' && ROE_SPLIT.test(m[0]) ? 'roce' : metric, start, end });
    }
  }
  return hits.sort((a, b) => a.start - b.start);
}

function labelFor(clause: string, hit: Hit): string {
  const before = clause
    .slice(Math.max(0, hit.start - 40), hit.start)
    .split(/\s+/)
    .filter(Boolean);
  const qualifiers = before
    .slice(-3)
    .filter((w) =>
      /^(?:consolidated|standalone|international|domestic|segment|export|total|net|gross|q[1-4]|h[12]|9m|fy\d{2,4}|\w+['’]s)$/i.test(
        w.replace(/[,:]$/, ''),
      ),
    );
  return [...qualifiers.map((w) => w.replace(/[,:]$/, '')), clause.slice(hit.start, hit.end)].join(' ');
}

function shorten(s: string, max = 220): string {
  return s.length <= max ? s : `${s.slice(0, max - 1)}…`;
}

// A full stop ends a sentence unless it closes a common abbreviation (Rs., Mr., Ltd., cr., i.e.). The
// cheap look-behind (a stop, ? or !) comes first so the abbreviation list is tried only after one.
const SENTENCE_BREAK =
  /;\s+|(?<=[A-Za-z0-9%)'’”]\.|[?!])(?<!\b(?:Rs|Mr|Mrs|Ms|Dr|No|Nos|Ltd|Co|Pvt|Inc|vs|St|cr|Cr|approx|viz|i\.e|e\.g|Rs\.\s?\d+))\s+(?=[A-Z“"(₹])/;

/** Clauses a figure belongs to: sentences, bullet lines and the parts of a line split by semicolons. */
export function clausesOf(pageText: string): string[] {
  return pageText
    .split('\n')
    .filter((l) => !l.trimStart().startsWith('|'))
    .join('\n')
    .split(/\n(?=\s*(?:[-*•]|\d+\.)\s)|\n{2,}/)
    .map((p) => p.replace(/\s*\n\s*/g, ' ').trim())
    .flatMap((p) => p.split(SENTENCE_BREAK))
    .map((c) => c.trim())
    .filter((c) => c.length > 0 && !c.startsWith('|'));
}

/**
 * Figures with their units from prose: a number counts only when it carries a unit (crore, lakh, %, bps,
 * million, billion) or a currency, and a metric keyword precedes it in the same clause. Percentages after a
 * growth word become `<metric>_growth` (negative after "down", "de-growth"); bps become `<metric>_change_bps`.
 */
export function extractMetrics(pages: string[], limit = 60): KeyMetric[] {
  const out: KeyMetric[] = [];
  const seen = new Set<string>();
  pages.forEach((text, i) => {
    for (const clause of clausesOf(text)) {
      const hits = keywordHits(clause);
      if (hits.length === 0) continue;
      for (const m of clause.matchAll(NUMBER)) {
        const g = m.groups ?? {};
        const unit = unitOf(g.unit);
        const currency = currencyOf(g.cur);
        if (!unit && !currency) continue;
        const numStart = m.index + m[0].indexOf(g.num as string);
        const hit = [...hits].reverse().find((h) => h.end <= numStart && numStart - h.end <= LOOKBACK);
        if (!hit) continue;
        const between = clause.slice(hit.end, numStart);
        // Another figure's own keyword sits between: this number is about something else.
        let value = Number((g.num as string).replace(/,/g, ''));
        if (!Number.isFinite(value)) continue;
        let metric: string;
        const money =
          unit === 'crore' ||
          unit === 'lakh' ||
          unit === 'million' ||
          unit === 'billion' ||
          (!unit && currency);
        if (unit === '%' || unit === 'bps') {
          const tail = between.slice(-60);
          const down = DOWN.test(tail) && !/\bup\b/i.test(tail.slice(tail.search(DOWN)));
          const grows = UP.test(tail) || down;
          if (unit === 'bps') {
            metric = `${hit.metric}_change_bps`;
            if (down) value = -Math.abs(value);
          } else if (grows && !/\b(?:at|to|was|is|of about)\s*$/i.test(between)) {
            metric = `${hit.metric}_growth`;
            if (down) value = -Math.abs(value);
          } else if (PERCENT_METRICS.has(hit.metric)) {
            metric = hit.metric;
          } else continue;
        } else if (money) {
          if (PERCENT_METRICS.has(hit.metric)) continue;
          metric = hit.metric;
        } else continue;
        const key = `${metric}|${value}|${unit ?? ''}|${i}`;
        if (seen.has(key)) continue;
        seen.add(key);
        out.push({
          metric,
          label: labelFor(clause, hit),
          value,
          unit: unit ?? 'currency',
          ...(currency
            ? { currency }
            : unit === 'crore' || unit === 'lakh'
              ? { currency: 'INR' as const }
              : {}),
          page: i + 1,
          context: shorten(clause),
        });
        if (out.length >= limit) return;
      }
    }
  });
  return out.slice(0, limit);
}

/** The first figure of each kind, the "headline" of a call or filing. */
export function headlineMetrics(metrics: KeyMetric[], max = 10): KeyMetric[] {
  const byName = new Map<string, KeyMetric>();
  for (const m of metrics) if (!byName.has(m.metric)) byName.set(m.metric, m);
  return [...byName.values()].slice(0, max);
}
