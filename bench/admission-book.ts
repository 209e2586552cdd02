// `make bench`, part: what the ledger shard's in-memory book costs an admission, in this process: for
// each request what the shard does on the admission stream (`missingPeriods`, then `admit`) and when its
// settlement is recorded (`release`), over `BENCH_BOOK_ACCOUNTS` accounts of the business plan's caps
// (50,000 a day, 1,000,000 a month, burst cap 60), in turn, a millisecond of the injected clock apart, so
// each account is admitted once a second and none is refused. Figures, not assertions.
import { randomUUID } from 'node:crypto';
import { AccountBook } from '../services/quota-ledger/src/admission/account-book.ts';
import { envInt } from './env.ts';

const ADMISSIONS = envInt('BENCH_BOOK_ADMISSIONS', 200_000);
const ROUNDS = envInt('BENCH_BOOK_ROUNDS', 6);
const ACCOUNTS = envInt('BENCH_BOOK_ACCOUNTS', 1_000);
const CAPS = { daily: 50_000, monthly: 1_000_000, burst: 60 };
const HOLD_TTL_MS = 30_000;

const book = new AccountBook(HOLD_TTL_MS, Math.random);
const accounts = Array.from({ length: ACCOUNTS }, () => randomUUID());
const requestIds = Array.from({ length: ADMISSIONS }, () => randomUUID());
let clock = Date.now();
for (const a of accounts) {
  const missing = book.missingPeriods(a, clock);
  if (missing)
    book.loaded(a, { ...missing, dayCharged: { rest: 0, mcp: 0 }, monthCharged: { rest: 0, mcp: 0 } }, clock);
}

console.log(
  `admission book: ${ADMISSIONS} admissions a round over ${ACCOUNTS} accounts (missingPeriods, admit, release), CPU µs an admission`,
);
for (let r = 1; r <= ROUNDS; r++) {
  let refused = 0;
  const cpu = process.cpuUsage();
  for (let i = 0; i < ADMISSIONS; i++) {
    const account = accounts[i % ACCOUNTS]!;
    clock += 1;
    const now = clock;
    book.missingPeriods(account, now);
    const decision = book.admit(requestIds[i]!, account, CAPS, now, 'rest');
    if (decision === 'duplicate' || decision.kind !== 'admitted') refused += 1;
    book.release(requestIds[i]!, account);
  }
  const used = process.cpuUsage(cpu);
  const us = (used.user + used.system) / ADMISSIONS;
  console.log(
    `  round ${r}: ${us.toFixed(2)} µs${refused ? ` (${refused} refused: the figure is not of admissions)` : ''}`,
  );
}
