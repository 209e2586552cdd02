// `make bench`, part: what Postgres spends recording the usage log, the ledger's one statement a batch
// (`ProjectionStore.record`) on a fresh schema of the machine's Postgres, as the settlement consumer runs
// it: charges of the quote route, new request ids in time order, at several batch sizes, on one account
// (every batch moves one row of each projection) and spread over many (nearly one row an event). CPU of
// the recorder's Postgres backend from /proc, per event; rounds alternated. Figures, not assertions.
//   BENCH_RECORD_EVENTS (20000) a trial; BENCH_RECORD_ROUNDS (3) of every trial; BENCH_RECORD_ACCOUNTS (1000)
//   BENCH_RECORD_BASE=<commit>: also that commit's statement and migrations (its quota ledger's source from
//   git, `sourceAt`), on a schema of its own, in the same rounds (the order reversed every other round):
//   a change to the statement, before and after, in one run.
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { dropSchema, type Pool } from '@mdp/db';
import { newRequestId, type SettlementEvent } from '@mdp/usage';
import { ROOT } from '../scripts/lib/services.ts';
import { cpuOf } from './cpu.ts';
import { envInt } from './env.ts';
import { median } from './ledger-goals.ts';
import { shortCommit, sourceAt } from './source-at.ts';

const EVENTS = envInt('BENCH_RECORD_EVENTS', 20_000);
const ROUNDS = envInt('BENCH_RECORD_ROUNDS', 3);
const MANY = envInt('BENCH_RECORD_ACCOUNTS', 1_000);
const BASE = process.env.BENCH_RECORD_BASE?.trim() || undefined;
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

/** The quota ledger's recording of one source tree: its statement, on a schema its migrations made. */
interface Side {
  label: string;
  record: (events: SettlementEvent[]) => Promise<unknown>;
  /** CPU seconds of its recorder's Postgres backend so far. */
  cpu: () => number;
  close: () => Promise<void>;
}

/** The recorder of the quota ledger's source under `root` (this tree's, or a commit's from `sourceAt`). */
async function openSide(label: string, root: string): Promise<Side> {
  const ledger = join(root, 'services', 'quota-ledger');
  const { openRecorder, ProjectionStore } = await import(join(ledger, 'src/settlement/projections.ts'));
  const { DATABASE_URL, ledgerPool } = await import(join(ledger, 'test/ledger-db.ts'));
  const schema = `bench_record_${randomBytes(4).toString('hex')}`;
  const pool: Pool = await ledgerPool(schema, 'bench-record-batch');
  const recorder: Pool = openRecorder({
    url: DATABASE_URL,
    schema,
    applicationName: 'bench-record-batch-recorder',
  });
  const store = new ProjectionStore(pool, recorder);
  // The dictionaries, the day's partition and the projection's rows exist before anything is measured.
  for (let i = 0; i * 500 < MANY + 500; i++) await store.record(batch({ events: 500, accounts: MANY }));
  const { rows } = await recorder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  const backend = rows[0]!.pid;
  return {
    label,
    record: (events) => store.record(events),
    cpu: () => cpuOf(backend)?.own ?? Number.NaN,
    close: async () => {
      await recorder.end();
      await pool.end();
      await dropSchema(DATABASE_URL, schema);
    },
  };
}

const work = join(ROOT, '.local', `bench-record-batch-${process.pid}`);
const sides: Side[] = [];
try {
  if (BASE)
    sides.push(
      await openSide(
        shortCommit(BASE),
        sourceAt(
          BASE,
          [
            'services/quota-ledger/src',
            'services/quota-ledger/migrations',
            'services/quota-ledger/test/ledger-db.ts',
          ],
          work,
        ),
      ),
    );
  sides.push(await openSide(BASE ? 'this tree' : 'µs an event', ROOT));

  console.log(
    `usage log recording (ProjectionStore.record): ${EVENTS} events a trial, ${ROUNDS} rounds alternated; ` +
      `CPU µs an event of the recorder’s Postgres backend${BASE ? `, ${sides[0]!.label} and this tree in each round` : ''}`,
  );
  const figures = new Map<Trial, Map<Side, number[]>>(
    TRIALS.map((t) => [t, new Map(sides.map((s) => [s, []]))]),
  );
  for (let r = 0; r < ROUNDS; r++) {
    for (const t of TRIALS) {
      for (const side of r % 2 === 0 ? sides : [...sides].reverse()) {
        const batches = Array.from({ length: Math.ceil(EVENTS / t.events) }, () => batch(t));
        // The connection's generic plan is made from the sixth execution on.
        for (let i = 0; i < 6; i++) await side.record(batch(t));
        const before = side.cpu();
        for (const b of batches) await side.record(b);
        figures
          .get(t)!
          .get(side)!
          .push(((side.cpu() - before) * 1e6) / (batches.length * t.events));
      }
    }
  }
  const column = (side: Side) => `${side.label} (median)`.padStart(20);
  console.log(
    `  events a batch  accounts  ${sides.map(column).join('  ')}${BASE ? '   after ÷ before' : ''}   rounds`,
  );
  for (const [t, bySide] of figures) {
    const medians = sides.map((s) => median(bySide.get(s)!));
    const ratio = BASE ? `   ${(medians[1]! / medians[0]!).toFixed(2).padStart(15)}` : '';
    const rounds = sides
      .map((s) =>
        bySide
          .get(s)!
          .map((u) => u.toFixed(1))
          .join(', '),
      )
      .join(' | ');
    console.log(
      `  ${String(t.events).padStart(14)}  ${String(t.accounts).padStart(8)}  ${medians.map((m) => m.toFixed(1).padStart(20)).join('  ')}${ratio}   ${rounds}`,
    );
  }
} finally {
  for (const side of sides) await side.close();
  rmSync(work, { recursive: true, force: true });
}
