/**
 * What every panel of the Grafana dashboards (deploy/grafana/dashboards/) must be, read from their JSON:
 *
 * - it honours every filter its dashboard shows: each selector of each of its queries filters the label
 *   a template variable stands for by that variable (`route=~"$route"`), and, where the labels each
 *   metric really carries are known (test/ops/dashboards.int.test.ts asks a Prometheus scraping the
 *   platform), selects a metric that has the label (a recording rule that summed it away cannot be
 *   filtered);
 * - it draws no unlabelled series: no `or vector(…)` (which adds a series with no labels next to the
 *   labelled ones, or instead of them);
 * - it shows durations and day counts in their units: a quantile of a `_seconds` histogram, a `_seconds`
 *   gauge, an average of a `_seconds` histogram or the age of a Unix time (`time() - …_timestamp_seconds`
 *   or `…_time_seconds`) in a unit that reads seconds (`s`, `dtdurations`…), a `_days` gauge in days
 *   (Grafana's `d`); a query's unit is its panel's, or that of an override for its refId;
 * - its quantiles share one grouping: a p50 over everything next to a p99 per kind compares nothing.
 *
 * test/ops/dashboards.test.ts shows each check refuses what it is for; the int test applies them all.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { filesUnder, ROOT } from './lib.ts';

export interface Target {
  refId: string;
  expr: string;
  legendFormat?: string;
}

export interface Panel {
  title: string;
  type: string;
  targets: Target[];
  /** The unit a query's values are shown in: its override (by refId) or the panel's default. */
  unitOf: (refId: string) => string | undefined;
}

export interface Variable {
  name: string;
  /** The label it filters, from `label_values(metric, label)`; undefined when it cannot be told. */
  label: string | undefined;
}

export interface Dashboard {
  file: string;
  title: string;
  /** Template variables other than the data source and Grafana's own. */
  variables: Variable[];
  /** Every panel with queries, those inside rows included. */
  panels: Panel[];
}

/** A dashboard's JSON as the checks read it. */
export function parseDashboard(file: string, json: any): Dashboard {
  const variables: Variable[] = (json.templating?.list ?? [])
    .filter((v: any) => v.type !== 'datasource')
    .map((v: any) => {
      const definition = v.definition ?? (typeof v.query === 'string' ? v.query : v.query?.query) ?? '';
      return { name: v.name, label: /^label_values\(.+,\s*(\w+)\s*\)$/.exec(definition)?.[1] };
    });
  const panels: Panel[] = [];
  const walk = (ps: any[] | undefined) => {
    for (const p of ps ?? []) {
      if (p.targets?.length)
        panels.push({
          title: p.title,
          type: p.type,
          targets: p.targets.map((t: any) => ({
            refId: t.refId,
            expr: t.expr,
            legendFormat: t.legendFormat,
          })),
          unitOf: (refId) => {
            const override = (p.fieldConfig?.overrides ?? []).find(
              (o: any) => o.matcher?.id === 'byFrameRefID' && o.matcher.options === refId,
            );
            const unit = override?.properties?.find((x: any) => x.id === 'unit')?.value;
            return unit ?? p.fieldConfig?.defaults?.unit;
          },
        });
      walk(p.panels);
    }
  };
  walk(json.panels);
  return { file, title: json.title, variables, panels };
}

/** Every dashboard of deploy/grafana/dashboards/. */
export function loadDashboards(): Dashboard[] {
  return filesUnder('deploy/grafana/dashboards')
    .filter((f) => f.endsWith('.json'))
    .map((f) => parseDashboard(f, JSON.parse(readFileSync(join(ROOT, f), 'utf8'))));
}

// ---------------------------------------------------------------------------------------------------
// PromQL: the selectors of an expression, the groupings of its quantiles

export interface Matcher {
  label: string;
  op: '=' | '!=' | '=~' | '!~';
  value: string;
}

export interface Selector {
  name: string;
  matchers: Matcher[];
}

/** Words that are never metric names when they stand alone. */
const KEYWORDS = new Set(['and', 'or', 'unless', 'bool', 'offset', 'inf', 'nan']);
/** Aggregations, which may be followed by `by (…)` before their parenthesis. */
const AGGREGATIONS = new Set([
  ...['sum', 'min', 'max', 'avg', 'group', 'stddev', 'stdvar', 'count', 'count_values'],
  ...['bottomk', 'topk', 'quantile', 'limitk', 'limit_ratio'],
]);
/** Keywords followed by a list of labels, not an expression. */
const LABEL_LISTS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right']);

