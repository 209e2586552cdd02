/**
 * Helpers of the ops tests: Helm-style values merging, the configuration variables each service really
 * reads, Go-template structure, Dockerfile and .dockerignore reading, and PromQL pieces. No rendering:
 * templates are only parsed and read.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_PORTS, type ServiceName } from '@mdp/config';
import { parse, parseAllDocuments } from 'yaml';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const CHART = join(ROOT, 'charts', 'mdp');
export const SERVICES = Object.keys(DEFAULT_PORTS) as ServiceName[];
export { DEFAULT_PORTS };

export const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
export const readYaml = (path: string): any => parse(read(path), { merge: true });

/** Every file under `dir` (relative to the repository), recursively. */
export function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (abs: string) => {
    for (const name of readdirSync(abs)) {
      const p = join(abs, name);
      if (statSync(p).isDirectory()) walk(p);
      else out.push(relative(ROOT, p));
    }
  };
  walk(join(ROOT, dir));
  return out.sort();
}

const isMap = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Helm's coalescing of a values file over the chart's defaults: maps merge key by key, anything else
 * replaces, and null deletes the key.
 */
export function coalesce(base: unknown, override: unknown): unknown {
  if (!isMap(base) || !isMap(override)) return override === undefined ? base : override;
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(override)) {
    if (v === null) delete out[k];
    else out[k] = k in base ? coalesce(base[k], v) : v;
  }
  return out;
}

/** Dotted paths of every leaf (and empty map or list) of a values tree. */
export function leafPaths(value: unknown, prefix = ''): string[] {
  if (!isMap(value) || Object.keys(value).length === 0) return prefix ? [prefix] : [];
  return Object.entries(value).flatMap(([k, v]) => leafPaths(v, prefix ? `${prefix}.${k}` : k));
}

export function valueAt(tree: unknown, path: string): { found: boolean; value: unknown } {
  let cur: unknown = tree;
  for (const key of path.split('.')) {
    if (!isMap(cur) || !(key in cur)) return { found: false, value: undefined };
    cur = cur[key];
  }
  return { found: true, value: cur };
}

// ---------------------------------------------------------------------------------------------------
// The configuration each service reads, from its TypeBox schemas (`NAME: Type.…`)

