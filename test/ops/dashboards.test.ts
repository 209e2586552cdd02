/**
 * The dashboard checks of test/ops/dashboards.ts, with no Prometheus: each refuses the panel it is for
 * (the panels seen on 2026-11-28, issue 51) and accepts its fix, and the dashboards of
 * deploy/grafana/dashboards/ pass those that need no metrics (test/ops/dashboards.int.test.ts adds the
 * labels each metric really has, and what each query really draws).
 */
import { EVENT_LOOP_RESOLUTION_MS } from '@mdp/telemetry';
import { describe, expect, it } from 'vitest';
import {
  filterFailures,
  loadDashboards,
  measures,
  parseDashboard,
  quantileFailures,
  quantileGroupings,
  selectors,
  unitFailures,
  unlabelledFailures,
} from './dashboards.ts';

const target = (refId: string, expr: string, legendFormat?: string) => ({ refId, expr, legendFormat });

/** A dashboard of one route variable and the given panels. */
function dashboard(panels: any[], variables = [{ name: 'route', metric: 'http_requests_total' }]) {
  return parseDashboard('test.json', {
    title: 'MDP / Test',
    templating: {
      list: [
        { name: 'datasource', type: 'datasource', query: 'prometheus' },
        ...variables.map((v) => ({
          name: v.name,
          type: 'query',
          definition: `label_values(${v.metric}, ${v.name})`,
        })),
      ],
    },
    panels: [{ type: 'row', title: 'Row', panels }],
  });
}

const panel = (title: string, targets: any[], unit = 'short', overrides: any[] = []) => ({
  type: 'timeseries',
  title,
  targets,
  fieldConfig: { defaults: { unit }, overrides },
});

describe('PromQL pieces', () => {
  it('selectors: names and matchers, not functions, aggregations, label lists or strings', () => {
    const expr =
      'sum by (target, code) (rate(grpc_client_calls_total{service="gateway",code!~"OK|NOT_FOUND"}[5m])) ' +
      'or on (target) label_replace(0 * sum(rate(grpc_client_calls_total{service="gateway"}[5m])) by (target), "code", "none", "", "") ' +
      '+ time() - max(ledger_rebuild_check_timestamp_seconds offset 1m) > bool 1e3';
    expect(selectors(expr)).toEqual([
      {
        name: 'grpc_client_calls_total',
        matchers: [
          { label: 'service', op: '=', value: 'gateway' },
          { label: 'code', op: '!~', value: 'OK|NOT_FOUND' },
        ],
      },
      { name: 'grpc_client_calls_total', matchers: [{ label: 'service', op: '=', value: 'gateway' }] },
      { name: 'ledger_rebuild_check_timestamp_seconds', matchers: [] },
    ]);
    expect(selectors('mdp:http_5xx:ratio_rate5m').map((s) => s.name)).toEqual(['mdp:http_5xx:ratio_rate5m']);
  });

  it('quantile groupings and what a query measures', () => {
    expect(
      quantileGroupings(
        'histogram_quantile(0.5, sum by (le) (rate(a_seconds_bucket[5m]))) / histogram_quantile(0.99, sum(rate(a_seconds_bucket[5m])) by (kind, le))',
      ),
    ).toEqual(['(none)', 'kind']);
    expect(measures('histogram_quantile(0.99, sum by (le) (rate(a_seconds_bucket[5m])))')).toBe('seconds');
    expect(measures('time() - max(ledger_usage_upkeep_last_success_timestamp_seconds)')).toBe('seconds');
    expect(measures('max(nodejs_eventloop_lag_p99_seconds)')).toBe('seconds');
    expect(measures('sum(rate(a_seconds_sum[5m])) / sum(rate(a_seconds_count[5m]))')).toBe('seconds');
    expect(measures('max(ledger_usage_seal_lag_days)')).toBe('days');
    // Seconds of CPU or GC per second are not durations; a timestamp is not one either.
    expect(measures('rate(process_cpu_seconds_total[5m])')).toBeUndefined();
    expect(measures('rate(nodejs_gc_duration_seconds_sum[5m])')).toBeUndefined();
    expect(measures('max(ledger_rebuild_check_timestamp_seconds)')).toBeUndefined();
    expect(measures('changes(process_start_time_seconds[1h])')).toBeUndefined();
    expect(measures('time() - process_start_time_seconds')).toBe('seconds');
  });
});

