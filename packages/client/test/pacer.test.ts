import { describe, expect, it } from 'vitest';
import { Pacer } from '../src/pacer.ts';

describe('the client-side pacer', () => {
  it('lets the cap through at once, then waits until the oldest call leaves the minute', async () => {
    let now = 0;
    const waits: number[] = [];
    const pacer = new Pacer(
      3,
      () => now,
      async (ms) => {
        waits.push(ms);
        now += ms;
      },
    );
    for (let i = 0; i < 3; i++) await pacer.take();
    expect(waits).toEqual([]);
    now = 10_000;
    await pacer.take();
    expect(waits).toEqual([50_000]);
    expect(now).toBe(60_000);
  });
});
