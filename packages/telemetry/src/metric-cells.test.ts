import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { CellCounter, CellHistogram } from './metric-cells.ts';

// What a scrape reads must not depend on which way a series was updated: each case feeds the same
// updates to a cell metric and to prom-client's own, each in a registry of its own, and compares the
// exposition text line for line.

const BUCKETS = [0.001, 0.01, 0.1, 1];
const OBSERVED = [0.0004, 0.001, 0.003, 0.05, 0.05, 0.7, 3, 0.0099];

function registries() {
  const cells = new Registry();
  const plain = new Registry();
  cells.setDefaultLabels({ service: 'test' });
  plain.setDefaultLabels({ service: 'test' });
  return { cells, plain };
}

describe('CellCounter', () => {
  it('exposes what a prom-client counter given the same increments exposes', async () => {
    const r = registries();
    const config = { name: 'requests_total', help: 'h', labelNames: ['route', 'status', 'code'] as const };
    const cells = new CellCounter({ ...config, registers: [r.cells] });
    const plain = new Counter({ ...config, registers: [r.plain] });
    const quote = cells.cell('getStockQuote', 200, '');
    for (let i = 0; i < 5; i++) quote.inc();
    cells.cell('getStockQuote', 404, 'unknown_symbol').inc(2);
    // The same label values find the same cell.
    cells.cell('getStockQuote', 200, '').inc(3);
    plain.inc({ route: 'getStockQuote', status: '200', code: '' }, 8);
    plain.inc({ route: 'getStockQuote', status: '404', code: 'unknown_symbol' }, 2);
    // A label set with no cell is counted the ordinary way, beside the cells.
    cells.inc({ route: 'search', status: '200', code: '' }, 4);
    plain.inc({ route: 'search', status: '200', code: '' }, 4);
    expect(sorted(await r.cells.metrics())).toEqual(sorted(await r.plain.metrics()));
    expect(await r.cells.metrics()).toContain(
      'requests_total{route="getStockQuote",status="200",code="",service="test"} 8',
    );
  });

  it('reads zero after a reset, and counts on from there', async () => {
    const r = registries();
    const cells = new CellCounter({ name: 'c', help: 'h', labelNames: ['result'], registers: [r.cells] });
    const hit = cells.cell('hit');
    hit.inc(7);
    cells.reset();
    expect(await r.cells.metrics()).toContain('c{result="hit",service="test"} 0');
    hit.inc();
    expect(await r.cells.metrics()).toContain('c{result="hit",service="test"} 1');
  });

  it('refuses label values that do not match its label names', () => {
    const cells = new CellCounter({ name: 'c', help: 'h', labelNames: ['a', 'b'], registers: [] });
    expect(() => cells.cell('only-one')).toThrow('expected 2 label values, got 1');
  });
});

describe('CellHistogram', () => {
  it('exposes what a prom-client histogram given the same observations exposes', async () => {
    const r = registries();
    const config = {
      name: 'duration_seconds',
      help: 'h',
      labelNames: ['route', 'status'] as const,
      buckets: BUCKETS,
    };
    const cells = new CellHistogram({ ...config, registers: [r.cells] });
    const plain = new Histogram({ ...config, registers: [r.plain] });
    for (const v of OBSERVED) {
      cells.cell('getStockQuote', 200).observe(v);
      plain.observe({ route: 'getStockQuote', status: '200' }, v);
    }
    cells.cell('search', 503).observe(0.2);
    plain.observe({ route: 'search', status: '503' }, 0.2);
    const text = await r.cells.metrics();
    expect(sorted(text)).toEqual(sorted(await r.plain.metrics()));
    // Every bucket is cumulative; the +Inf one holds the 3 s answer the last bound does not.
    expect(text).toContain(
      'duration_seconds_bucket{le="1",service="test",route="getStockQuote",status="200"} 7',
    );
    expect(text).toContain(
      'duration_seconds_bucket{le="+Inf",service="test",route="getStockQuote",status="200"} 8',
    );
  });

  it('reads zero after a reset', async () => {
    const r = registries();
    const cells = new CellHistogram({
      name: 'h',
      help: 'h',
      labelNames: ['x'],
      buckets: BUCKETS,
      registers: [r.cells],
    });
    const cell = cells.cell('a');
    cell.observe(0.05);
    cells.reset();
    const text = await r.cells.metrics();
    expect(text).toContain('h_count{service="test",x="a"} 0');
    expect(text).toContain('h_bucket{le="0.1",service="test",x="a"} 0');
  });
});

/** Exposition lines in a stable order (series appear in the order their first update made them). */
function sorted(text: string): string[] {
  return text.split('\n').sort();
}
