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
}