describe('the checks refuse the panels seen on 2026-11-28 and accept their fixes', () => {
  it('a panel that ignores $route, a recording rule that summed route away, a filter on a label the metric lacks', () => {
    const d = dashboard([
      panel('Charged 200s / s', [target('A', 'sum(rate(gateway_settlements_total{kind="charged"}[5m]))')]),
      panel('5xx ratio against the error budget', [target('A', 'mdp:http_5xx:ratio_rate5m', '5m')]),
      panel('Requests by route', [
        target('A', 'sum by (route) (rate(http_requests_total{service="gateway",route=~"$route"}[5m]))'),
      ]),
      panel('Filtered on nothing', [
        // biome-ignore lint/suspicious/noTemplateCurlyInString: Grafana's ${route}, not JavaScript's
        target('A', 'sum(rate(gateway_settlements_total{route=~"${route}"}[5m]))'),
      ]),
    ]);
    const labels = new Map([
      ['http_requests_total', new Set(['route', 'status', 'service'])],
      ['gateway_settlements_total', new Set(['kind', 'outcome', 'service'])],
      ['mdp:http_5xx:ratio_rate5m', new Set<string>()],
    ]);
    expect(filterFailures(d, (m) => labels.get(m))).toEqual([
      'test.json "Charged 200s / s" A: gateway_settlements_total is not filtered by route=~"$route", which the dashboard shows',
      'test.json "Charged 200s / s" A: gateway_settlements_total has no label route, so the panel cannot honour $route',
      'test.json "5xx ratio against the error budget" A: mdp:http_5xx:ratio_rate5m is not filtered by route=~"$route", which the dashboard shows',
      'test.json "5xx ratio against the error budget" A: mdp:http_5xx:ratio_rate5m has no label route, so the panel cannot honour $route',
      'test.json "Filtered on nothing" A: gateway_settlements_total has no label route, so the panel cannot honour $route',
    ]);
    // Every variable, whatever its label.
    const saturation = dashboard(
      [panel('CPU', [target('A', 'sum by (instance) (rate(process_cpu_seconds_total[5m]))')])],
      [{ name: 'service', metric: 'process_start_time_seconds' }],
    );
    expect(filterFailures(saturation)).toEqual([
      'test.json "CPU" A: process_cpu_seconds_total is not filtered by service=~"$service", which the dashboard shows',
    ]);
    const unknown = parseDashboard('test.json', {
      templating: { list: [{ name: 'shard', type: 'custom', query: '0,1' }] },
      panels: [],
    });
    expect(filterFailures(unknown)).toEqual([
      'test.json: cannot tell which label $shard filters (define it as label_values(…, label))',
    ]);
  });

  it('or vector(0)', () => {
    const d = dashboard([
      panel('gRPC errors from the gateway', [
        target('A', 'sum by (target, code) (rate(grpc_client_calls_total{code!="OK"}[5m])) or vector(0)'),
      ]),
      panel('Settlement publish failures', [
        target(
          'A',
          'sum by (kind) (rate(gateway_settlements_total{outcome="failed"}[5m])) or on() vector(0)',
        ),
      ]),
      panel('Fixed', [
        target(
          'A',
          'sum by (kind) (rate(gateway_settlements_total{outcome="failed"}[5m])) or on (kind) 0 * sum by (kind) (rate(gateway_settlements_total[5m]))',
        ),
      ]),
    ]);
    expect(unlabelledFailures(d)).toEqual([
      'test.json "gRPC errors from the gateway" A: "or vector(…)" draws a series without labels; fall back on a zero per label (or on (…) 0 * …)',
      'test.json "Settlement publish failures" A: "or vector(…)" draws a series without labels; fall back on a zero per label (or on (…) 0 * …)',
    ]);
  });

  it('day counts in short, durations in short, and the unit of an override', () => {
    const d = dashboard([
      panel('Partition days ahead', [target('A', 'min(ledger_usage_partitions_ahead_days)')]),
      panel(
        'Slow',
        [target('A', 'histogram_quantile(0.99, sum by (le) (rate(a_seconds_bucket[5m])))')],
        'ms',
      ),
      panel(
        'Partitions',
        [
          target('A', 'max(ledger_usage_log_partitions)'),
          target('B', 'min(ledger_usage_partitions_ahead_days)'),
        ],
        'short',
        [{ matcher: { id: 'byFrameRefID', options: 'B' }, properties: [{ id: 'unit', value: 'd' }] }],
      ),
      panel('Since last upkeep', [target('A', 'time() - max(x_timestamp_seconds)')], 'dtdurations'),
      panel('Both', [target('A', 'max(a_days) * max(b_seconds)')], 'd'),
    ]);
    expect(unitFailures(d)).toEqual([
      'test.json "Partition days ahead" A: days shown in unit "short", not days ("d")',
      'test.json "Slow" A: seconds shown in unit "ms", not one that reads seconds (s, dtdurations, dthms, dtdhms, clocks)',
      'test.json "Both" A: mixes seconds and days in one query; give each its own',
    ]);
  });

  it('a p50 over all kinds next to a p99 per kind', () => {
    const p50 = (by: string) =>
      target(
        'A',
        `histogram_quantile(0.5, sum by (${by}) (rate(gateway_settlement_publish_seconds_bucket[5m])))`,
      );
    const p99 = (by: string) =>
      target(
        'B',
        `histogram_quantile(0.99, sum by (${by}) (rate(gateway_settlement_publish_seconds_bucket[5m])))`,
      );
    const d = dashboard([
      panel('Settlement publish latency', [p50('le'), p99('le, kind')], 's'),
      panel('Per kind', [p50('le, kind'), p99('kind, le')], 's'),
      panel('Overall', [p50('le'), p99('le')], 's'),
    ]);
    expect(quantileFailures(d)).toEqual([
      'test.json "Settlement publish latency": quantiles over different groupings: A by (none); B by kind',
    ]);
  });
});

describe('the dashboards of deploy/grafana/dashboards', () => {
  const all = loadDashboards();

  it('are all read, with their panels and variables', () => {
    expect(all.length).toBeGreaterThanOrEqual(5);
    expect(all.flatMap((d) => d.panels).length).toBeGreaterThan(50);
    expect(all.flatMap((d) => d.variables).map((v) => v.label)).toEqual(
      expect.arrayContaining(['route', 'service']),
    );
  });

  it('honour their filters, draw no unlabelled series, show durations and days in their units, group quantiles alike', () => {
    const failures = all.flatMap((d) => [
      ...filterFailures(d),
      ...unlabelledFailures(d),
      ...unitFailures(d),
      ...quantileFailures(d),
    ]);
    expect(failures).toEqual([]);
  });

  it("take the event-loop monitor's sampling interval off every lag they draw", () => {
    const lags = all
      .flatMap((d) => d.panels)
      .flatMap((p) => p.targets)
      .filter((t) => /nodejs_eventloop_lag_(?!seconds)/.test(t.expr));
    expect(lags.length).toBeGreaterThan(0);
    for (const t of lags) expect(t.expr).toContain(`) - ${EVENT_LOOP_RESOLUTION_MS / 1000}, 0)`);
  });
});
