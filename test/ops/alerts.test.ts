/**
 * The promtool unit tests of deploy/prometheus/tests/ against the alerts of
 * deploy/prometheus/rules/mdp.yaml, with no Prometheus: every alert has a case that expects it to fire
 * and one that expects it quiet, no case names an alert the rules do not define (promtool would pass a
 * quiet expectation of a misspelt alert), and what a firing case expects names the process: its pod
 * (and a ledger alert its shard), or for the few alerts that are about no single process, what they
 * name instead. test/ops/dashboards.int.test.ts runs promtool on the same files.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { metricNames, ROOT, readYaml } from './lib.ts';

const RULES = 'deploy/prometheus/rules/mdp.yaml';
const TESTS = 'deploy/prometheus/tests';

interface Rule {
  alert?: string;
  record?: string;
  expr: string;
  annotations?: Record<string, string>;
}

interface Expectation {
  file: string;
  test: string;
  evalTime: string;
  alertname: string;
  /** The labels of each alert the case expects; empty: expected quiet. */
  firing: Record<string, string>[];
}

/**
 * Alerts about no single process, with what they name instead. The fleet-wide ones name in their
 * description the gateway pods answering the most errors (a template query over `pod`).
 */
const FLEET = [
  'MdpApiErrorBudgetBurnFast',
  'MdpApiErrorBudgetBurnSlow',
  'MdpServiceUnavailableBurst',
  // Names every gateway and its map: the fault is the disagreement, not one gateway.
  'MdpGatewayShardMapsDiffer',
  // Leases every shard writes off: names the gateways started lately and those whose streams broke.
  'MdpLedgerLeasesWrittenOff',
];
/**
 * The daily import's (a CronJob whose pod is gone when they fire), a service with no pod at all, a
 * ledger shard no gateway reaches (named by its `shard`: its pod may not exist), and one the gateways
 * time as slow (their metric, summed over the gateways: named by its `shard`, its pod by the description).
 */
const NO_POD = [
  'MdpDataImportBehind',
  'MdpDataImportNotSucceeding',
  'MdpDataImportFailed',
  'MdpDataImportNotReporting',
  'MdpServiceMissing',
  'MdpLedgerShardUnreachable',
  'MdpLedgerShardSlow',
];

function expectations(files: Map<string, any>): Expectation[] {
  const out: Expectation[] = [];
  for (const [file, doc] of files)
    for (const test of doc.tests ?? [])
      for (const t of test.alert_rule_test ?? [])
        out.push({
          file,
          test: test.name,
          evalTime: String(t.eval_time),
          alertname: t.alertname,
          firing: (t.exp_alerts ?? []).map((a: any) => a.exp_labels ?? {}),
        });
  return out;
}

/** A ledger alert reads the ledger's metrics (or a rule recorded from them). */
const isLedgerAlert = (rule: Rule) =>
  metricNames(rule.expr).some((n) => n.startsWith('ledger_') || n.startsWith('mdp:ledger_'));

/** What is wrong with the coverage of `rules` by the promtool test files `files` (name → parsed YAML). */
function coverageFailures(rules: Rule[], files: Map<string, any>): string[] {
  const failures: string[] = [];
  const all = expectations(files);
  const alerts = rules.filter((r) => r.alert);
  const names = new Set(alerts.map((r) => r.alert!));
  for (const [file, doc] of files)
    if (!(doc.rule_files ?? []).includes('../rules/mdp.yaml'))
      failures.push(`${file}: does not load ../rules/mdp.yaml`);
  for (const e of all)
    if (!names.has(e.alertname))
      failures.push(`${e.file} "${e.test}" at ${e.evalTime}: ${e.alertname} is no alert of ${RULES}`);
  for (const rule of alerts) {
    const name = rule.alert!;
    const mine = all.filter((e) => e.alertname === name);
    if (!mine.some((e) => e.firing.length > 0)) failures.push(`${name}: no promtool case expects it to fire`);
    if (!mine.some((e) => e.firing.length === 0)) failures.push(`${name}: no promtool case expects it quiet`);
    const fired = mine.flatMap((e) => e.firing.map((labels) => ({ e, labels })));
    if (FLEET.includes(name)) {
      if (!/\.Labels\.pod\b/.test(rule.annotations?.description ?? ''))
        failures.push(`${name}: fleet-wide, but its description names no pod`);
      continue;
    }
    if (NO_POD.includes(name)) continue;
    const ledger = isLedgerAlert(rule);
    for (const { e, labels } of fired) {
      const at = `${name} in ${e.file} "${e.test}" at ${e.evalTime}`;
      // An expectation without `instance` is an absence leg (no process to name): its namespace.
      if (!('instance' in labels)) {
        if (!('namespace' in labels)) failures.push(`${at}: names neither a pod nor a namespace`);
        continue;
      }
      if (!('pod' in labels)) failures.push(`${at}: the page names no pod`);
      if (ledger && !('shard' in labels)) failures.push(`${at}: a ledger alert whose page names no shard`);
    }
    if (fired.length > 0 && !fired.some(({ labels }) => 'pod' in labels))
      failures.push(`${name}: no firing case names a pod`);
  }
  return failures;
}

