import type { LeaseGrant } from '@mdp/admission';
import { describe, expect, it } from 'vitest';
import { shardDeps } from '../../test/shard-deps.ts';
import { AccountBook } from './account-book.ts';
import { createShard, type Outcome } from './shard.ts';

const ACCOUNT = '0193a5b0-0000-7000-8000-000000000002';
const LEASE_MS = 2_000;

/**
 * A stopping shard with one lease out, on the wall clock moved by `ahead` (ms) once the lease is granted,
 * so a recall's wait runs in real time. `giveBack` is what the holder does with the shard's recall.
 */
async function leasedOut(giveBack: (back: () => void) => void) {
  let ahead = 0;
  const book = new AccountBook(30_000, () => 0);
  const shard = createShard(shardDeps(null, () => Date.now() + ahead, { book, leaseMs: LEASE_MS }));
  let lease: LeaseGrant | undefined;
  const stream = shard.openStream(() => giveBack(back));
  const back = () =>
    shard.returnLeases(stream, [{ leaseId: lease!.leaseId, accountId: ACCOUNT, from: 0, admitted: [] }]);
  // Ten, then ten more (the account loaded, a rate to lease on), each answered once, maybe in parts.
  const admit = (from: number) =>
    new Promise<Outcome[]>((resolve) => {
      const outcomes: Outcome[] = [];
      shard.admit(
        Array.from({ length: 10 }, (_, i) => ({
          requestId: `r-${from + i}`,
          accountId: ACCOUNT,
          caps: { daily: 1_000, monthly: null, burst: null },
          via: 'rest' as const,
          traceparent: '',
          wantLease: true,
        })),
        (some) => {
          outcomes.push(...some);
          if (outcomes.length === 10) resolve(outcomes);
        },
        stream,
      );
    });
  lease = [...(await admit(0)), ...(await admit(10))].find((o) => o.lease)?.lease;
  expect(lease).toBeDefined();
  return {
    shard,
    book,
    stream,
    /** The lease's term is over by the shard's clock, its holder's return not yet in. */
    expire: () => {
      ahead = lease!.expiresAt - Date.now() + 1;
    },
  };
}

describe("a stopping shard's recall", () => {
  it('waits for a lease whose term ended while its return was on the way', async () => {
    const { shard, book, expire } = await leasedOut((back) => setTimeout(back, 100));
    expire();
    await shard.recallAll(10_000);
    expect(book.leasesOut).toBe(0);
  });

  it('waits for a live lease until its holder gives it back', async () => {
    const { shard, book } = await leasedOut((back) => setTimeout(back, 100));
    await shard.recallAll(10_000);
    expect(book.leasesOut).toBe(0);
  });

  it('does not wait out its budget for an ended lease whose holder has gone (its stream closed)', async () => {
    const { shard, book, stream, expire } = await leasedOut(() => {});
    shard.closeStream(stream);
    expire();
    // A minute's budget: waiting it out would fail this test on its timeout.
    await shard.recallAll(60_000);
    expect(book.leasesOut).toBe(1);
  });
});
