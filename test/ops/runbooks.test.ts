/**
 * The runbooks of docs/runbooks/ against what they describe, with no Prometheus, Grafana or cluster:
 * every alert of deploy/prometheus/rules/mdp.yaml has a `runbook_url` into the repository whose file and
 * heading exist and have the five parts, and is in the index with its severity; and every metric,
 * dashboard panel, `make` target, admin-tool command, chart workload, chart value, alert and link a
 * runbook names exists. A synthetic runbook that names things that do not exist shows each check fails.
 */
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { filesUnder, ROOT, read, readYaml, valueAt } from './lib.ts';

const RUNBOOKS = 'docs/runbooks';
const INDEX = `${RUNBOOKS}/README.md`;
const PARTS = [
  'What fired',
  'What the user sees',
  'Confirm on the dashboards',
  'What to do',
  'When it is over',
];
/** The chart's release name the runbooks' commands assume (docs/runbooks/README.md, "Conventions"). */
const RELEASE = 'mdp';

interface Alert {
  name: string;
  severity: string;
  runbookUrl: string | undefined;
}

const rules = readYaml('deploy/prometheus/rules/mdp.yaml');
const alerts: Alert[] = rules.groups
  .flatMap((g: any) => g.rules)
  .filter((r: any) => r.alert)
  .map((r: any) => ({ name: r.alert, severity: r.labels?.severity, runbookUrl: r.annotations?.runbook_url }));
const records = new Set<string>(
  rules.groups.flatMap((g: any) => g.rules.map((r: any) => r.record).filter(Boolean)),
);

/** `home` of the chart is the repository's address; runbook URLs are files of its main branch. */
const URL_BASE = `${readYaml('charts/mdp/Chart.yaml').home}/blob/main/${RUNBOOKS}/`;

// ---------------------------------------------------------------------------------------------------
// Markdown: headings with GitHub's anchors, sections, code, paragraphs

/** GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

interface Heading {
  level: number;
  text: string;
  anchor: string;
  line: number;
}

interface Doc {
  lines: string[];
  headings: Heading[];
  /** The text outside fenced code blocks (fenced lines blanked, so line numbers hold). */
  prose: string;
  /** The contents of fenced code blocks. */
  fences: string[];
}

