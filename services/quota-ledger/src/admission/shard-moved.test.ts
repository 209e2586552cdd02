import { describe, expect, it } from 'vitest';
import { shardDeps } from '../../test/shard-deps.ts';
import { AccountBook } from './account-book.ts';
import { createShard, type Outcome } from './shard.ts';
import type { HandedOver, Ownership } from './shard-map.ts';

const T = Date.UTC(2026, 11, 2, 6, 0, 0);
const ACCOUNT = '0193a5b0-0000-7000-8000-000000000001';
const FROM: HandedOver = { count: 3, shard: 1, subject: 0 };
const HOLD_TTL_MS = 30_000;

/**
 * A shard over an account that has just moved here (its previous owner, a relief, handed over two requests
 * it still held, not yet in the log), with a daily cap of 3 and nothing recorded.
 */
function movedHere() {
  const owner: Ownership = { kind: 'owner', moved: true, from: [FROM] };
  const shard = createShard(
    shardDeps(null, () => T, {
      book: new AccountBook(HOLD_TTL_MS, () => 0),
      ownership: () => owner,
      handoverHolds: async (accountId) =>
        ['r-1', 'r-2'].map((requestId) => ({
          accountId,
          requestId,
          admittedAt: T - 1_000,
          via: 'rest',
          from: FROM,
        })),
    }),
  );
  const admit = (requestId: string) =>
    new Promise<Outcome>((resolve) =>
      shard.admit(
        [
          {
            requestId,
            accountId: ACCOUNT,
            caps: { daily: 3, monthly: null, burst: null },
            via: 'rest',
            traceparent: '',
            wantLease: false,
          },
        ],
        ([o]) => resolve(o!),
        shard.openStream(() => {}),
      ),
    );
  return { shard, admit };
}

describe('an account that has moved here', () => {
  it('counts the requests its previous owner handed over, whatever loads it first', async () => {
    for (const first of ['admission', 'usage read', 'restore'] as const) {
      const { shard, admit } = movedHere();
      if (first === 'usage read') expect((await shard.usage(ACCOUNT))!.used.day).toBe(2);
      // A gateway restores a request of its own admitted here, then withdraws it (settled elsewhere).
      if (first === 'restore') {
        shard.restore([{ requestId: 'r-0', accountId: ACCOUNT, admittedAt: T - 500, via: 'rest' }]);
        await new Promise<void>((done) => shard.release([{ requestId: 'r-0', accountId: ACCOUNT }], done));
      }
      // Two of the cap of 3 are held by the handed-over requests: one more is admitted, then none.
      expect((await admit('r-3')).decision).toMatchObject({ kind: 'admitted' });
      expect((await admit('r-4')).decision).toMatchObject({ kind: 'quota_exhausted' });
    }
  });
});