/** The index just past the bracket that closes the one at `open`, strings skipped. */
function closing(expr: string, open: number): number {
  const pairs: Record<string, string> = { '(': ')', '{': '}', '[': ']' };
  const stack: string[] = [];
  for (let i = open; i < expr.length; i++) {
    const c = expr[i]!;
    if (c === '"' || c === "'") {
      for (i++; i < expr.length && expr[i] !== c; i++) if (expr[i] === '\\') i++;
    } else if (pairs[c]) stack.push(pairs[c]);
    else if (c === stack.at(-1)) {
      stack.pop();
      if (stack.length === 0) return i + 1;
    }
  }
  throw new Error(`unbalanced "${expr[open]}" at ${open} in ${expr}`);
}

function parseMatchers(body: string): Matcher[] {
  return [...body.matchAll(/([A-Za-z_]\w*)\s*(=~|!~|!=|=)\s*"((?:[^"\\]|\\.)*)"/g)].map((m) => ({
    label: m[1]!,
    op: m[2] as Matcher['op'],
    value: m[3]!,
  }));
}

/** Every named vector selector of an expression (`foo{a="b"}`, `foo[5m]`, `foo`), in order. */
export function selectors(expr: string): Selector[] {
  const out: Selector[] = [];
  let i = 0;
  while (i < expr.length) {
    const c = expr[i]!;
    if (c === '"' || c === "'") {
      for (i++; i < expr.length && expr[i] !== c; i++) if (expr[i] === '\\') i++;
      i++;
      continue;
    }
    // A range or an unnamed selector's braces.
    if (c === '[' || c === '{') {
      i = closing(expr, i);
      continue;
    }
    // Numbers and durations (1e3, 0.99, 5m).
    const number = /^\d[\w.]*/.exec(expr.slice(i));
    if (number) {
      i += number[0].length;
      continue;
    }
    const word = /^[A-Za-z_:][\w:]*/.exec(expr.slice(i));
    if (!word) {
      i++;
      continue;
    }
    const name = word[0];
    let j = i + name.length;
    while (/\s/.test(expr[j] ?? '')) j++;
    if (LABEL_LISTS.has(name)) {
      i = expr[j] === '(' ? closing(expr, j) : j;
      continue;
    }
    if (expr[j] === '(' || KEYWORDS.has(name) || AGGREGATIONS.has(name)) {
      // A function or an aggregation: its arguments are read as the loop goes on.
      i = j;
      continue;
    }
    if (expr[j] === '{') {
      const end = closing(expr, j);
      out.push({ name, matchers: parseMatchers(expr.slice(j + 1, end - 1)) });
      i = end;
    } else {
      out.push({ name, matchers: [] });
      i = j;
    }
  }
  return out;
}

/**
 * The grouping of each `histogram_quantile` of an expression: the labels its buckets are summed by,
 * `le` left out (`sum by (le, kind) (…)` gives `kind`), `without (…)` as written, or `(none)` for none.
 */