interface RelabelConfig {
  source_labels?: string[];
  separator?: string;
  regex?: string;
  replacement?: string;
  target_label?: string;
  action?: string;
}

/**
 * Prometheus's relabelling, for the actions the scrape configurations here use (replace, keep, drop,
 * labeldrop); null when the target or series is dropped. Regexes are anchored, as Prometheus's are.
 */
function relabel(labels: Record<string, string>, configs: RelabelConfig[]): Record<string, string> | null {
  let out: Record<string, string> = { ...labels };
  for (const c of configs) {
    const action = c.action ?? 'replace';
    const regex = new RegExp(`^(?:${c.regex ?? '(.*)'})$`);
    if (action === 'labeldrop') {
      out = Object.fromEntries(Object.entries(out).filter(([k]) => !regex.test(k)));
      continue;
    }
    const value = (c.source_labels ?? []).map((l) => out[l] ?? '').join(c.separator ?? ';');
    const m = regex.exec(value);
    if (action === 'keep' && !m) return null;
    if (action === 'drop' && m) return null;
    if (action !== 'replace' || !m) continue;
    const result = (c.replacement ?? '$1').replace(
      /\$(\d+)|\$\{(\d+)\}/g,
      (_, a, b) => m[Number(a ?? b)] ?? '',
    );
    if (result === '') delete out[c.target_label!];
    else out[c.target_label!] = result;
  }
  return out;
}

/** A series as Prometheus stores it: the target's labels win, the exposition's conflicting ones renamed. */
function scraped(target: Record<string, string>, exposed: Record<string, string>, job: any) {
  const merged: Record<string, string> = {};
  for (const [k, v] of Object.entries(exposed)) merged[k in target ? `exported_${k}` : k] = v;
  const visible = Object.fromEntries(Object.entries(target).filter(([k]) => !k.startsWith('__')));
  return relabel({ ...merged, ...visible }, job.metric_relabel_configs ?? []);
}

const rules: Rule[] = readYaml(RULES).groups.flatMap((g: any) => g.rules);
const testFiles = new Map<string, any>(
  readdirSync(join(ROOT, TESTS))
    .filter((f) => f.endsWith('.test.yaml'))
    .map((f) => [`${TESTS}/${f}`, readYaml(`${TESTS}/${f}`)]),
);

