// `make bench`, part: what Postgres spends recording the usage log, the ledger's one statement a batch
// (`ProjectionStore.record`) on a fresh schema of the machine's Postgres, as the settlement consumer runs
// it: charges of the quote route, new request ids in time order, at several batch sizes, on one account
// (every batch moves one row of each projection) and spread over many (nearly one row an event). CPU of
// the recorder's Postgres backend from /proc, per event; rounds alternated. Figures, not assertions.
//   BENCH_RECORD_EVENTS (20000) a trial; BENCH_RECORD_ROUNDS (3) of every trial; BENCH_RECORD_ACCOUNTS (1000)
import { randomBytes } from 'node:crypto';
import { dropSchema } from '@mdp/db';
import { newRequestId, type SettlementEvent } from '@mdp/usage';
import { openRecorder, ProjectionStore } from '../services/quota-ledger/src/settlement/projections.ts';
import { DATABASE_URL, ledgerPool } from '../services/quota-ledger/test/ledger-db.ts';
import { cpuOf } from './cpu.ts';
import { envInt } from './env.ts';
import { median } from './ledger-goals.ts';

const EVENTS = envInt('BENCH_RECORD_EVENTS', 20_000);
const ROUNDS = envInt('BENCH_RECORD_ROUNDS', 3);
const MANY = envInt('BENCH_RECORD_ACCOUNTS', 1_000);
const SIZES = [25, 100, 500, 2_000];

interface Trial {
  events: number;
  accounts: number;
}
const TRIALS: Trial[] = SIZES.flatMap((events) => [
  { events, accounts: 1 },
  { events, accounts: MANY },
]);

const account = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
let next = 0;
/** One batch as a shard's consumer receives it: charges in admission order, accounts in turn. */
function batch(t: Trial): SettlementEvent[] {
  return Array.from({ length: t.events }, () => {
    next += 1;
    const at = Date.now();
    return {
      v: 1,
      request_id: newRequestId(),
      account_id: account(next % t.accounts),
      kind: 'charged',
      admitted_at_ms: at,
      settled_at_ms: at,
      route: 'getStockQuote',
      status: 200,
      interface: 'rest',
    };
  });
}

const schema = `bench_record_${randomBytes(4).toString('hex')}`;
const pool = await ledgerPool(schema, 'bench-record-batch');
const recorder = openRecorder({ url: DATABASE_URL, schema, applicationName: 'bench-record-batch-recorder' });
try {
  const store = new ProjectionStore(pool, recorder);
  // The dictionaries, the day's partition and the projections' rows exist before anything is measured.
  for (let i = 0; i * 500 < MANY + 500; i++) await store.record(batch({ events: 500, accounts: MANY }));
  const { rows } = await recorder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  const backend = rows[0]!.pid;
  const cpu = () => cpuOf(backend)?.own ?? Number.NaN;

  console.log(
    `usage log recording (ProjectionStore.record): ${EVENTS} events a trial, ${ROUNDS} rounds alternated; ` +
      'CPU µs an event of the recorder’s Postgres backend',
  );
  const figures = new Map<Trial, number[]>(TRIALS.map((t) => [t, []]));
  for (let r = 0; r < ROUNDS; r++) {
    for (const t of TRIALS) {
      const batches = Array.from({ length: Math.ceil(EVENTS / t.events) }, () => batch(t));
      // The connection's generic plan is made from the sixth execution on.
      for (let i = 0; i < 6; i++) await store.record(batch(t));
      const before = cpu();
      for (const b of batches) await store.record(b);
      figures.get(t)!.push(((cpu() - before) * 1e6) / (batches.length * t.events));
    }
  }
  console.log('  events a batch  accounts   µs an event (median)   rounds');
  for (const [t, us] of figures) {
    console.log(
      `  ${String(t.events).padStart(14)}  ${String(t.accounts).padStart(8)}   ${median(us).toFixed(1).padStart(20)}   ${us.map((u) => u.toFixed(1)).join(', ')}`,
    );
  }
} finally {
  await recorder.end();
  await pool.end();
  await dropSchema(DATABASE_URL, schema);
}
