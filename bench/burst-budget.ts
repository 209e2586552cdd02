/** How a pool scenario's measured run is sent: a count of requests round robin, or each account paced. */
export type PoolRun = { requests: number } | { periodMs: number };

/**
 * Refuses a pool scenario whose settings would send one account more requests within a minute than its
 * plan's burst cap: every request past it would be a 429, and the bench fails on any answer but a 200.
 * An account gets the priming's one, its share of the warm-up (round robin over the pool), and of the
 * run its share of a counted one or a minute of a paced one, all possibly within the same minute.
 * Returns the error to stop with before anything starts, or null.
 */
export function burstCapError(o: {
  scenario: string;
  accounts: number;
  warmup: number;
  run: PoolRun;
  cap: number;
  plan: string;
  /** The variables the figures come from, as the message names them. */
  settings: string;
}): string | null {
  const perAccount =
    1 +
    ('requests' in o.run
      ? Math.ceil((o.warmup + o.run.requests) / o.accounts)
      : Math.ceil(o.warmup / o.accounts) + Math.ceil(60_000 / o.run.periodMs));
  if (perAccount <= o.cap) return null;
  return (
    `${o.scenario}: ${perAccount} requests an account within a minute (${o.settings}), over the ${o.plan} ` +
    `plan's burst cap of ${o.cap} a minute: every request past it would be a 429`
  );
}
