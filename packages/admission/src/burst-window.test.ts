import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BurstWindow } from './burst-window.ts';

const windowOf = (...times: number[]) => {
  const w = new BurstWindow();
  for (const t of times) w.push(t);
  return w;
};

describe('BurstWindow', () => {
  it('starts empty, with no buffer', () => {
    const w = new BurstWindow();
    expect(w.length).toBe(0);
    expect(w.capacity).toBe(0);
    expect(w.oldest()).toBeUndefined();
    expect(w.newest()).toBeUndefined();
    expect(w.at(0)).toBeUndefined();
    expect(w.evictThrough(Number.MAX_SAFE_INTEGER)).toBe(0);
    expect(w.toArray()).toEqual([]);
  });

  it('grows past its capacity while wrapped around, keeping the times oldest first', () => {
    const w = windowOf(...Array.from({ length: 16 }, (_, i) => i));
    expect(w.capacity).toBe(16);
    // The oldest end moves to index 10 of the buffer; the next pushes wrap around to its start.
    expect(w.evictThrough(9)).toBe(10);
    expect(w.capacity).toBe(16);
    for (let t = 16; t < 26; t++) w.push(t);
    expect(w.length).toBe(16);
    expect(w.capacity).toBe(16);
    // Full and wrapped: the next push doubles the buffer, unwrapping it.
    w.push(26);
    expect(w.capacity).toBe(32);
    expect(w.toArray()).toEqual(Array.from({ length: 17 }, (_, i) => i + 10));
    expect(w.oldest()).toBe(10);
    expect(w.newest()).toBe(26);
    for (let t = 27; t < 1_000; t++) w.push(t);
    expect(w.length).toBe(990);
    expect(w.capacity).toBe(1_024);
    expect(w.at(500)).toBe(510);
  });

  it('evicts every time at or before the cutoff from the oldest end, and nothing else', () => {
    const w = windowOf(100, 200, 200, 300, 400);
    expect(w.evictThrough(99)).toBe(0);
    expect(w.evictThrough(200)).toBe(3);
    expect(w.toArray()).toEqual([300, 400]);
    expect(w.evictThrough(200)).toBe(0);
    expect(w.evictThrough(1_000)).toBe(2);
    expect(w.length).toBe(0);
  });

  it('gives the time at an index from the oldest, from the newest when negative, none out of range', () => {
    const w = windowOf(...Array.from({ length: 20 }, (_, i) => 1_000 + i));
    w.evictThrough(1_004); // the oldest is not at the buffer's start
    for (let t = 1_020; t < 1_030; t++) w.push(t); // and the newest wrapped around
    expect(w.length).toBe(25);
    for (let i = 0; i < 25; i++) expect(w.at(i)).toBe(1_005 + i);
    expect(w.at(-1)).toBe(1_029);
    expect(w.at(-25)).toBe(1_005);
    expect(w.at(-26)).toBeUndefined();
    expect(w.at(25)).toBeUndefined();
    expect(w.at(1.5)).toBeUndefined();
    // decide()'s k-th: with a cap of 10, the 10th newest is the admission whose leaving frees a slot.
    expect(w.at(w.length - 10)).toBe(1_020);
  });

  it('inserts a time in order, after equal times, across the wrap and past the capacity', () => {
    const w = windowOf(...Array.from({ length: 16 }, (_, i) => i * 10));
    w.evictThrough(55); // 60..150 left, oldest at index 6
    for (const t of [160, 170, 180, 190, 200, 210]) w.push(t); // full again, wrapped
    expect(w.capacity).toBe(16);
    w.insert(65); // grows, then shifts the newer ones up
    w.insert(60);
    w.insert(0);
    w.insert(210);
    w.insert(1_000);
    expect(w.toArray()).toEqual([
      0, 60, 60, 65, 70, 80, 90, 100, 110, 120, 130, 140, 150, 160, 170, 180, 190, 200, 210, 210, 1_000,
    ]);
    expect(w.capacity).toBe(32);
  });

  it('keeps the times in order when a pushed time is older than the newest (a clock stepping back)', () => {
    const w = windowOf(10, 20, 30);
    w.push(25);
    w.push(30);
    expect(w.toArray()).toEqual([10, 20, 25, 30, 30]);
  });

  it('empties, shrinks and is reused', () => {
    const w = windowOf(...Array.from({ length: 5_000 }, (_, i) => i));
    expect(w.capacity).toBe(8_192);
    // A quarter full: halved (once per halving the count allows), the times unchanged.
    w.evictThrough(3_999);
    expect(w.length).toBe(1_000);
    expect(w.capacity).toBe(2_048);
    expect(w.toArray()).toEqual(Array.from({ length: 1_000 }, (_, i) => 4_000 + i));
    w.evictThrough(4_999);
    expect(w.length).toBe(0);
    expect(w.capacity).toBe(16);
    expect(w.oldest()).toBeUndefined();
    w.push(7_000);
    w.insert(6_000);
    w.push(8_000);
    expect(w.toArray()).toEqual([6_000, 7_000, 8_000]);
    expect(w.at(1)).toBe(7_000);
  });

  it('matches a naive sorted array over random pushes, evictions and inserts (property)', () => {
    type Op =
      | { op: 'push'; dt: number }
      | { op: 'insert'; back: number }
      | { op: 'evict'; back: number }
      | { op: 'pushOlder'; back: number };
    const op: fc.Arbitrary<Op> = fc.oneof(
      { weight: 10, arbitrary: fc.record({ op: fc.constant('push' as const), dt: fc.nat(50) }) },
      { weight: 2, arbitrary: fc.record({ op: fc.constant('insert' as const), back: fc.nat(400) }) },
      { weight: 4, arbitrary: fc.record({ op: fc.constant('evict' as const), back: fc.nat(400) }) },
      { weight: 1, arbitrary: fc.record({ op: fc.constant('pushOlder' as const), back: fc.nat(30) }) },
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 400 }), (ops) => {
        const w = new BurstWindow();
        const model: number[] = [];
        const place = (t: number) => {
          let i = model.length;
          while (i > 0 && model[i - 1]! > t) i--;
          model.splice(i, 0, t);
        };
        let now = 1_000_000;
        for (const o of ops) {
          switch (o.op) {
            case 'push':
              now += o.dt;
              w.push(now);
              model.push(now);
              break;
            case 'pushOlder':
              w.push(now - o.back);
              place(now - o.back);
              break;
            case 'insert':
              w.insert(now - o.back);
              place(now - o.back);
              break;
            case 'evict': {
              const cutoff = now - o.back;
              let n = 0;
              while (model.length > 0 && model[0]! <= cutoff) {
                model.shift();
                n++;
              }
              expect(w.evictThrough(cutoff)).toBe(n);
              // Never more than four times the room it needs (or its minimum).
              expect(w.capacity).toBeLessThanOrEqual(Math.max(16, 4 * w.length));
              break;
            }
          }
          expect(w.length).toBe(model.length);
          expect(w.oldest()).toBe(model[0]);
          expect(w.newest()).toBe(model.at(-1));
          const k = Math.floor(model.length / 3);
          expect(w.at(k)).toBe(model[k]);
        }
        expect(w.toArray()).toEqual(model);
      }),
      { numRuns: 300 },
    );
  });
});