export function quantileGroupings(expr: string): string[] {
  const out: string[] = [];
  for (const m of expr.matchAll(/histogram_quantile\s*\(/g)) {
    const open = m.index! + m[0].length - 1;
    const inner = expr.slice(open + 1, closing(expr, open) - 1);
    const by = /\b(by|without)\s*\(([^)]*)\)/.exec(inner);
    if (!by) out.push('(none)');
    else {
      const labels = by[2]!
        .split(',')
        .map((l) => l.trim())
        .filter((l) => l && l !== 'le')
        .sort();
      out.push(by[1] === 'without' ? `without (${labels.join(', ')})` : labels.join(', ') || '(none)');
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------
// Units

/** Grafana units that read a value as seconds, and as days (Grafana's `d`: "days (d)", toDays). */
export const SECONDS_UNITS = ['s', 'dtdurations', 'dthms', 'dtdhms', 'clocks'];
export const DAYS_UNITS = ['d'];

/** What a query's values measure, as far as its metrics' names tell: seconds, days, or neither. */
export function measures(expr: string): 'seconds' | 'days' | 'both' | undefined {
  const names = selectors(expr).map((s) => s.name);
  // Unix times: `_timestamp_seconds`, and `_time_seconds` as in process_start_time_seconds.
  const isTime = (n: string) => /_time(stamp)?_seconds$/.test(n);
  const seconds =
    // A quantile of a histogram of durations.
    (/histogram_quantile\s*\(/.test(expr) && names.some((n) => n.endsWith('_seconds_bucket'))) ||
    // A gauge in seconds (not a time).
    names.some((n) => n.endsWith('_seconds') && !isTime(n)) ||
    // The age of a time.
    (/\btime\s*\(\s*\)\s*-/.test(expr) && names.some(isTime)) ||
    // An average duration: a histogram's sum over its count.
    names.some((n) => n.endsWith('_seconds_sum') && names.includes(n.replace(/_sum$/, '_count')));
  const days = names.some((n) => n.endsWith('_days'));
  if (seconds && days) return 'both';
  return seconds ? 'seconds' : days ? 'days' : undefined;
}

// ---------------------------------------------------------------------------------------------------
// The checks: one message per problem, naming the file, the panel and the query

const where = (d: Dashboard, p: Panel, t: Target) => `${d.file} "${p.title}" ${t.refId}`;

/**
 * Panels that ignore a filter their dashboard shows. `labelsOf` (the labels each metric carries, where
 * known) also refuses a filter on a label the metric has not got.
 */
export function filterFailures(
  d: Dashboard,
  labelsOf?: (metric: string) => Set<string> | undefined,
): string[] {
  const failures: string[] = [];
  for (const v of d.variables) {
    if (!v.label) {
      failures.push(
        `${d.file}: cannot tell which label $${v.name} filters (define it as label_values(…, label))`,
      );
      continue;
    }
    const uses = new Set([`$${v.name}`, `\${${v.name}}`]);
    for (const p of d.panels)
      for (const t of p.targets)
        for (const s of selectors(t.expr)) {
          if (!s.matchers.some((m) => m.label === v.label && m.op === '=~' && uses.has(m.value)))
            failures.push(
              `${where(d, p, t)}: ${s.name} is not filtered by ${v.label}=~"$${v.name}", which the dashboard shows`,
            );
          const labels = labelsOf?.(s.name);
          if (labels && !labels.has(v.label))
            failures.push(
              `${where(d, p, t)}: ${s.name} has no label ${v.label}, so the panel cannot honour $${v.name}`,
            );
        }
  }
  return failures;
}

/** Queries that add a series with no labels: `or vector(…)`, `or on (…) vector(…)`. */
export function unlabelledFailures(d: Dashboard): string[] {
  return d.panels.flatMap((p) =>
    p.targets
      .filter((t) => /\bor\s+(?:(?:on|ignoring)\s*\([^)]*\)\s*)?vector\s*\(/.test(t.expr))
      .map(
        (t) =>
          `${where(d, p, t)}: "or vector(…)" draws a series without labels; fall back on a zero per label (or on (…) 0 * …)`,
      ),
  );
}

/** Durations and day counts not shown in their units. */
export function unitFailures(d: Dashboard): string[] {
  const failures: string[] = [];
  for (const p of d.panels)
    for (const t of p.targets) {
      const what = measures(t.expr);
      const unit = p.unitOf(t.refId);
      if (what === 'both')
        failures.push(`${where(d, p, t)}: mixes seconds and days in one query; give each its own`);
      else if (what === 'seconds' && !SECONDS_UNITS.includes(unit ?? ''))
        failures.push(
          `${where(d, p, t)}: seconds shown in unit "${unit}", not one that reads seconds (${SECONDS_UNITS.join(', ')})`,
        );
      else if (what === 'days' && !DAYS_UNITS.includes(unit ?? ''))
        failures.push(`${where(d, p, t)}: days shown in unit "${unit}", not days ("d")`);
    }
  return failures;
}

/** Panels whose quantiles are grouped differently (a p50 overall next to a p99 per kind). */
export function quantileFailures(d: Dashboard): string[] {
  const failures: string[] = [];
  for (const p of d.panels) {
    const groupings = new Map<string, string[]>();
    for (const t of p.targets)
      for (const g of quantileGroupings(t.expr)) groupings.set(g, [...(groupings.get(g) ?? []), t.refId]);
    if (groupings.size > 1)
      failures.push(
        `${d.file} "${p.title}": quantiles over different groupings: ${[...groupings]
          .map(([g, refs]) => `${refs.join(', ')} by ${g}`)
          .join('; ')}`,
      );
  }
  return failures;
}

/** The labels a legend names (`{{target}} {{code}}` gives target and code). */
export const legendLabels = (legend: string | undefined) =>
  [...(legend ?? '').matchAll(/\{\{\s*(\w+)\s*\}\}/g)].map((m) => m[1]!);
