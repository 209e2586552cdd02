import { describe, expect, it } from 'vitest';
import { nothingRecorded, shardDeps } from '../../test/shard-deps.ts';
import { AccountBook } from './account-book.ts';
import { type AdmissionRequest, createShard, type Outcome } from './shard.ts';

const T = Date.UTC(2026, 11, 7, 6, 0, 0);
const ACCOUNT = '0193a5b0-0000-7000-8000-000000000003';
const LEASE_MS = 2_000;

const request = (requestId: string, wantLease = true): AdmissionRequest => ({
  requestId,
  accountId: ACCOUNT,
  caps: { daily: 1_000, monthly: null, burst: null },
  via: 'rest',
  traceparent: '',
  wantLease,
});

/**
 * A shard whose account is not in memory, its counts loaded once `load()` lets them (the projections'
 * read held until then), every answer kept as the stream would write it: one message a call, in order.
 */
function coldShard() {
  let load!: () => void;
  const loading = new Promise<void>((resolve) => {
    load = resolve;
  });
  const store = nothingRecorded();
  const read = store.charged.bind(store);
  store.charged = async (...args: Parameters<typeof read>) => {
    await loading;
    return read(...args);
  };
  const book = new AccountBook(30_000, () => 0);
  const shard = createShard(shardDeps(null, () => T, { book, store, leaseMs: LEASE_MS }));
  const stream = shard.openStream(() => {});
  const messages: Outcome[][] = [];
  const admit = (requests: AdmissionRequest[]) => shard.admit(requests, (o) => messages.push(o), stream);
  /** Resolves once `n` outcomes have been answered. */
  const answered = async (n: number) => {
    while (messages.flat().length < n) await new Promise((r) => setTimeout(r, 1));
    return messages;
  };
  return { shard, book, stream, admit, load, answered };
}

describe('an account decided once its counts have loaded', () => {
  it('leases it with its first request, that answer alone and before the ones left to the lease', async () => {
    const { book, stream, admit, load, answered } = coldShard();
    admit([request('r-0'), request('r-1'), request('r-2')]);
    load();
    const messages = await answered(3);
    // The grant first, in a message of its own; the requests decided after it are the lease's.
    expect(messages.map((m) => m.map((o) => o.requestId))).toEqual([['r-0'], ['r-1', 'r-2']]);
    const [[first], rest] = messages as [[Outcome], Outcome[]];
    expect(first.decision).toMatchObject({ kind: 'admitted' });
    expect(first.lease).toBeDefined();
    expect(first.lease!.allotment).toBeGreaterThan(0);
    expect(rest.map((o) => o.decision)).toEqual(['leased', 'leased']);
    expect(book.liveLeaseHolder(ACCOUNT, T)).toBe(stream.id);
    // The lease's counts hold its first request, in flight.
    expect(first.lease!.day).toBe(1);
    expect(first.lease!.inFlight.map((h) => h.requestId)).toEqual(['r-0']);
  });

  it('leases nothing to a request that does not want a lease: answered with its group', async () => {
    const { book, admit, load, answered } = coldShard();
    admit([request('r-0', false), request('r-1', false)]);
    load();
    const messages = await answered(2);
    expect(messages).toHaveLength(1);
    expect(messages[0]!.map((o) => [o.requestId, typeof o.decision === 'object' && o.decision.kind])).toEqual(
      [
        ['r-0', 'admitted'],
        ['r-1', 'admitted'],
      ],
    );
    expect(messages[0]!.every((o) => o.lease === undefined)).toBe(true);
    expect(book.leasesOut).toBe(0);
  });

  it('leases nothing once the shard has stopped admitting (its leases recalled for a hand-over)', async () => {
    const { shard, book, admit, load, answered } = coldShard();
    admit([request('r-0')]);
    shard.stopAdmitting();
    load();
    const [[only]] = (await answered(1)) as [[Outcome]];
    expect(only.requestId).toBe('r-0');
    expect(only.lease).toBeUndefined();
    expect(book.leasesOut).toBe(0);
  });
});
