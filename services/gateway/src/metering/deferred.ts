/** The resolve and reject of the Deferred being made. */
let resolveMade: (value: never) => void;
let rejectMade: (reason: unknown) => void;
function capture(resolve: (value: never) => void, reject: (reason: unknown) => void): void {
  resolveMade = resolve;
  rejectMade = reject;
}

/**
 * A promise with its resolve and reject, made once for whatever waits on it (a request for its shard's
 * answer, a turn's charges for their acknowledgement), and extended by it: the waiter is its own
 * deferred. One executor serves every Deferred, so making one makes no closure.
 */
export class Deferred<T> {
  readonly promise: Promise<T>;
  readonly resolve: (value: T) => void;
  readonly reject: (reason: unknown) => void;

  constructor() {
    this.promise = new Promise<T>(capture);
    this.resolve = resolveMade as (value: T) => void;
    this.reject = rejectMade;
  }
}
