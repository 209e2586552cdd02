/**
 * The items of `source` in order, letting the event loop turn (`setImmediate`) before the next one
 * whenever reading has gone on for more than `turnMs` of `clock` since the last turn. A JetStream pull
 * delivers what it holds in bursts of hundreds of messages, each read and parsed as it comes; the
 * shard decides admissions and grants leases on the same loop, so without turns a request its shard
 * decides waits for the whole burst (15 ms, 417 messages, seen under load).
 */
export async function* readInTurns<T>(
  source: AsyncIterable<T>,
  turnMs: number,
  clock: () => number = () => performance.now(),
): AsyncGenerator<T> {
  let from = clock();
  for await (const item of source) {
    if (clock() - from > turnMs) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      from = clock();
    }
    yield item;
  }
}
