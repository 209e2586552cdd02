import { MAX_BATCH_EVENTS, type SettlementEvent } from '@mdp/usage';
import { describe, expect, it } from 'vitest';
import { RETRY_PAUSE_MS, SettlementBook } from './settlement-book.ts';

const T = 1_800_000_000_000;
const ACK_TIMEOUT = 1_000;
const charge = (id: string, at = T): SettlementEvent => ({
  v: 1,
  request_id: id,
  account_id: 'a',
  kind: 'charged',
  admitted_at_ms: at - 5,
  settled_at_ms: at,
  route: '/v1/quote',
  status: 200,
  interface: 'rest',
});

let waiters = 0;
const book = () => new SettlementBook(ACK_TIMEOUT, () => ++waiters);

describe('SettlementBook', () => {
  it("puts one turn's charges for one shard in one batch, a batch a shard, and asks for the turn's end once", () => {
    const b = book();
    const first = b.charge(charge('r1'), 0)!;
    expect(first.first).toBe(true);
    const second = b.charge(charge('r2', T + 3), 0)!;
    expect(second).toEqual({ batch: first.batch, first: false });
    const other = b.charge(charge('r3'), 1)!;
    expect(other.first).toBe(false);
    expect(other.batch).not.toBe(first.batch);
    const turn = b.flush(T);
    expect(turn.map((t) => [t.shard, t.events.map((e) => e.request_id)])).toEqual([
      [0, ['r1', 'r2']],
      [1, ['r3']],
    ]);
    // The first charge's deadline is the batch's.
    expect(first.batch.deadline).toBe(T + ACK_TIMEOUT);
    // The next turn starts afresh.
    expect(b.charge(charge('r4'), 0)!.first).toBe(true);
  });

  it('starts a new batch when one is full', () => {
    const b = book();
    const firstBatch = b.charge(charge('r0'), 0)!.batch;
    for (let i = 1; i < MAX_BATCH_EVENTS; i++) b.charge(charge(`r${i}`), 0);
    expect(b.charge(charge('over'), 0)!.batch).not.toBe(firstBatch);
    expect(b.flush(T)).toHaveLength(2);
  });

  it('retries a failed publish until its deadline, then fails it once with every charge to void', () => {
    const b = book();
    const { batch } = b.charge(charge('r1'), 0)!;
    b.charge(charge('r2'), 0);
    b.flush(T);
    expect(b.failed(batch, T + 100)).toBe('retry');
    expect(b.failed(batch, T + ACK_TIMEOUT - RETRY_PAUSE_MS)).toEqual(batch.events);
    expect(b.failed(batch, T + ACK_TIMEOUT)).toBeNull();
    expect(b.acknowledged(batch)).toBe(false);
  });

  it('answers an acknowledged batch once', () => {
    const b = book();
    const { batch } = b.charge(charge('r1'), 0)!;
    b.flush(T);
    expect(b.acknowledged(batch)).toBe(true);
    expect(b.acknowledged(batch)).toBe(false);
    expect(b.failed(batch, T)).toBeNull();
  });

  it('a lost connection fails every batch not answered, published or not, and charges nothing until it is back', () => {
    const b = book();
    const published = b.charge(charge('r1'), 0)!.batch;
    b.flush(T);
    const queued = b.charge(charge('r2'), 1)!.batch;
    const acked = b.charge(charge('r3'), 2)!.batch;
    b.flush(T);
    b.acknowledged(acked);
    expect(b.connectionLost()).toEqual([published, queued]);
    expect(b.available).toBe(false);
    expect(b.charge(charge('r4'), 0)).toBeNull();
    expect(b.flush(T)).toEqual([]);
    // A publish that then fails is answered already.
    expect(b.failed(published, T)).toBeNull();
    b.connectionRestored();
    expect(b.charge(charge('r5'), 0)!.first).toBe(true);
  });

  it("fails a shard's batches not answered when its breaker opens; other shards' go on, and it keeps charging", () => {
    const b = book();
    const published = b.charge(charge('r1'), 0)!.batch;
    const other = b.charge(charge('r2'), 1)!.batch;
    b.flush(T);
    const queued = b.charge(charge('r3'), 0)!.batch;
    const otherQueued = b.charge(charge('r4'), 1)!.batch;
    expect(b.failShard(0)).toEqual([published, queued]);
    expect(b.failed(published, T)).toBeNull();
    expect(b.acknowledged(queued)).toBe(false);
    expect(b.available).toBe(true);
    // Shard 1's batch in flight is still answered by its acknowledgement.
    expect(b.acknowledged(other)).toBe(true);
    // The flush asked for when r3 came publishes shard 1's queued batch and shard 0's new one.
    const after = b.charge(charge('r5'), 0)!;
    expect(after.first).toBe(false);
    expect(b.flush(T)).toEqual([otherQueued, after.batch]);
  });

  describe('with a linger', () => {
    const LINGER = 5;
    const lingering = () => new SettlementBook(ACK_TIMEOUT, () => ++waiters, LINGER);

    it('publishes at once while nothing of the shard is in flight', () => {
      const b = lingering();
      const { batch } = b.charge(charge('r1'), 0)!;
      expect(b.flush(T)).toEqual([batch]);
      expect(b.nextFlushAt()).toBeNull();
    });

    it("gathers a shard's charges behind its batch in flight until the acknowledgement, over several turns", () => {
      const b = lingering();
      const first = b.charge(charge('r1'), 0)!.batch;
      b.flush(T);
      const second = b.charge(charge('r2', T + 1), 0)!;
      expect(second.first).toBe(true);
      expect(b.flush(T + 1)).toEqual([]);
      // Another shard is not held back by shard 0's batch in flight.
      const other = b.charge(charge('r3', T + 1), 1)!.batch;
      expect(b.charge(charge('r4', T + 2), 0)!.batch).toBe(second.batch);
      expect(b.flush(T + 2)).toEqual([other]);
      expect(b.nextFlushAt()).toBe(T + 1 + LINGER);
      expect(b.lingering).toBe(true);
      expect(b.acknowledged(first)).toBe(true);
      const next = b.flush(T + 3);
      expect(next.map((x) => x.events.map((e) => e.request_id))).toEqual([['r2', 'r4']]);
      expect(b.lingering).toBe(false);
    });

    it('publishes a gathering batch when its linger runs out, the batch before still in flight', () => {
      const b = lingering();
      b.charge(charge('r1'), 0);
      b.flush(T);
      const { batch } = b.charge(charge('r2', T + 1), 0)!;
      expect(b.flush(T + LINGER)).toEqual([]);
      expect(b.flush(T + 1 + LINGER)).toEqual([batch]);
    });

    it('publishes a full batch without waiting', () => {
      const b = lingering();
      b.charge(charge('r0'), 0);
      b.flush(T);
      const full = b.charge(charge('f0', T + 1), 0)!.batch;
      for (let i = 1; i < MAX_BATCH_EVENTS; i++) b.charge(charge(`f${i}`, T + 1), 0);
      const rest = b.charge(charge('over', T + 1), 0)!.batch;
      expect(b.flush(T + 1)).toEqual([full]);
      expect(b.flush(T + 2)).toEqual([]);
      expect(b.failed(full, T + 2, false)).toEqual(full.events);
      expect(b.flush(T + 2)).toEqual([]);
      expect(b.nextFlushAt()).toBe(rest.since + LINGER);
    });
  });
});
