/**
 * Keeps a caller under a per-minute burst cap instead of collecting 429s: each metered call waits until
 * fewer than `perMinute` calls were started in the last 60 seconds. (The server's cap is the truth; this
 * only avoids asking when the answer would be `rate_limited`.)
 */
export class Pacer {
  private readonly started: number[] = [];

  constructor(
    private perMinute: number,
    private readonly now: () => number = Date.now,
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
  ) {}

  /** The cap the server reported (from `RateLimit-Policy`), if it differs. */
  adjust(perMinute: number): void {
    this.perMinute = perMinute;
  }

  async take(signal?: AbortSignal): Promise<void> {
    for (;;) {
      signal?.throwIfAborted();
      const now = this.now();
      while (this.started.length > 0 && this.started[0]! <= now - 60_000) this.started.shift();
      if (this.started.length < this.perMinute) {
        this.started.push(now);
        return;
      }
      await this.sleep(this.started[0]! + 60_000 - now);
    }
  }
}