const CONFIG_KEY = /^\s*([A-Z][A-Z0-9_]+):\s*(?:Type\.|databaseConfig\.|address\()/gm;

function keysIn(files: string[]): Set<string> {
  const keys = new Set<string>();
  for (const f of files) for (const m of read(f).matchAll(CONFIG_KEY)) keys.add(m[1]!);
  return keys;
}

/** The variables of each configuration object `@mdp/config` exports (`export const xConfig = {…}`). */
function sharedConfigs(): Map<string, Set<string>> {
  const src = read('packages/config/src/index.ts');
  const out = new Map<string, Set<string>>();
  const starts = [...src.matchAll(/^export const (\w+Config) = \{/gm)];
  starts.forEach((m, i) => {
    const body = src.slice(m.index, starts[i + 1]?.index ?? src.indexOf('export const DEFAULT_PORTS'));
    const keys = new Set([...body.matchAll(CONFIG_KEY)].map((k) => k[1]!));
    // A config may spread another (usageStreamConfig spreads natsConfig).
    for (const spread of body.matchAll(/\.\.\.(\w+Config)\b/g))
      for (const k of out.get(spread[1]!) ?? []) keys.add(k);
    out.set(m[1]!, keys);
  });
  return out;
}

/** Variables a service process reads: common ones, its runtime's, and its own config schemas. */
export function configKeys(service: ServiceName): Set<string> {
  const shared = sharedConfigs();
  // commonConfig (every process), databaseConfig (the gRPC services' runtime), and whatever shared
  // configuration the service's own schemas spread in.
  const runtime = service === 'gateway' ? [] : ['packages/runtime/src/grpc-service.ts'];
  const own = filesUnder(`services/${service}/src`).filter(
    (f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !f.endsWith('cli.ts'),
  );
  const keys = keysIn([...runtime, ...own]);
  const spreads = new Set(['commonConfig', ...(service === 'gateway' ? [] : ['databaseConfig'])]);
  for (const f of [...runtime, ...own])
    for (const m of read(f).matchAll(/\b(\w+Config)\b/g)) if (shared.has(m[1]!)) spreads.add(m[1]!);
  for (const name of spreads) for (const k of shared.get(name) ?? []) keys.add(k);
  // Read by the image's health check, not by the service.
  keys.add('MDP_SERVICE');
  return keys;
}

// ---------------------------------------------------------------------------------------------------
// Go templates (Helm): actions and their block structure, without evaluating anything

export interface Action {
  text: string;
  start: number;
  end: number;
  /** The action's words without trim markers, e.g. `if .Values.x`, `end`, `include "a" .`. */
  body: string;
}

/** Every `{{ … }}` action of a template, or an error naming an unbalanced one. */
export function actions(src: string): Action[] {
  const out: Action[] = [];
  let i = 0;
  for (;;) {
    const open = src.indexOf('{{', i);
    const stray = src.indexOf('}}', i);
    if (stray !== -1 && (open === -1 || stray < open))
      throw new Error(
        `"}}" without "{{" at offset ${stray}: ${src.slice(Math.max(0, stray - 40), stray + 2)}`,
      );
    if (open === -1) return out;
    let j = open + 2;
    let quote: string | null = null;
    let comment = src.startsWith('/*', j) || src.startsWith('- /*', j);
    for (; j < src.length; j++) {
      const c = src[j]!;
      if (comment) {
        if (src.startsWith('*/', j)) comment = false;
        continue;
      }
      if (quote) {
        if (c === '\\' && quote === '"') j++;
        else if (c === quote) quote = null;
        continue;
      }
      if (c === '"' || c === '`') quote = c;
      else if (src.startsWith('{{', j)) throw new Error(`"{{" inside an action at offset ${j}`);
      else if (src.startsWith('}}', j)) break;
    }
    if (j >= src.length)
      throw new Error(`unterminated action at offset ${open}: ${src.slice(open, open + 60)}`);
    const text = src.slice(open, j + 2);
    const body = text.slice(2, -2).replace(/^-\s/, '').replace(/\s-$/, '').trim();
    out.push({ text, start: open, end: j + 2, body });
    i = j + 2;
  }
}

const BLOCK_OPEN = /^(if|range|with|define|block)\b/;

/** Checks that if/range/with/define/block each have their `end`, and `else` sits inside one. */
export function checkBlocks(src: string): void {
  const stack: string[] = [];
  for (const a of actions(src)) {
    if (a.body.startsWith('/*')) continue;
    const word = BLOCK_OPEN.exec(a.body)?.[1];
    if (word) stack.push(word);
    else if (/^else\b/.test(a.body)) {
      const top = stack.at(-1);
      if (!top || !['if', 'range', 'with'].includes(top))
        throw new Error(`"${a.text}" outside if/range/with`);
    } else if (a.body === 'end') {
      if (!stack.pop()) throw new Error(`"${a.text}" closes nothing (offset ${a.start})`);
    }
  }
  if (stack.length > 0) throw new Error(`unclosed ${stack.join(', ')}`);
}

const CONTROL = /^(if|else|end|range|with|define|block|template|\/\*|\$[A-Za-z_]\w*\s*:?=)/;

/**
 * The YAML a template would produce, with every action taken out: control actions and lines that are
 * only an action (they inject whole YAML blocks) are dropped, inline actions become unique scalars.
 * Both branches of an `if` stay, so templates must not repeat a key across branches.
 */
export function stripActions(src: string): string {
  let n = 0;
  const lines: string[] = [];
  // Whole-line actions, including multi-line comments, go first.
  const withoutComments = src.replace(/\{\{-?\s*\/\*[\s\S]*?\*\/\s*-?\}\}/g, (m) => m.replace(/[^\n]/g, ' '));
  for (const line of withoutComments.split('\n')) {
    const found = actions(line);
    if (found.length === 0) {
      lines.push(line);
      continue;
    }
    let rest = '';
    let last = 0;
    for (const a of found) {
      rest += line.slice(last, a.start);
      if (!CONTROL.test(a.body)) rest += `TPL${n++}`;
      last = a.end;
    }
    rest += line.slice(last);
    const onlyActions = line.replace(/\{\{[\s\S]*?\}\}/g, '').trim() === '';
    if (onlyActions) continue;
    lines.push(rest);
  }
  return lines.join('\n');
}

/** YAML documents of a stripped template; throws on a YAML error. */
export function yamlDocs(src: string): Record<string, any>[] {
  return parseAllDocuments(stripActions(src)).flatMap((doc) => {
    if (doc.errors.length > 0) throw new Error(doc.errors.map((e) => e.message).join('\n'));
    const value = doc.toJS();
    return value ? [value as Record<string, any>] : [];
  });
}

/** The bodies of `define` blocks of a helpers file, by name. */
export function defines(src: string): Map<string, string> {
  const out = new Map<string, string>();
  const all = actions(src);
  for (let i = 0; i < all.length; i++) {
    const m = /^define\s+"([^"]+)"/.exec(all[i]!.body);
    if (!m) continue;
    let depth = 1;
    let j = i + 1;
    for (; j < all.length; j++) {
      const b = all[j]!.body;
      if (BLOCK_OPEN.test(b)) depth++;
      else if (b === 'end' && --depth === 0) break;
    }
    out.set(m[1]!, src.slice(all[i]!.end, all[j]!.start));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------
// Dockerfiles and .dockerignore

export interface Instruction {
  keyword: string;
  args: string;
  line: number;
}

/** Instructions of a Dockerfile: continuation lines joined, comments and the parser directive dropped. */
export function dockerInstructions(src: string): Instruction[] {
  const out: Instruction[] = [];
  const lines = src.split('\n');
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i]!;
    if (/^\s*(#|$)/.test(line)) continue;
    const start = i + 1;
    while (/\\\s*$/.test(line) && i + 1 < lines.length) {
      i++;
      const next = lines[i]!;
      if (/^\s*#/.test(next)) continue;
      line = `${line.replace(/\\\s*$/, '')} ${next.trim()}`;
    }
    const m = /^\s*([A-Za-z]+)\s+([\s\S]*)$/.exec(line);
    if (!m) throw new Error(`line ${start}: not an instruction: ${line}`);
    out.push({ keyword: m[1]!.toUpperCase(), args: m[2]!.trim(), line: start });
  }
  return out;
}

/** A .dockerignore matcher (patterns with `*`, `**`, leading `!`), as BuildKit applies it to a path. */
export function dockerIgnored(patterns: string[], path: string): boolean {
  let ignored = false;
  for (const raw of patterns) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const negate = line.startsWith('!');
    const pattern = (negate ? line.slice(1) : line).replace(/^\/+/, '').replace(/\/+$/, '');
    const source = pattern
      .split('/')
      .map((part) =>
        part === '**'
          ? '.*'
          : part
              .replace(/[.+^${}()|[\]\\]/g, '\\$&')
              .replace(/\*/g, '[^/]*')
              .replace(/\?/g, '[^/]'),
      )
      .join('/')
      .replace(/\.\*\//g, '(?:.*/)?');
    // A pattern matching a folder excludes everything under it.
    if (new RegExp(`^${source}(?:/.*)?$`).test(path)) ignored = !negate;
  }
  return ignored;
}

// ---------------------------------------------------------------------------------------------------
// PromQL

const PROMQL_WORDS = new Set(
  [
    'sum min max avg group stddev stdvar count count_values bottomk topk quantile',
    'by without on ignoring group_left group_right bool and or unless offset',
    'rate irate increase delta idelta deriv changes resets histogram_quantile vector scalar time clamp_min',
    'clamp_max clamp abs absent absent_over_time label_replace label_join sort sort_desc round ceil floor',
    'avg_over_time max_over_time min_over_time sum_over_time count_over_time last_over_time predict_linear',
    'inf nan',
  ]
    .join(' ')
    .split(' '),
);

/** Metric names an expression selects (`foo{…}`, `foo[5m]`, bare `foo`), recording rules included. */
export function metricNames(expr: string): string[] {
  const cleaned = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, '{}')
    .replace(/\[[^\]]*\]/g, '[]')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, '$1');
  const names = new Set<string>();
  for (const m of cleaned.matchAll(/([A-Za-z_:][A-Za-z0-9_:]*)\s*(\(?)/g)) {
    const [, name, paren] = m;
    if (paren || PROMQL_WORDS.has(name!.toLowerCase()) || /^\d/.test(name!)) continue;
    names.add(name!);
  }
  return [...names];
}

/** Splits at top level (outside (), {}, [] and strings) with `re` matched at each position. */
function splitTopLevel(expr: string, re: RegExp): string[] {
  const parts: string[] = [];
  let depth = 0;
  let last = 0;
  for (let i = 0; i < expr.length; i++) {
    const c = expr[i]!;
    if (c === '"') {
      for (i++; i < expr.length && expr[i] !== '"'; i++) if (expr[i] === '\\') i++;
      continue;
    }
    if ('({['.includes(c)) depth++;
    else if (')}]'.includes(c)) depth--;
    else if (depth === 0) {
      const m = re.exec(expr.slice(i));
      if (m && m.index === 0) {
        parts.push(expr.slice(last, i));
        i += m[0].length - 1;
        last = i + 1;
      }
    }
  }
  parts.push(expr.slice(last));
  return parts.map((p) => p.trim()).filter(Boolean);
}

const SCALAR = /^[\d\s.*+\-/()e]+$/;

/** `absent(x)` or `absent_over_time(x[r])` as the whole of an operand: x, the series it guards. */
function absentGuarded(operand: string): string {
  const m = /^absent(_over_time)?\((.*)\)$/.exec(operand);
  if (!m || splitTopLevel(m[2]!, /^\)/).length !== 1) return operand;
  return m[1] ? m[2]!.replace(/\[[^\]]*\]\s*$/, '') : m[2]!;
}

/**
 * The series-valued operands an alert compares: `a > 1 and b < c unless on (x) d` gives a, b, c and d.
 * An alert that is quiet returns nothing, so the tests run these to show the signal behind it exists;
 * an `absent(x)` guard is quiet exactly when x has data, so it gives x.
 */
export function alertOperands(expr: string): string[] {
  const terms = splitTopLevel(
    expr.replace(/\s+/g, ' '),
    /^ (?:and|or|unless)(?: (?:on|ignoring) ?\([^)]*\))? /,
  );
  return terms.flatMap((term) =>
    splitTopLevel(term, /^(?:==|!=|>=|<=|>|<)(?: ?bool)?/)
      .map((side) => absentGuarded(side.replace(/^bool /, '').trim()))
      .filter((side) => !SCALAR.test(side)),
  );
}