describe('promtool cases of the alerts', () => {
  it('every alert fires in some case and is quiet in another, and each page names its pod and shard', () => {
    expect(rules.filter((r) => r.alert).length).toBeGreaterThanOrEqual(29);
    expect(coverageFailures(rules, testFiles)).toEqual([]);
  });

  it('the exemptions name alerts that exist', () => {
    const names = new Set(rules.map((r) => r.alert));
    expect([...FLEET, ...NO_POD].filter((n) => !names.has(n))).toEqual([]);
  });

  it('the check refuses an untested alert, a one-sided one, a misspelt one and a page without its pod', () => {
    const synthetic: Rule[] = [
      { alert: 'MdpUntested', expr: 'up == 0' },
      { alert: 'MdpOnlyQuiet', expr: 'up == 0' },
      { alert: 'MdpNoPod', expr: 'max by (instance) (up) == 0' },
      { alert: 'MdpLedgerNoShard', expr: 'max by (namespace, pod, instance) (ledger_holds_in_flight) > 1' },
      { alert: 'MdpApiErrorBudgetBurnFast', expr: 'vector(1)', annotations: { description: 'no pods' } },
    ];
    const quiet = (alertname: string) => ({ eval_time: '1m', alertname, exp_alerts: [] });
    const firing = (alertname: string, labels: Record<string, string>) => ({
      eval_time: '5m',
      alertname,
      exp_alerts: [{ exp_labels: labels }],
    });
    const files = new Map<string, any>([
      [
        'bad.test.yaml',
        {
          rule_files: ['../rules/mdp.yaml'],
          tests: [
            {
              name: 'synthetic',
              alert_rule_test: [
                quiet('MdpOnlyQuiet'),
                quiet('MdpNoPod'),
                firing('MdpNoPod', { severity: 'page', instance: '10.0.0.1:9100' }),
                quiet('MdpLedgerNoShard'),
                firing('MdpLedgerNoShard', { severity: 'page', instance: 'x', pod: 'mdp-quota-ledger-1' }),
                quiet('MdpApiErrorBudgetBurnFast'),
                firing('MdpApiErrorBudgetBurnFast', { severity: 'page' }),
                quiet('MdpMisspelt'),
              ],
            },
          ],
        },
      ],
      ['other.test.yaml', { rule_files: ['elsewhere.yaml'], tests: [] }],
    ]);
    const failures = coverageFailures(synthetic, files).join('\n');
    for (const expected of [
      'MdpUntested: no promtool case expects it to fire',
      'MdpUntested: no promtool case expects it quiet',
      'MdpOnlyQuiet: no promtool case expects it to fire',
      'MdpNoPod in bad.test.yaml "synthetic" at 5m: the page names no pod',
      'MdpLedgerNoShard in bad.test.yaml "synthetic" at 5m: a ledger alert whose page names no shard',
      'MdpApiErrorBudgetBurnFast: fleet-wide, but its description names no pod',
      'MdpMisspelt is no alert of',
      'other.test.yaml: does not load ../rules/mdp.yaml',
    ])
      expect(failures).toContain(expected);
  });

  it('the Kubernetes scrape gives each series its pod and namespace, and a ledger pod’s series its shard, once', () => {
    const job = readYaml('deploy/prometheus/kubernetes-scrape.yaml').scrape_configs.find(
      (j: any) => j.job_name === 'mdp',
    );
    const pod = (name: string, component: string, port: string) => ({
      __address__: '10.0.2.7',
      __meta_kubernetes_namespace: 'mdp',
      __meta_kubernetes_pod_name: name,
      __meta_kubernetes_pod_phase: 'Running',
      __meta_kubernetes_pod_label_app_kubernetes_io_part_of: 'mdp',
      __meta_kubernetes_pod_label_app_kubernetes_io_component: component,
      __meta_kubernetes_pod_label_app_kubernetes_io_instance: 'mdp',
      __meta_kubernetes_pod_annotation_prometheus_io_scrape: 'true',
      __meta_kubernetes_pod_annotation_prometheus_io_port: port,
      __meta_kubernetes_pod_annotation_prometheus_io_path: '/metrics',
    });
    const ledger = relabel(
      { job: 'mdp', ...pod('mdp-quota-ledger-12', 'quota-ledger', '9102') },
      job.relabel_configs,
    );
    expect(ledger).toMatchObject({
      __address__: '10.0.2.7:9102',
      namespace: 'mdp',
      pod: 'mdp-quota-ledger-12',
      component: 'quota-ledger',
      shard: '12',
    });
    // The consumer gauges export `shard` themselves: one `shard` on the stored series.
    expect(
      scraped(
        ledger!,
        { __name__: 'ledger_consumer_pending_messages', service: 'quota-ledger', shard: '12' },
        job,
      ),
    ).toEqual({
      __name__: 'ledger_consumer_pending_messages',
      service: 'quota-ledger',
      job: 'mdp',
      namespace: 'mdp',
      pod: 'mdp-quota-ledger-12',
      component: 'quota-ledger',
      release: 'mdp',
      shard: '12',
    });
    const gateway = relabel(
      { job: 'mdp', ...pod('mdp-gateway-7c9d5-x2k79', 'gateway', '9100') },
      job.relabel_configs,
    );
    expect(gateway).toMatchObject({ pod: 'mdp-gateway-7c9d5-x2k79', namespace: 'mdp' });
    expect(gateway).not.toHaveProperty('shard');
    const pending = {
      ...pod('mdp-quota-ledger-0', 'quota-ledger', '9102'),
      __meta_kubernetes_pod_phase: 'Pending',
    };
    expect(relabel({ job: 'mdp', ...pending }, job.relabel_configs)).toBeNull();
  });
});
