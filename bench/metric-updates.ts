// `make bench`, part: what the gateway's per-request metric updates cost in this process, through
// prom-client's labelled `inc`/`observe` (label names sorted, joined and validated on every update) and
// through the cells of packages/telemetry (a series found by its label values, one Map a label). The two
// HTTP metrics a request updates, over three routes in turn; then the ledger's one update an admission
// (`ledger_admissions_total` by decision). Figures, not assertions.

import { CellCounter, httpServerMetrics, LATENCY_BUCKETS } from '@mdp/telemetry';
import { Counter, Histogram, Registry } from 'prom-client';
import { envInt } from './env.ts';

const UPDATES = envInt('BENCH_METRIC_UPDATES', 300_000);
const ROUNDS = envInt('BENCH_METRIC_ROUNDS', 4);
const ROUTES = ['getStockQuote', 'searchStocks', 'getPriceHistory'];

const registry = new Registry();
const cells = httpServerMetrics(registry);
const requests = new Counter({
  name: 'plain_requests_total',
  help: 'h',
  labelNames: ['route', 'method', 'status', 'code'],
  registers: [registry],
});
const duration = new Histogram({
  name: 'plain_duration_seconds',
  help: 'h',
  labelNames: ['route', 'method', 'status'],
  buckets: LATENCY_BUCKETS,
  registers: [registry],
});

const admissions = new Counter({
  name: 'plain_admissions_total',
  help: 'h',
  labelNames: ['decision'],
  registers: [registry],
});
const admissionCells = new CellCounter({
  name: 'cell_admissions_total',
  help: 'h',
  labelNames: ['decision'] as const,
  registers: [registry],
});
/** As the shard keeps them: one cell a decision, made at start. */
const admitted = admissionCells.cell('admitted');

function cpuUsPerRequest(update: (i: number) => void): number {
  const cpu = process.cpuUsage();
  for (let i = 0; i < UPDATES; i++) update(i);
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / UPDATES;
}
const plain = (i: number) => {
  const route = ROUTES[i % 3]!;
  const status = String(200);
  requests.inc({ route, method: 'GET', status, code: '' });
  duration.observe({ route, method: 'GET', status }, (i % 50) / 10_000);
};
const viaCells = (i: number) => {
  const route = ROUTES[i % 3]!;
  cells.requests.cell(route, 'GET', 200, '').inc();
  cells.duration.cell(route, 'GET', 200).observe((i % 50) / 10_000);
};

console.log(
  `metric updates: the HTTP counter and histogram of ${UPDATES} requests a round, CPU µs a request`,
);
for (let r = 1; r <= ROUNDS; r++) {
  const a = cpuUsPerRequest(plain);
  const b = cpuUsPerRequest(viaCells);
  console.log(`  round ${r}: prom-client inc/observe ${a.toFixed(2)} µs, cells ${b.toFixed(2)} µs`);
}
console.log(`the ledger's admission counter, ${UPDATES} admissions a round, CPU µs an admission`);
for (let r = 1; r <= ROUNDS; r++) {
  const a = cpuUsPerRequest(() => admissions.inc({ decision: 'admitted' }));
  const b = cpuUsPerRequest(() => admitted.inc());
  console.log(`  round ${r}: prom-client inc ${a.toFixed(3)} µs, cell ${b.toFixed(3)} µs`);
}
