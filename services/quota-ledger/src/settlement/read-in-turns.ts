/**
 * Resolves once the event loop has polled for I/O since the call. Work that follows an I/O callback
 * (a statement's result) runs in the loop's poll phase, and one `setImmediate` from there runs in the
 * same iteration's check phase, before the loop reads its sockets again; an immediate set from the check
 * phase runs in the next iteration, after the poll. So this takes two, and what arrived on the shard's
 * admission streams meanwhile is decided in between.
 */
export const turnForIo = (): Promise<void> =>
  new Promise((resolve) => setImmediate(() => setImmediate(resolve)));

/**
 * The items of `source` in order, letting the event loop read its sockets (`turnForIo`) before the next
 * one whenever reading has gone on for more than `turnMs` of `clock` since the last turn. A JetStream pull
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
      await turnForIo();
      from = clock();
    }
    yield item;
  }
}
