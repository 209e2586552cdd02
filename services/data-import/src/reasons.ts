// Rejection reasons grouped by their kind. A reason such as `no price bar held for this stock on
// 2019-01-09 (…)` embeds a value; its kind is the reason's template (`… on <date> (…)`) and the value
// is what varies, so a report can print one line per kind however many values there are.

/** A reason split into its stable kind (the template, each value replaced by `<name>`) and its values. */
export interface KindOfReason {
  kind: string;
  values: string[];
}

/** Reasons whose values are not quoted, dated or numbers: where each value is, and what it is called. */
const TEMPLATES: { pattern: RegExp; names: string[] }[] = [
  { pattern: /^(series )(.+)( is not equity)$/, names: ['series'] },
  {
    pattern: /^(another row \(series )(.+)(\) gives this stock's price that day)$/,
    names: ['series'],
  },
  { pattern: /^(record type )(.+)( is not a security-wise row)$/, names: ['type'] },
  {
    pattern:
      /^(status )(.+?)(: (?:the scrip master loads active scrips only|only Delisted and Suspended rows are loaded from this list))$/,
    names: ['status'],
  },
  {
    pattern:
      /^()(\S+)( )(standalone|consolidated)( revenue )(\S+)( exceeds the sum of its quarters \()(\S+)(\): year not imported)$/,
    names: ['period', 'basis', 'number', 'number'],
  },
  { pattern: /^(not well-formed XML: )(.+)()$/, names: ['error'] },
  { pattern: /^(it matches several kinds \()(.+)(\))$/, names: ['kinds'] },
  { pattern: /^(not a readable zip archive \()(.+)(\))$/, names: ['error'] },
];

/** Any other reason: quoted text, ISO dates and numbers are its values. */
const VALUES =
  /"([^"]*)"|(?<![\w.-])(\d{4}-\d{2}-\d{2})(?![\w-])|(?<![\w.-])(-?\d+(?:,\d+)*(?:\.\d+)?)(?![\w])/g;

/** The kind and values of one reason; a reason with no value is its own kind. */
export function kindOfReason(reason: string): KindOfReason {
  for (const { pattern, names } of TEMPLATES) {
    const m = pattern.exec(reason);
    if (!m) continue;
    // Groups alternate: literal text, then a value, then literal text, …
    const parts = m.slice(1);
    let kind = '';
    const values: string[] = [];
    parts.forEach((part, i) => {
      if (i % 2 === 0) kind += part;
      else {
        kind += `<${names[(i - 1) / 2]}>`;
        values.push(part);
      }
    });
    return { kind, values };
  }
  const values: string[] = [];
  const kind = reason.replace(VALUES, (_all, quoted?: string, date?: string, number?: string) => {
    if (quoted !== undefined) {
      values.push(quoted);
      return '"<value>"';
    }
    if (date !== undefined) {
      values.push(date);
      return '<date>';
    }
    values.push(number!);
    return '<number>';
  });
  return { kind, values };
}

/** The rejections of one kind of reason, over every value it was given. */
export interface ReasonGroup {
  /** The reason's template: `<date>`, `<number>`, `<value>` or a name where a value varies. */
  kind: string;
  /** Rejections of this kind. */
  count: number;
  /** How many different values (or sets of values) they carry; 0 when the reason has none. */
  distinct: number;
  /**
   * Up to three of those values, in the order first met: each cut to 40 characters and quoted when it
   * holds a comma or a space; several values of one reason joined by ` / `.
   */
  examples: string[];
  /** Up to three places (`file:line`, or a file) where the kind was met. */
  at: string[];
}

const MAX_EXAMPLES = 3;
const MAX_EXAMPLE_CHARS = 40;

/** A value as an example: cut to 40 characters, quoted when it holds a comma or a space or is empty. */
function example(values: string[]): string {
  return values
    .map((v) => {
      const cut = v.length > MAX_EXAMPLE_CHARS ? `${v.slice(0, MAX_EXAMPLE_CHARS - 1)}…` : v;
      return /[, ]/.test(cut) || cut === '' ? JSON.stringify(cut) : cut;
    })
    .join(' / ');
}

/**
 * Reasons (each exact reason with its count and first places) grouped by kind, largest first: the
 * counts add up to every rejection, whatever the number of values.
 */
export function groupReasons(reasons: Record<string, { count: number; at: string[] }>): ReasonGroup[] {
  const groups = new Map<string, ReasonGroup>();
  for (const [reason, { count, at }] of Object.entries(reasons)) {
    const { kind, values } = kindOfReason(reason);
    let g = groups.get(kind);
    if (!g) {
      g = { kind, count: 0, distinct: 0, examples: [], at: [] };
      groups.set(kind, g);
    }
    g.count += count;
    if (values.length > 0) {
      g.distinct++;
      if (g.examples.length < MAX_EXAMPLES) g.examples.push(example(values));
    }
    for (const place of at) if (g.at.length < MAX_EXAMPLES) g.at.push(place);
  }
  return [...groups.values()].sort((a, b) => b.count - a.count);
}

/** Files not recognised, grouped by the kind of their reason (the places are the files). */
export function groupUnrecognised(files: readonly { path: string; reason: string }[]): ReasonGroup[] {
  const reasons: Record<string, { count: number; at: string[] }> = {};
  for (const { path, reason } of files) {
    reasons[reason] ??= { count: 0, at: [] };
    reasons[reason].count++;
    reasons[reason].at.push(path);
  }
  return groupReasons(reasons);
}