function parseMarkdown(text: string): Doc {
  const lines = text.split('\n');
  const headings: Heading[] = [];
  const seen = new Map<string, number>();
  const proseLines: string[] = [];
  const fences: string[] = [];
  let fence: string[] | null = null;
  lines.forEach((line, i) => {
    if (/^\s*```/.test(line)) {
      if (fence) {
        fences.push(fence.join('\n'));
        fence = null;
      } else fence = [];
      proseLines.push('');
      return;
    }
    if (fence) {
      fence.push(line);
      proseLines.push('');
      return;
    }
    proseLines.push(line);
    const m = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) return;
    const base = slug(m[2]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    headings.push({ level: m[1]!.length, text: m[2]!, anchor: n === 0 ? base : `${base}-${n}`, line: i });
  });
  return { lines, headings, prose: proseLines.join('\n'), fences };
}

/** The lines under a heading, up to the next heading of its level or above. */
function sectionOf(doc: Doc, h: Heading): { body: string; subheadings: Heading[] } {
  const after = doc.headings.filter((x) => x.line > h.line);
  const end = after.find((x) => x.level <= h.level)?.line ?? doc.lines.length;
  return {
    body: doc.lines.slice(h.line + 1, end).join('\n'),
    subheadings: after.filter((x) => x.line < end),
  };
}

/** Blocks of prose: paragraphs, and each list item on its own. */
function paragraphs(prose: string): string[] {
  return prose
    .split(/\n\s*\n|\n(?=\s*(?:[-*]|\d+\.)\s)/)
    .map((p) => p.replace(/\s+/g, ' ').trim())
    .filter(Boolean);
}

/** Inline code spans of a block of prose (a span may wrap over lines). */
const inlineCode = (block: string) =>
  [...block.matchAll(/`([^`]+)`/g)].map((m) => m[1]!.replace(/\s+/g, ' '));

/** Every command-like piece of code in a document: inline spans, and the lines of fenced blocks. */
function codePieces(doc: Doc): { code: string; context: string }[] {
  const pieces: { code: string; context: string }[] = [];
  for (const p of paragraphs(doc.prose)) for (const code of inlineCode(p)) pieces.push({ code, context: p });
  for (const f of doc.fences) for (const line of f.split('\n')) pieces.push({ code: line, context: f });
  return pieces;
}

// ---------------------------------------------------------------------------------------------------
// What exists: metrics, dashboards, make targets, admin tools, the chart's workloads and values

/** Metric name prefixes of the platform (and of NATS, whose server exports none the runbooks may use). */
const PREFIXES = [
  'gateway',
  'ledger',
  'auth',
  'equities_data',
  'filings',
  'options',
  'mdp',
  'grpc',
  'http',
  'nats',
  'process',
  'nodejs',
];
const METRIC_TOKEN = new RegExp(
  `(?<![\\w.:/-])((?:${PREFIXES.join('|')})_[a-z0-9_]*[a-z0-9])(?![\\w-])`,
  'g',
);
const RECORD_TOKEN = /(?<![\w.:/-])(mdp:[a-z0-9_:]*[a-z0-9])(?![\w:-])/g;

interface Metric {
  type: string;
}

/**
 * Every metric the platform exports: `new Counter|Gauge|Histogram|Summary({ name: '…' })` (or the
 * `CellCounter`/`CellHistogram` kinds of the first and third, packages/telemetry) in the
 * services' and packages' sources, the data-import job's `gauge('…')`, and prom-client's default metrics
 * (`createRegistry` collects them in every process).
 */
async function exportedMetrics(): Promise<Map<string, Metric>> {
  const metrics = new Map<string, Metric>();
  const sources = [...filesUnder('services'), ...filesUnder('packages')].filter(
    (f) =>
      /\/src\/.*\.ts$/.test(f) &&
      !f.includes('/node_modules/') &&
      !/\.test\.ts$/.test(f) &&
      !f.includes('/gen/'),
  );
  for (const f of sources) {
    const src = read(f);
    for (const m of src.matchAll(
      /new\s+(?:Cell)?(Counter|Gauge|Histogram|Summary)\b[^{(]*\(\s*\{\s*name:\s*['"]([^'"]+)['"]/g,
    ))
      metrics.set(m[2]!, { type: m[1]!.toLowerCase() });
    for (const m of src.matchAll(/\bgauge\(\s*['"]([a-z_:][a-z0-9_:]*)['"]/g))
      metrics.set(m[1]!, { type: 'gauge' });
  }
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  for (const m of await registry.getMetricsAsJSON()) metrics.set(m.name, { type: String(m.type) });
  registry.clear();
  return metrics;
}

function metricExists(name: string, metrics: Map<string, Metric>): boolean {
  if (metrics.has(name)) return true;
  const m = /^(.*)_(bucket|sum|count)$/.exec(name);
  if (!m) return false;
  const base = metrics.get(m[1]!);
  return base !== undefined && (base.type === 'histogram' || (base.type === 'summary' && m[2] !== 'bucket'));
}

/** Dashboard title → its file and the titles of all its panels (rows and nested panels included). */
function dashboards(): Map<string, { file: string; panels: Set<string> }> {
  const out = new Map<string, { file: string; panels: Set<string> }>();
  const dir = join(ROOT, 'deploy/grafana/dashboards');
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.json'))) {
    const d = JSON.parse(read(`deploy/grafana/dashboards/${file}`));
    const panels = new Set<string>();
    const walk = (ps: any[] | undefined) => {
      for (const p of ps ?? []) {
        if (p.title) panels.add(p.title);
        walk(p.panels);
      }
    };
    walk(d.panels);
    out.set(d.title, { file, panels });
  }
  return out;
}

const makeTargets = () => new Set([...read('Makefile').matchAll(/^([A-Za-z][\w-]*):/gm)].map((m) => m[1]!));

/**
 * The commands of each service's admin tool (`services/<svc>/src/cli.ts`) whose usage text reads
 * `usage: <tool> <command> …`: the leading words of each command line (two spaces in, cut where the
 * description starts), e.g. `archive verify` from `  archive verify <day>     read an archived day…`.
 */
function adminCommands(): Map<string, string[][]> {
  const out = new Map<string, string[][]>();
  for (const svc of readdirSync(join(ROOT, 'services'))) {
    const file = `services/${svc}/src/cli.ts`;
    if (!existsSync(join(ROOT, file))) continue;
    const usage = /USAGE = `([\s\S]*?)`;/.exec(read(file))?.[1];
    if (!usage || !/^usage: \S+ <command>/.test(usage)) continue;
    const commands: string[][] = [];
    for (const line of usage.split('\n')) {
      if (!/^ {2}\S/.test(line)) continue;
      const words: string[] = [];
      for (const w of line
        .slice(2)
        .split(/\s{2,}/)[0]!
        .split(' ')) {
        if (!/^[a-z][a-z-]*$/.test(w)) break;
        words.push(w);
      }
      if (words.length > 0) commands.push(words);
    }
    out.set(svc, commands);
  }
  return out;
}

/** The chart's workloads by kind: `templates/<component>/{deployment,statefulset,cronjob}.yaml`. */
function chartWorkloads(): Map<string, string> {
  const kinds: Record<string, string> = {
    'deployment.yaml': 'deployment',
    'statefulset.yaml': 'statefulset',
    'cronjob.yaml': 'cronjob',
  };
  const out = new Map<string, string>();
  const dir = join(ROOT, 'charts/mdp/templates');
  for (const component of readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory()))
    for (const file of readdirSync(join(dir, component.name)))
      if (kinds[file]) out.set(`${RELEASE}-${component.name}`, kinds[file]!);
  return out;
}

interface World {
  metrics: Map<string, Metric>;
  dashboards: Map<string, { file: string; panels: Set<string> }>;
  makeTargets: Set<string>;
  adminCommands: Map<string, string[][]>;
  workloads: Map<string, string>;
  values: unknown;
  alertNames: Set<string>;
  /** Repository path → its text, for links and anchors. */
  readDoc: (path: string) => string | undefined;
}

async function world(): Promise<World> {
  return {
    metrics: await exportedMetrics(),
    dashboards: dashboards(),
    makeTargets: makeTargets(),
    adminCommands: adminCommands(),
    workloads: chartWorkloads(),
    values: readYaml('charts/mdp/values.yaml'),
    alertNames: new Set(alerts.map((a) => a.name)),
    readDoc: (path) => (existsSync(join(ROOT, path)) ? read(path) : undefined),
  };
}

// ---------------------------------------------------------------------------------------------------
// The checks of one runbook file

const KIND_ALIASES: Record<string, string> = {
  deploy: 'deployment',
  deployment: 'deployment',
  sts: 'statefulset',
  statefulset: 'statefulset',
  cj: 'cronjob',
  cronjob: 'cronjob',
};

/** A document cut at its `#` and `##` headings (an alert's section each), with the anchor of each piece. */
function sections(path: string, text: string): { at: string; text: string }[] {
  const doc = parseMarkdown(text);
  const cuts = doc.headings.filter((h) => h.level <= 2);
  const pieces = [{ at: path, from: 0 }, ...cuts.map((h) => ({ at: `${path}#${h.anchor}`, from: h.line }))];
  return pieces.map((p, i) => ({
    at: p.at,
    text: doc.lines.slice(p.from, pieces[i + 1]?.from ?? doc.lines.length).join('\n'),
  }));
}

/**
 * What a runbook names that does not exist, one message per thing, naming the file and section
 * (`<path>#<anchor>`) and the thing. `index` relaxes the panel syntax for the index, whose bold text is
 * prose.
 */
function checkRunbook(path: string, text: string, w: World, index = false): string[] {
  const failures: string[] = [];
  const headings = parseMarkdown(text).headings;
  const titles = [...w.dashboards.keys()];
  const components = new Set([...w.workloads.keys()].map((n) => n.slice(RELEASE.length + 1)));
  const services = [...w.adminCommands.keys()].sort((a, b) => b.length - a.length);

  for (const { at, text: part } of sections(path, text)) {
    const doc = parseMarkdown(part);
    const fail = (what: string) => failures.push(`${at}: ${what}`);

    // Metrics: every token with a platform prefix, recording rules by name.
    for (const m of part.matchAll(RECORD_TOKEN))
      if (!records.has(m[1]!)) fail(`names the recording rule ${m[1]}, which no rule records`);
    for (const m of part.matchAll(METRIC_TOKEN))
      if (!metricExists(m[1]!, w.metrics)) fail(`names the metric ${m[1]}, which nothing exports`);

    // Dashboards and panels: **<panel>** followed, in the same paragraph, by (<dashboard title>).
    for (const p of paragraphs(doc.prose)) {
      for (const m of p.matchAll(/\((MDP \/ [^)]*)\)/g))
        if (!w.dashboards.has(m[1]!)) fail(`names the dashboard "${m[1]}", which does not exist`);
      for (const m of p.matchAll(/`(MDP \/ [^`]+)` \(`([\w-]+\.json)`\)/g)) {
        const d = w.dashboards.get(m[1]!);
        if (d?.file !== m[2]) fail(`says "${m[1]}" is ${m[2]}, but it is ${d?.file ?? 'nowhere'}`);
      }
      if (index) continue;
      for (const m of p.matchAll(/\*\*([^*]+)\*\*/g)) {
        const panel = m[1]!;
        const dashboard = /\((MDP \/ [^)]*)\)/.exec(p.slice(m.index! + m[0].length))?.[1];
        if (!dashboard) fail(`**${panel}** is not followed by its dashboard, (${titles.join(' | ')})`);
        else if (!w.dashboards.get(dashboard)?.panels.has(panel))
          fail(`the panel "${panel}" is not on the dashboard "${dashboard}"`);
      }
    }

    // Alerts named, and links to runbooks and their anchors.
    for (const m of doc.prose.matchAll(/\bMdp[A-Z]\w*/g))
      if (!w.alertNames.has(m[0])) fail(`names the alert ${m[0]}, which no rule defines`);
    for (const m of doc.prose.matchAll(/\]\(([^)\s]*)\)/g)) {
      const target = m[1]!;
      if (/^[a-z]+:/.test(target)) continue;
      const [file, anchor] = target.split('#') as [string, string | undefined];
      const repoPath = file ? normalize(join(dirname(path), file)) : path;
      const linked = file ? w.readDoc(repoPath) : text;
      if (linked === undefined) fail(`links to ${target}, but ${repoPath} does not exist`);
      else if (
        anchor &&
        repoPath.endsWith('.md') &&
        !(file ? parseMarkdown(linked).headings : headings).some((h) => h.anchor === anchor)
      )
        fail(`links to ${target}, but ${repoPath} has no heading #${anchor}`);
    }

    // Commands: make targets, admin tools, the chart's workloads, labels and values.
    const checkTool = (svc: string, args: string, code: string) => {
      const commands = w.adminCommands.get(svc);
      if (!commands) return fail(`\`${code}\` runs ${svc}'s admin tool, which has no commands`);
      const words: string[] = [];
      for (const t of args.trim().split(/\s+/)) {
        if (!/^[a-z][a-z-]*$/.test(t)) break;
        words.push(t);
      }
      if (words.length > 0 && !commands.some((c) => c.every((x, i) => words[i] === x)))
        fail(
          `\`${code}\` runs "${words.join(' ')}", not a command of services/${svc}/src/cli.ts (${commands.map((c) => c.join(' ')).join(', ')})`,
        );
    };
    for (const { code: raw, context } of codePieces(doc)) {
      const code = raw.trim();
      for (const m of code.matchAll(/(?:^|[\s;&|(])make\s+([A-Za-z][\w-]*)/g))
        if (!w.makeTargets.has(m[1]!)) fail(`\`${code}\` runs make ${m[1]}, not a Makefile target`);
      for (const m of code.matchAll(/make admin ARGS="([^"]*)"/g)) checkTool('auth', m[1]!, code);
      for (const m of code.matchAll(/services\/([\w-]+)\/src\/cli\.ts\b(.*)/g)) {
        if (!existsSync(join(ROOT, `services/${m[1]}/src/cli.ts`)))
          fail(`\`${code}\` runs services/${m[1]}/src/cli.ts, which does not exist`);
        else if (w.adminCommands.has(m[1]!)) checkTool(m[1]!, m[2]!, code);
      }
      for (const m of code.matchAll(/node dist\/cli\.js\b(.*)/g)) {
        const named = (s: string) => services.find((svc) => new RegExp(`\\b${RELEASE}-${svc}\\b`).test(s));
        const svc = named(code) ?? named(context);
        if (!svc) fail(`\`${code}\`: name the pod (${RELEASE}-<service>) whose tool it runs`);
        else checkTool(svc, m[1]!, code);
      }
      for (const m of code.matchAll(/\b([a-z]+)\/(mdp-[a-z-]*[a-z])\b/g)) {
        const kind = KIND_ALIASES[m[1]!];
        if (kind && w.workloads.get(m[2]!) !== kind)
          fail(`\`${code}\` names ${m[1]}/${m[2]}, which the chart does not make (release ${RELEASE})`);
      }
      for (const m of code.matchAll(/(?<![\w/-])(mdp-[a-z-]*[a-z])-\d+\b/g))
        if (w.workloads.get(m[1]!) !== 'statefulset')
          fail(`\`${code}\` names a pod of ${m[1]}, which is no StatefulSet of the chart`);
      for (const m of code.matchAll(/app\.kubernetes\.io\/component=([a-z-]+)/g))
        if (!components.has(m[1]!)) fail(`\`${code}\` selects component ${m[1]}, which the chart has not`);
      for (const m of code.matchAll(/--set\s+([A-Za-z][\w.]*)=/g))
        if (!valueAt(w.values, m[1]!).found) fail(`\`${code}\` sets ${m[1]}, not a value of the chart`);
      // A chart value on its own, e.g. `quotaLedger.usageLog.sealGraceMinutes`.
      const top = /^([a-z][A-Za-z]*)\.[A-Za-z][\w.]*$/.exec(code);
      if (top && valueAt(w.values, top[1]!).found && !valueAt(w.values, code).found)
        fail(`names the chart value ${code}, which values.yaml does not have`);
    }
  }
  return failures;
}

// ---------------------------------------------------------------------------------------------------

const runbookFiles = readdirSync(join(ROOT, RUNBOOKS))
  .filter((f) => f.endsWith('.md'))
  .map((f) => `${RUNBOOKS}/${f}`);

describe('runbooks', () => {
  it('every alert has a runbook_url into docs/runbooks/, at a section with the five parts', () => {
    const failures: string[] = [];
    expect(alerts.length).toBeGreaterThanOrEqual(20);
    for (const a of alerts) {
      const url = a.runbookUrl;
      if (!url) {
        failures.push(`${a.name}: no runbook_url annotation`);
        continue;
      }
      if (!url.startsWith(URL_BASE)) {
        failures.push(
          `${a.name}: runbook_url ${url} does not start with ${URL_BASE} (charts/mdp/Chart.yaml home)`,
        );
        continue;
      }
      const [file, anchor] = url.slice(URL_BASE.length).split('#') as [string, string | undefined];
      const path = `${RUNBOOKS}/${file}`;
      if (!existsSync(join(ROOT, path))) {
        failures.push(`${a.name}: runbook_url names ${path}, which does not exist`);
        continue;
      }
      const doc = parseMarkdown(read(path));
      const heading = anchor
        ? doc.headings.find((h) => h.anchor === anchor)
        : doc.headings.find((h) => h.level === 1);
      if (!heading) {
        failures.push(`${a.name}: ${path} has no heading #${anchor}`);
        continue;
      }
      if (heading.text !== a.name)
        failures.push(
          `${a.name}: runbook_url points at "${heading.text}" in ${path}, not a section of its own`,
        );
      const { body, subheadings } = sectionOf(doc, heading);
      for (const part of PARTS) {
        const h = subheadings.find((s) => s.level === heading.level + 1 && s.text === part);
        if (!h) failures.push(`${a.name}: ${path}#${heading.anchor} lacks the part "### ${part}"`);
        else if (!sectionOf(doc, h).body.trim())
          failures.push(`${a.name}: ${path}#${h.anchor} "${part}" is empty`);
      }
      if (!body.trim()) failures.push(`${a.name}: ${path}#${heading.anchor} is empty`);
    }
    expect(failures).toEqual([]);
  });

  it('the index lists every alert with its severity and runbook, and nothing else', () => {
    const rows = new Map(
      [...read(INDEX).matchAll(/^\|\s*(Mdp\w+)\s*\|\s*(\w+)\s*\|\s*\[[^\]]*\]\(([^)]+)\)\s*\|$/gm)].map(
        (m) => [m[1]!, { severity: m[2]!, link: m[3]! }],
      ),
    );
    const failures: string[] = [];
    for (const a of alerts) {
      const row = rows.get(a.name);
      if (!row) failures.push(`${INDEX}: no row for ${a.name}`);
      else {
        if (row.severity !== a.severity)
          failures.push(`${INDEX}: ${a.name} is listed as ${row.severity}, the rule says ${a.severity}`);
        if (a.runbookUrl && `${URL_BASE}${row.link}` !== a.runbookUrl)
          failures.push(`${INDEX}: ${a.name} links to ${row.link}, its runbook_url to ${a.runbookUrl}`);
      }
    }
    for (const name of rows.keys())
      if (!alerts.some((a) => a.name === name))
        failures.push(`${INDEX}: lists ${name}, which no rule defines`);
    expect(failures).toEqual([]);
  });

  it('every metric, panel, make target, admin command, workload, value, alert and link a runbook names exists', async () => {
    const w = await world();
    const failures = runbookFiles.flatMap((path) => checkRunbook(path, read(path), w, path === INDEX));
    expect(failures).toEqual([]);
  });

  it('the checks refuse a runbook that names what does not exist', async () => {
    const w = await world();
    const bad = [
      '# Bad',
      '',
      '## MdpNoSuchAlert',
      '',
      'Watch ledger_no_such_metric, http_request_duration_seconds_bucket, auth_circuit_open_bucket and',
      'mdp:no_such:rule; **No such panel** (MDP / Ledger health) and **Max consumer lag** (MDP / Nowhere);',
      '**A panel without its dashboard**. See [elsewhere](ledger.md#no-such-heading) and [gone](gone.md).',
      '',
      '```sh',
      'make no-such-target',
      'kubectl -n mdp exec mdp-quota-ledger-0 -c quota-ledger -- node dist/cli.js archive check 2026-01-01',
      'npx tsx services/auth/src/cli.ts token burn <id>',
      'kubectl -n mdp rollout restart deployment/mdp-quota-ledger',
      'kubectl -n mdp get pods -l app.kubernetes.io/component=ledger',
      'helm upgrade mdp charts/mdp -n mdp --reuse-values --set quotaLedger.noSuchValue=1',
      '```',
      '',
      'Raise `quotaLedger.usageLog.noSuchSetting`.',
    ].join('\n');
    const failures = checkRunbook(`${RUNBOOKS}/bad.md`, bad, w).join('\n');
    for (const expected of [
      'the metric ledger_no_such_metric',
      'the metric auth_circuit_open_bucket',
      'the recording rule mdp:no_such:rule',
      'the panel "No such panel" is not on the dashboard "MDP / Ledger health"',
      'the dashboard "MDP / Nowhere"',
      '**A panel without its dashboard** is not followed by its dashboard',
      'the alert MdpNoSuchAlert',
      'has no heading #no-such-heading',
      'gone.md does not exist',
      'make no-such-target',
      'runs "archive check", not a command of services/quota-ledger/src/cli.ts',
      'runs "token burn", not a command of services/auth/src/cli.ts',
      'deployment/mdp-quota-ledger, which the chart does not make',
      'selects component ledger',
      'sets quotaLedger.noSuchValue',
      'the chart value quotaLedger.usageLog.noSuchSetting',
    ])
      expect(failures).toContain(expected);
    expect(failures).not.toContain('http_request_duration_seconds_bucket');
  });
});
