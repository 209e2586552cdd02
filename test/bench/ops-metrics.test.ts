import { createRegistry, EVENT_LOOP_RESOLUTION_MS } from '@mdp/telemetry';
import { describe, expect, it } from 'vitest';
import {
  delayMs,
  gaugeValue,
  gcPauseMs,
  histogramBuckets,
  majorCollections,
  quantileBetween,
} from '../../bench/ops-metrics.ts';

describe('event-loop delay read from a service metrics page (bench)', () => {
  it("reads a labelled gauge and takes the monitor's sampling interval off", () => {
    const reading = (delayMs: number) => (EVENT_LOOP_RESOLUTION_MS + delayMs) / 1000;
    const page = [
      '# TYPE nodejs_eventloop_lag_p99_seconds gauge',
      `nodejs_eventloop_lag_p99_seconds{service="gateway"} ${reading(4.3)}`,
      `nodejs_eventloop_lag_max_seconds{service="gateway"} ${reading(6.9)}`,
    ].join('\n');
    expect(delayMs(page, 'nodejs_eventloop_lag_p99_seconds')).toBeCloseTo(4.3, 6);
    expect(delayMs(page, 'nodejs_eventloop_lag_max_seconds')).toBeCloseTo(6.9, 6);
    expect(delayMs(page, 'nodejs_eventloop_lag_p50_seconds')).toBeNaN();
  });

  it('reads a gauge as it is, and NaN when unset or absent', () => {
    const page = [
      'equities_data_last_session_timestamp_seconds{service="equities-data"} NaN',
      'equities_data_sessions_behind{service="equities-data"} 0',
    ].join('\n');
    expect(gaugeValue(page, 'equities_data_last_session_timestamp_seconds')).toBeNaN();
    expect(gaugeValue(page, 'equities_data_sessions_behind')).toBe(0);
    expect(gaugeValue(page, 'equities_data_sessions')).toBeNaN();
  });

  it('counts major collections from the GC histogram', () => {
    const page = [
      'nodejs_gc_duration_seconds_count{kind="minor",service="equities-data"} 120',
      'nodejs_gc_duration_seconds_count{kind="major",service="equities-data"} 7',
    ].join('\n');
    expect(majorCollections(page)).toBe(7);
    expect(majorCollections('nodejs_heap_size_used_bytes 1')).toBeNaN();
  });

  it('sums the GC pauses of every kind, in ms', () => {
    const page = [
      'nodejs_gc_duration_seconds_sum{kind="minor",service="quota-ledger"} 0.352',
      'nodejs_gc_duration_seconds_sum{kind="major",service="quota-ledger"} 0.099',
      'nodejs_gc_duration_seconds_count{kind="major",service="quota-ledger"} 4',
    ].join('\n');
    expect(gcPauseMs(page)).toBeCloseTo(451, 6);
    expect(gcPauseMs('nodejs_heap_size_used_bytes 1')).toBeNaN();
  });

  it("finds the gauges in a real service registry's page", async () => {
    const registry = createRegistry('bench-test');
    await new Promise((r) => setTimeout(r, 100));
    const value = delayMs(await registry.metrics(), 'nodejs_eventloop_lag_max_seconds');
    expect(Number.isFinite(value)).toBe(true);
    expect(value).toBeGreaterThanOrEqual(0);
  });
});

describe("a histogram's quantiles between two readings (bench)", () => {
  const page = (counts: number[]) =>
    ['0.002', '0.004', '0.01', '+Inf']
      .flatMap((le, i) => [
        `w_bucket{le="${le}",shard="0",service="gateway"} ${counts[i]}`,
        `w_bucket{le="${le}",shard="1",service="gateway"} 1`,
      ])
      .join('\n');

  it('sums the series of every label set, bound by bound', () => {
    const buckets = histogramBuckets(page([4, 6, 9, 10]), 'w');
    expect([...buckets]).toEqual([
      [0.002, 5],
      [0.004, 7],
      [0.01, 10],
      [Number.POSITIVE_INFINITY, 11],
    ]);
    expect(histogramBuckets(page([1, 1, 1, 1]), 'v').size).toBe(0);
  });

  it('reads only what was observed in between, interpolated within a bucket', () => {
    const before = histogramBuckets(page([4, 6, 9, 10]), 'w');
    // In between: 10 observations, 2 up to 2 ms, 2 more up to 4 ms, 6 more up to 10 ms.
    const after = histogramBuckets(page([6, 10, 19, 20]), 'w');
    expect(quantileBetween(before, after, 0.2)).toBeCloseTo(0.002, 9);
    expect(quantileBetween(before, after, 0.5)).toBeCloseTo(0.005, 9);
    expect(quantileBetween(before, after, 0.9)).toBeCloseTo(0.009, 9);
  });

  it('says the highest bound when the quantile is past it, and NaN when nothing was observed', () => {
    const before = histogramBuckets(page([0, 0, 0, 0]), 'w');
    const after = histogramBuckets(page([0, 0, 0, 5]), 'w');
    expect(quantileBetween(before, after, 0.5)).toBe(0.01);
    expect(quantileBetween(before, before, 0.5)).toBeNaN();
  });
});
