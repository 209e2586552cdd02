import { randomBytes, randomUUID } from 'node:crypto';
import { dropSchema, type Pool } from '@mdp/db';
import type { SettlementEvent } from '@mdp/usage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createShard, type Outcome } from '../src/admission/shard.ts';
import { Mutex } from '../src/mutex.ts';
import { ProjectionStore } from '../src/settlement/projections.ts';
import { DATABASE_URL, ledgerPool } from './ledger-db.ts';
import { shardDeps } from './shard-deps.ts';

const schema = `ledger_loads_${randomBytes(5).toString('hex')}`;
// 15:30 IST on 14 March.
const NOW = Date.parse('2026-03-14T10:00:00Z');
const ACCOUNTS = 30;
/** Account i has i % 4 charges today, and 2 more earlier in the month. */
const accounts = Array.from({ length: ACCOUNTS }, (_, i) => ({ id: randomUUID(), today: i % 4, earlier: 2 }));

let pool: Pool;

/** The real store, with the statements that load charged counts counted (how many accounts each read). */
class CountingStore extends ProjectionStore {
  readonly loads: number[] = [];
  override charged(accountIds: readonly string[], day: string, month: string) {
    this.loads.push(accountIds.length);
    return super.charged(accountIds, day, month);
  }
}

const charge = (accountId: string, at: number): SettlementEvent => ({
  v: 1,
  request_id: randomUUID(),
  account_id: accountId,
  kind: 'charged',
  admitted_at_ms: at,
  settled_at_ms: at + 10,
  route: 'getStockQuote',
  status: 200,
});

beforeAll(async () => {
  pool = await ledgerPool(schema, 'account-loads-test', 4);
  const events = accounts.flatMap((a) => [
    ...Array.from({ length: a.today }, () => charge(a.id, NOW - 60 * 60_000)),
    ...Array.from({ length: a.earlier }, () => charge(a.id, Date.parse('2026-03-02T10:00:00Z'))),
  ]);
  await new ProjectionStore(pool).record(events);
});
afterAll(async () => {
  await pool.end();
  await dropSchema(DATABASE_URL, schema);
});

describe('loading accounts not in memory', () => {
  it('loads the accounts whose first requests come while the ledger is busy in one statement, each with its own counts', async () => {
    const store = new CountingStore(pool);
    const mutex = new Mutex();
    const shard = createShard(shardDeps(pool, () => NOW, { store, mutex }));
    const stream = shard.openStream(() => {});
    const admit = (accountId: string, daily: number) =>
      new Promise<Outcome>((resolve) =>
        shard.admit(
          [
            {
              requestId: randomUUID(),
              accountId,
              caps: { daily, monthly: 10, burst: null },
              via: 'rest',
              traceparent: '',
              wantLease: false,
            },
          ],
          ([o]) => resolve(o!),
          stream,
        ),
      );

    // A batch is being recorded (the mutex is held) while every account's first request comes in.
    let recorded!: () => void;
    const recording = mutex.run(() => new Promise<void>((r) => (recorded = r)));
    const answers = accounts.map((a) => admit(a.id, 4));
    await new Promise((r) => setTimeout(r, 20));
    recorded();
    await recording;
    const outcomes = await Promise.all(answers);

    expect(store.loads).toEqual([ACCOUNTS]);
    // A daily cap of 4: an account with 3 charged today has room for this one request only, and its
    // month (10) counts the 2 of earlier days too.
    expect(outcomes.map((o) => o.decision)).toMatchObject(
      accounts.map((a) => ({ kind: 'admitted', rateLimit: { policy: 'daily', remaining: 4 - a.today - 1 } })),
    );
    const over = await Promise.all(accounts.filter((a) => a.today === 3).map((a) => admit(a.id, 4)));
    for (const o of over) expect(o.decision).toMatchObject({ kind: 'quota_exhausted' });
    // Loaded once: the later requests read the counts in memory.
    expect(store.loads).toEqual([ACCOUNTS]);
    const usage = await shard.usage(accounts[1]!.id);
    expect(usage).toMatchObject({ used: { day: 1 + 1, month: 1 + 2 + 1 } });
  });
});
