import { Gauge, Pushgateway, Registry } from 'prom-client';
import type { FolderReport } from './import-folder.ts';

const JOB = 'mdp-data-import';

export interface Freshness {
  /** The latest trading day in the prices after the run (a day number: days since 1970-01-01), if any. */
  lastTradingDay: number | undefined;
  sessionsBehind: number;
}

type GaugeOf = (name: string, help: string, labelNames?: string[]) => Gauge;

function registryWithGauges(): { registry: Registry; gauge: GaugeOf } {
  const registry = new Registry();
  return {
    registry,
    gauge: (name, help, labelNames = []) => new Gauge({ name, help, labelNames, registers: [registry] }),
  };
}

/** What every run reports, even one that found no folder to import: when it ran, how fresh the prices are. */
function setFreshness(gauge: GaugeOf, freshness: Freshness, nowMs: number): void {
  gauge('mdp_data_import_last_run_timestamp_seconds', 'When the last import run ended').set(nowMs / 1000);
  gauge(
    'mdp_data_import_last_trading_day_timestamp_seconds',
    'Start (00:00 UTC) of the latest trading day in the prices after the last run; NaN when none',
  ).set(freshness.lastTradingDay === undefined ? Number.NaN : freshness.lastTradingDay * 86_400);
  gauge(
    'mdp_data_import_sessions_behind',
    'Completed NSE sessions missing from the prices after the last run',
  ).set(freshness.sessionsBehind);
}

/** A run that had nothing to import (the day's folder has not arrived): freshness only, no success. */
export function missedRunMetrics(freshness: Freshness, nowMs: number): Registry {
  const { registry, gauge } = registryWithGauges();
  setFreshness(gauge, freshness, nowMs);
  return registry;
}

/** The run's metrics in a registry of their own (a job has no /metrics to be scraped). */
export function runMetrics(report: FolderReport, freshness: Freshness, nowMs: number): Registry {
  const { registry, gauge } = registryWithGauges();
  setFreshness(gauge, freshness, nowMs);
  if (report.failed.length === 0)
    gauge(
      'mdp_data_import_last_success_timestamp_seconds',
      'When an import run last ended with no kind failed',
    ).set(nowMs / 1000);
  gauge('mdp_data_import_duration_seconds', 'How long the last import run took').set(report.seconds);
  gauge('mdp_data_import_failed_kinds', 'Kinds of file the last run could not import (a malformed file)').set(
    report.failed.length,
  );
  const files = gauge('mdp_data_import_files', 'Files of the last run, recognised or not', ['outcome']);
  files.set(
    { outcome: 'recognised' },
    report.kinds.reduce((a, k) => a + k.files.length, 0),
  );
  files.set({ outcome: 'unrecognised' }, report.unrecognised.length);
  const rows = gauge('mdp_data_import_rows', 'Rows of the last run by kind, loaded or rejected', [
    'kind',
    'outcome',
  ]);
  for (const k of report.kinds) {
    rows.set({ kind: k.kind, outcome: 'loaded' }, k.loaded);
    rows.set({ kind: k.kind, outcome: 'rejected' }, k.rejected);
  }
  return registry;
}

/**
 * Pushes to a Prometheus Pushgateway with POST semantics (pushAdd): metrics this run did not set
 * (the success time after a failed run) keep their previous value.
 */
export async function pushMetrics(url: string, registry: Registry): Promise<void> {
  await new Pushgateway(url, { timeout: 10_000 }, registry).pushAdd({ jobName: JOB });
}
