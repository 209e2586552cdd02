// `make chaos`: a bounded loopback load on a metered route while each process of the platform, NATS and
// a private Postgres is killed with SIGKILL and brought back in turn, then an equities-data replica is
// stopped with SIGSTOP (one of two, then the only one). Prints one row per fault and exits non-zero when
// an invariant failed (see test/chaos/runner.ts and replicas.ts; test/chaos.int.test.ts and
// test/chaos-replicas.int.test.ts run them smaller).
import { writeFileSync } from 'node:fs';
import { REPLICA_FAULTS, type ReplicaFault } from '../test/chaos/replicas.ts';
import { FAULTS, type Fault, formatReport, runChaos } from '../test/chaos/runner.ts';
import { envInt } from './env.ts';

const only = process.env.CHAOS_FAULTS?.split(',').filter(Boolean);
const known: readonly string[] = [...FAULTS, ...REPLICA_FAULTS];
for (const f of only ?? []) {
  if (!known.includes(f)) throw new Error(`CHAOS_FAULTS: unknown fault "${f}" (one of ${known.join(', ')})`);
}

const nats = process.env.CHAOS_NATS ?? 'server';
if (nats !== 'server' && nats !== 'cluster')
  throw new Error(`CHAOS_NATS: "${nats}" is neither server (one nats-server) nor cluster (three)`);

console.log(
  `chaos: private Postgres and NATS (${nats === 'cluster' ? 'a three-server cluster' : 'one server'}), the platform on them, then each fault in turn…`,
);
const report = await runChaos({
  clients: envInt('CHAOS_CLIENTS', 16),
  ratePerSecond: envInt('CHAOS_RATE', 100),
  warmupMs: envInt('CHAOS_WARMUP_MS', 2_000, 0),
  downMs: envInt('CHAOS_DOWN_MS', 3_000),
  stableMs: 1_500,
  recoveryTimeoutMs: 20_000,
  settleTimeoutMs: 30_000,
  requestTimeoutMs: 10_000,
  nats,
  faults: only ? FAULTS.filter((f: Fault) => only.includes(f)) : FAULTS,
  replicaFaults: only ? REPLICA_FAULTS.filter((f: ReplicaFault) => only.includes(f)) : REPLICA_FAULTS,
  log: (line) => console.log(`  ${line}`),
});
console.log(`\n${formatReport(report)}`);
if (process.env.CHAOS_JSON) writeFileSync(process.env.CHAOS_JSON, JSON.stringify(report, null, 2));
process.exit([...report.results, ...report.replicaResults].some((r) => r.violations.length > 0) ? 1 : 0);
