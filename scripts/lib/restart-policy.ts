/**
 * When `make run` restarts a service that exited, as an orchestrator would: after a delay that doubles
 * with each quick exit (reset once the process has stayed up a while), and not at all once the service
 * is crash-looping. Pure: the clock is given.
 */
export interface RestartPolicy {
  initialDelayMs: number;
  maxDelayMs: number;
  /** A process that ran this long before exiting starts the delays again from the first. */
  stableAfterMs: number;
  /** This many exits within this window is a crash loop: give up. */
  crashLoop: { exits: number; withinMs: number };
}

export const DEFAULT_RESTART_POLICY: RestartPolicy = {
  initialDelayMs: 250,
  maxDelayMs: 8_000,
  stableAfterMs: 30_000,
  crashLoop: { exits: 5, withinMs: 120_000 },
};

export type RestartDecision =
  | { restart: true; delayMs: number; attempt: number }
  | { restart: false; why: string };

/** The restart history of one service. */
export class RestartTracker {
  private exits: number[] = [];
  private attempt = 0;

  constructor(
    private readonly policy: RestartPolicy = DEFAULT_RESTART_POLICY,
    private readonly clock: () => number = Date.now,
  ) {}

  /** The service exited, having started at `startedAt`: restart it after `delayMs`, or give up. */
  exited(startedAt: number): RestartDecision {
    const now = this.clock();
    const { crashLoop } = this.policy;
    if (now - startedAt >= this.policy.stableAfterMs) this.attempt = 0;
    this.exits = this.exits.filter((t) => now - t < crashLoop.withinMs);
    this.exits.push(now);
    if (this.exits.length >= crashLoop.exits) {
      return {
        restart: false,
        why: `${this.exits.length} exits within ${Math.round(crashLoop.withinMs / 1000)} s`,
      };
    }
    const delayMs = Math.min(this.policy.maxDelayMs, this.policy.initialDelayMs * 2 ** this.attempt);
    this.attempt++;
    return { restart: true, delayMs, attempt: this.attempt };
  }
}
