import { once } from 'node:events';
import { type AddressInfo, connect, createServer, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { readInTurns, turnForIo } from './read-in-turns.ts';

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

describe('turnForIo', () => {
  /**
   * In a socket's read callback (the loop's poll phase, as after a statement's result), writes to it
   * again and waits with `wait`: whether the second read was handled before the wait ended.
   */
  async function secondReadBefore(wait: () => Promise<void>): Promise<boolean> {
    const server = createServer();
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const client = connect((server.address() as AddressInfo).port, '127.0.0.1');
    // Both awaited at once: either side may see its end of the connection first.
    const [[peer]] = (await Promise.all([once(server, 'connection'), once(client, 'connect')])) as [
      [Socket],
      unknown,
    ];
    try {
      const reads: string[] = [];
      const waited = new Promise<boolean>((resolve) => {
        peer.on('data', (d) => {
          reads.push(String(d));
          if (reads.length > 1) return;
          // The peer's second message is in the socket before this callback ends.
          client.write('second');
          void wait().then(() => resolve(reads.length > 1));
        });
      });
      client.write('first');
      return await waited;
    } finally {
      client.destroy();
      peer.destroy();
      server.close();
    }
  }

  it('ends only after the loop has read what arrived on its sockets meanwhile', async () => {
    for (let i = 0; i < 5; i++) expect(await secondReadBefore(turnForIo)).toBe(true);
  });

  it('where one immediate would end before the loop reads its sockets again', async () => {
    const oneImmediate = () => new Promise<void>((resolve) => setImmediate(resolve));
    for (let i = 0; i < 5; i++) expect(await secondReadBefore(oneImmediate)).toBe(false);
  });
});
