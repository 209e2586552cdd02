/**
 * Runs async sections one at a time. The ledger puts projection loads and batch applications through one
 * mutex so that a count read from Postgres and the events recorded after it are applied in order.
 */
export class Mutex {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.tail.then(fn, fn);
    this.tail = result.catch(() => {});
    return result;
  }

  /**
   * A section run for many keys at once. A key asked for joins the run waiting for the mutex, if one is
   * waiting, else starts one; the run takes every key asked for until it starts, and the keys asked for
   * while it runs wait for the next. So a burst of asks while the mutex is busy costs one run, not one each.
   */
  gathering<K>(section: (keys: K[]) => Promise<void>): (key: K) => Promise<void> {
    let waiting: { keys: Set<K>; done: Promise<void> } | null = null;
    return (key) => {
      if (waiting === null) {
        const keys = new Set<K>();
        const run = this.run(() => {
          if (waiting?.keys === keys) waiting = null;
          return section([...keys]);
        });
        waiting = { keys, done: run };
      }
      waiting.keys.add(key);
      return waiting.done;
    };
  }
}
