import { describe, expect, it } from 'vitest';
import { readInTurns } from './read-in-turns.ts';

/** Items already there, as a burst the pull delivered: each is had without the event loop turning. */
async function* burst(n: number): AsyncGenerator<number> {
  for (let i = 0; i < n; i++) yield i;
}

/** Reads all of `items`, counting the turns the event loop took meanwhile (by a `setImmediate` chain). */
async function readCountingTurns(items: AsyncIterable<number>): Promise<{ read: number[]; turns: number }> {
  let turns = 0;
  let reading = true;
  const tick = () => {
    if (!reading) return;
    turns++;
    setImmediate(tick);
  };
  setImmediate(tick);
  const read: number[] = [];
  for await (const item of items) read.push(item);
  reading = false;
  return { read, turns };
}

describe('readInTurns', () => {
  it('lets the event loop turn once reading has taken longer than a turn, and passes every item in order', async () => {
    let now = 0;
    // Each item takes a millisecond to read: with 2 ms turns the loop turns before every third.
    const clock = () => now++;
    const { read, turns } = await readCountingTurns(readInTurns(burst(90), 2, clock));
    expect(read).toEqual(Array.from({ length: 90 }, (_, i) => i));
    expect(turns).toBeGreaterThanOrEqual(25);
  });

  it('takes no turn while reading is quick', async () => {
    const { read, turns } = await readCountingTurns(readInTurns(burst(90), 2, () => 0));
    expect(read).toHaveLength(90);
    expect(turns).toBe(0);
  });
});
